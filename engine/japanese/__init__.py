"""Japanese-rules (riichi) scoring: fu, han, limit hands, the settling table and payments.

Pure rules, no I/O. The entry point other code uses is :func:`score_request` (the dict of ``mahj jp score``);
the pieces underneath are the mpsz tile reader (:mod:`.tiles`), the readings of a hand (:mod:`.decompose`),
fu and han (:mod:`.scoring`), basic points and payments (:mod:`.points`) and the rule presets (:mod:`.rules`).
"""

from engine.japanese.request import RequestError, parse_request, score_request
from engine.japanese.rules import PRESETS, REFERENCE, TENHOU, Rules

__all__ = ["PRESETS", "REFERENCE", "TENHOU", "RequestError", "Rules", "parse_request", "score_request"]
