"""Differential test against the ``mahjong`` package (test-only dependency) in our ``tenhou`` preset.

Thousands of seeded random winning hands (tests/jp_hands.py) are scored by both; they must agree on han, on
fu (except for limit hands, where fu does not count and we report 0), on basic points and on what each loser
pays, and on which hands have no yaku.
"""

import random

import pytest
from jp_hands import generate, mahjong_package_score

from engine.japanese import score_request

pytest.importorskip("mahjong")

HANDS = 5000
#: the package's limit names -> basic points (below the Limit it reports none and we use fu * 2^(han+2))
LEVELS = {"mangan": 2000, "haneman": 3000, "baiman": 4000, "sanbaiman": 6000, "yakuman": 8000,
          "kazoe yakuman": 8000}


def _their_basic(result) -> int:
    level = result.cost["yaku_level"]
    if level in LEVELS:
        return LEVELS[level]
    if level.endswith("x yakuman"):
        return 8000 * int(level[0])
    return result.fu * 2 ** (result.han + 2)


def _theirs_paid(result, tsumo: bool) -> dict:
    cost = result.cost
    return {"main": cost["main"], "additional": cost["additional"]} if tsumo else {"main": cost["main"]}


def _ours_paid(payments: dict, tsumo: bool) -> dict:
    if not tsumo:
        return {"main": payments["discarder"]}
    if payments["dealer"] is None:  # the dealer won: everyone pays the same
        return {"main": payments["non_dealer"], "additional": payments["non_dealer"]}
    return {"main": payments["dealer"], "additional": payments["non_dealer"]}


@pytest.mark.parametrize("seed", [1, 2])
def test_same_scores_as_the_mahjong_package(seed):
    rng = random.Random(seed)
    wins = 0
    wrong = []
    for _ in range(HANDS // 2):
        hand = generate(rng)
        ours = score_request(hand.request)
        theirs = mahjong_package_score(hand)
        assert ours["ok"], (hand.request, ours)
        if theirs.error:
            if ours["win"] or theirs.error not in ("no_yaku", "hand_not_winning"):
                wrong.append((hand.request, ours, theirs.error))
            continue
        wins += 1
        tsumo = hand.request["tsumo"]
        got = (ours.get("han"), ours.get("fu") if theirs.han < 13 else None, ours.get("basic_points"),
               _ours_paid(ours["payments"], tsumo) if ours["win"] else None)
        want = (theirs.han, theirs.fu if theirs.han < 13 else None, _their_basic(theirs), _theirs_paid(theirs, tsumo))
        if got != want:
            wrong.append((hand.request, got, want, [str(y) for y in theirs.yaku]))
    assert not wrong, "\n".join(map(str, wrong[:5]))
    assert wins > HANDS // 2 * 0.7  # most generated hands have a yaku, so the comparison has teeth
