"""The settling table (every cell of the text's table) and the payments each loser makes."""

import pytest

from engine.japanese.points import basic_points, payments

P = "%"  # a cell in percent of the Limit (2000)
# fu -> cells for 1..13 han, transcribed from the rules text's settling table
TABLE = {
    20: [160, 320, 640, 1280, "100%", "150%", "150%", "200%", "200%", "200%", "300%", "300%", "400%"],
    25: [200, 400, 800, 1600, "100%", "100%", "150%", "200%", "200%", "200%", "300%", "300%", "400%"],
    30: [240, 480, 960, 1920, "100%", "150%", "150%", "200%", "200%", "200%", "300%", "300%", "400%"],
    40: [320, 640, 1280, "100%", "100%", "150%", "150%", "200%", "200%", "200%", "300%", "300%", "400%"],
    50: [400, 800, 1600, "100%", "100%", "150%", "150%", "200%", "200%", "200%", "300%", "300%", "400%"],
    60: [480, 960, 1920, "100%", "100%", "150%", "150%", "200%", "200%", "200%", "300%", "300%", "400%"],
    70: [560, 1120, "100%", "100%", "100%", "150%", "150%", "200%", "200%", "200%", "300%", "300%", "400%"],
    80: [640, 1280, "100%", "100%", "100%", "150%", "150%", "200%", "200%", "200%", "300%", "300%", "400%"],
    90: [720, 1440, "100%", "100%", "100%", "150%", "150%", "200%", "200%", "200%", "300%", "300%", "400%"],
}
# The 25 fu / 6 han cell reads 100%: every other 6 han cell is 150% and 5 han is already 100% for every fu,
# so it is taken as a misprint (docs/japanese.md) and 6 han pays 150% at 25 fu too.
MISPRINTS = {(25, 6): 3000}


def _points(cell) -> int:
    return int(cell[:-1]) * 2000 // 100 if isinstance(cell, str) else cell


@pytest.mark.parametrize("fu", sorted(TABLE))
def test_every_cell_of_the_settling_table(fu):
    for han, cell in enumerate(TABLE[fu], start=1):
        want = MISPRINTS.get((fu, han), _points(cell))
        assert basic_points(han, fu)[0] == want, (fu, han)
    assert basic_points(20, fu)[0] == 8000  # "13- han": 13 and more


def test_limit_names_and_options():
    assert basic_points(4, 40) == (2000, "mangan")
    assert basic_points(4, 30) == (1920, None)
    assert basic_points(4, 30, kiriage=True) == (2000, "mangan")
    assert basic_points(7, 30) == (3000, "haneman")
    assert basic_points(10, 30) == (4000, "baiman")
    assert basic_points(12, 30) == (6000, "sanbaiman")
    assert basic_points(13, 30) == (8000, "yakuman")
    assert basic_points(14, 30, counted_limit=False) == (6000, "sanbaiman")


def test_payments_round_each_share_up_to_100():
    assert payments(1920, dealer=False, tsumo=False)["discarder"] == 7700
    assert payments(1920, dealer=True, tsumo=False)["discarder"] == 11600
    assert payments(240, dealer=False, tsumo=True) == {"discarder": None, "dealer": 500, "non_dealer": 300,
                                                        "total": 1100}
    assert payments(240, dealer=True, tsumo=True) == {"discarder": None, "dealer": None, "non_dealer": 500,
                                                       "total": 1500}
    assert payments(8000, dealer=False, tsumo=True)["total"] == 32000
