"""Which tiles of a rack photo are asked about (assistant/rack_doubt.py): the classifier's doubt, a tile of one
suit standing among another on a rack sorted by suit, and more of a kind than a set holds."""

from __future__ import annotations

from assistant.rack_doubt import UNSURE, doubts
from assistant.rack_reading import RackTile, rack_rows


def rack(codes: str, alts: dict[int, tuple[str, ...]] | None = None, scores: dict[int, float] | None = None,
         gap_after: int | None = None) -> list[RackTile]:
    """Tiles standing side by side in one row (40 px wide, 2 px apart; ``gap_after``: a tile's width of table
    after that tile), all read at 0.99 unless ``scores`` says otherwise."""
    out, x = [], 0.0
    for i, code in enumerate(codes.split()):
        out.append(RackTile(code, (scores or {}).get(i, 0.99), (alts or {}).get(i, ()), box=(x, 0.0, x + 40, 60.0)))
        x += 42 + (40 if i == gap_after else 0)
    return out


def asked(tiles: list[RackTile]) -> dict[int, str]:
    return doubts(tiles, rack_rows([t.box for t in tiles]))


def test_a_sure_read_of_another_suit_inside_a_sorted_rack_is_asked_about():
    # Five Dot read as Five Crak (0.99 sure) among the Dots of a rack sorted by suit.
    tiles = rack("1B 2B 3B 3B 4D 5C 6D 7D N N RD J J", alts={5: ("5D", "3C")})
    assert asked(tiles) == {5: "it stands among Dots"}


def test_no_question_where_the_rack_is_not_sorted_or_the_classifier_sees_no_such_tile():
    assert asked(rack("1B 2B 3B 3B 4D 5C 6D 7D N N RD", alts={5: ("3C", "7C")})) == {}   # no Dot among its likeliest
    assert asked(rack("4D 1B 5C 6D 2B 3B 7D N 3D", alts={2: ("5D",)})) == {}              # not sorted by suit
    assert asked(rack("4D 5C 6D 7C 8D N N", alts={1: ("5D",), 3: ("7D",)})) == {}         # two odd tiles: neither
    assert asked(rack("2B 5D 3B", alts={1: ("5B",)})) == {}                                # too short to tell
    # Jokers and Flowers stand anywhere: neither is odd, nor do they make a neighbour odd.
    assert asked(rack("1B 2B J 3B 4D 5D F 6D 7D", alts={2: ("2B",), 6: ("6D",)})) == {}


def test_tiles_lying_apart_are_not_one_rack():
    tiles = rack("1D 2D 3D 4D 5C 6D 7D N", alts={4: ("5D",)}, gap_after=3)
    assert asked(tiles) == {}
    assert asked(rack("1D 2D 3D 4D 5C 6D 7D N", alts={4: ("5D",)})) == {4: "it stands among Dots"}


def test_more_of_a_kind_than_a_set_holds_asks_about_the_least_sure_and_the_score_still_counts():
    tiles = rack("3B 3B 3B 3B 3B 3B 7C 8C", scores={1: 0.97, 4: 0.9, 6: 0.6})
    got = asked(tiles)
    assert set(got) == {1, 4, 6}
    assert got[4] == got[1] == "6 read as Three Bam, more than a set has" and got[6] == UNSURE
    assert asked(rack("J J J J J J J J 1D 2D 3D 4D 5D 6D")) == {}      # eight Jokers: a set may hold them
