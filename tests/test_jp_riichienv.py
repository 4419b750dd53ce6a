"""External check: hands scored by an independent engine (RiichiEnv, rules close to our ``tenhou`` preset).

The committed sample always runs; the full data set (816 winning hands, 200 negatives) runs when
``../shared`` is present and is skipped otherwise. Every winning hand must agree on han, fu and the set of
patterns; a non-ready 13-tile hand must not win with any 14th tile, and a ready one must win with some tile.
"""

import pytest
from jp_riichienv import SAMPLE, SHARED, counts_to_mpsz, expected_names, load, to_request

from engine.japanese import score_request

SOURCES = [pytest.param(SAMPLE, id="sample"),
           pytest.param(SHARED, id="full", marks=pytest.mark.skipif(not SHARED.is_dir(), reason="no ../shared"))]


@pytest.mark.parametrize("source", SOURCES)
def test_winning_hands_agree(source):
    agari, _ = load(source)
    wrong = []
    for i, case in enumerate(agari):
        got = score_request(to_request(case))
        want = case["expected"]
        names = {y["name"] for y in got.get("yaku", [])}
        if not got.get("win") or (got["han"], got["fu"], names) != (want["han"], want["fu"], expected_names(case)):
            wrong.append(f"case {i}: want {want['han']} han {want['fu']} fu {sorted(expected_names(case))}, "
                         f"got {got}")
    assert not wrong, "\n".join(wrong[:10])
    assert len(agari) >= (816 if source == SHARED else 60)


@pytest.mark.parametrize("source", SOURCES)
def test_negative_hands_do_not_win(source):
    _, negative = load(source)
    wrong = []
    for i, case in enumerate(negative):
        counts = case["counts_34"]
        wins = []
        for k in range(34):
            if counts[k] < 4:
                hand = counts[:]
                hand[k] += 1
                win = counts_to_mpsz([int(j == k) for j in range(34)])
                # self-drawn and concealed: fully concealed self-draw is a yaku, so win == winning shape
                got = score_request({"hand": counts_to_mpsz(hand), "win": win, "tsumo": True, "seat_wind": "S",
                                     "round_wind": "E", "rules": "tenhou"})
                assert got["ok"], got
                if got["win"]:
                    wins.append(win)
        if bool(wins) != case["is_tenpai"]:
            wrong.append(f"negative {i} (ready: {case['is_tenpai']}): wins with {wins}")
    assert not wrong, "\n".join(wrong)
    assert len(negative) >= (200 if source == SHARED else 30)  # so an empty or truncated set cannot pass
