import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.tiles import (
    INDEX,
    SET_COUNTS,
    TILES,
    Suit,
    TileError,
    name_or_code,
    parse_tile,
    parse_tiles,
    rank_of,
    spoken_name,
    suit_of,
)


def test_set_has_152_tiles_in_36_kinds():
    assert len(TILES) == 36
    assert sum(SET_COUNTS.values()) == 152


@pytest.mark.parametrize("text,code", [
    ("3B", "3B"), ("3 bam", "3B"), ("three bams", "3B"), ("7c", "7C"), ("1 dot", "1D"), ("soap", "WD"),
    ("red", "RD"), ("Green Dragon", "GD"), ("flower", "F"), ("joker", "J"), ("N", "N"), ("west", "W"),
    ("North Wind", "N"),
])
def test_parse_common_spellings(text, code):
    assert parse_tile(text) == code


def test_spoken_names():
    assert spoken_name("3B") == "Three Bam"
    assert spoken_name("N") == "North wind"
    assert spoken_name("WD") == "Soap"
    assert spoken_name("F") == "Flower"
    assert spoken_name("J") == "Joker"


def test_parse_tiles_multiword_and_error_position():
    assert parse_tiles("3 bam 3B, J red dragon") == ["3B", "3B", "J", "RD"]
    assert parse_tiles("north wind N soap") == ["N", "N", "WD"]
    with pytest.raises(TileError) as err:
        parse_tiles("3B 3B 10B")
    assert err.value.position == 2


@given(st.sampled_from(TILES))
def test_code_and_spoken_name_round_trip(code):
    assert parse_tile(code) == code
    assert parse_tile(spoken_name(code)) == code
    assert INDEX[code] == TILES.index(code)


def test_suit_and_rank():
    assert suit_of("5C") is Suit.CRAK and rank_of("5C") == 5
    assert suit_of("WD") is None and rank_of("F") is None


def test_name_or_code_never_fails_on_odd_input():
    assert name_or_code("3B") == "Three Bam"
    assert name_or_code("?") == "?"
    assert name_or_code(None) == "None"
