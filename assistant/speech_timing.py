"""How long the synthesiser takes to say a sentence, estimated from its text.

The speaker decides by it whether the sentence being said is about to end (an answer or a discard waits for it)
or still has a while to go (cut it short). espeak-ng plays straight to the audio device, so the speaker never
sees the audio itself. Counting words ("three words at 165 a minute") ran up to a third short: a comma is a
pause of its own (0.3 s at 165), "25" is said as "twenty five", and an answer then waited behind a discard the
speaker took for nearly over.

The model: words take time in proportion to their letters, a number by its digits; the pauses at commas, colons
and between sentences shrink faster than words as the rate goes up. Its coefficients were fitted (least squares)
to real espeak-ng 1.51 synthesis (en-us voice, ``-z``: no final pause) of about 250 sentences the speaker says
(discards, calls, results, payments, answers, questions, notices) at 120, 165, 250 and 350 words a minute:
within 15 % of the real length for 88-92 % of them at 120-250 words a minute, 65 % at 350, where it runs long
(``python bench/speech_durations.py --fit`` measures it again and refits). Other voices and flite are near
enough for the one decision it serves.
"""

from __future__ import annotations

import re

#: Seconds at 165 words a minute: per letter of a word, per digit of a number, per number, per sentence.
_LETTER_S, _DIGIT_S, _NUMBER_S, _SENTENCE_S = 0.0674, 0.239, 0.0047, 0.1846
#: Seconds at 165 words a minute of a pause: at a comma, colon or semicolon; between two sentences.
_COMMA_S, _STOP_S = 0.2939, 0.4967
_WORD = re.compile(r"[A-Za-z']+|\d+")
_COMMA = re.compile(r"[,:;]")
_STOP = re.compile(r"[.?!](?=\s)")


def spoken_seconds(text: str, rate: int) -> float:
    """About how long ``text`` takes to say at ``rate`` words a minute (espeak-ng's ``-s``)."""
    words = _WORD.findall(text)
    letters = sum(len(w) for w in words if not w.isdigit())
    numbers = [w for w in words if w.isdigit()]
    body = text.rstrip(" .?!")
    scale = 165 / max(rate, 1)
    said = _LETTER_S * letters + _DIGIT_S * sum(map(len, numbers)) + _NUMBER_S * len(numbers) + _SENTENCE_S
    paused = _COMMA_S * len(_COMMA.findall(body)) + _STOP_S * len(_STOP.findall(body))
    return said * scale + paused * scale**2
