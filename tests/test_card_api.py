"""The engine.card API the referee and commands rely on (docs/card.md), on the shipped sample card."""

import random

import pytest

from engine.card import SAMPLE_CARD, CardError, load_card, parse_card


@pytest.fixture(scope="module")
def card():
    return load_card(SAMPLE_CARD)


def test_sample_card_loads_with_enough_lines(card):
    assert card.name == "mahj Sample Card 2026"
    assert len(card.lines) >= 50
    assert card.cheapest_value == min(ln.value for ln in card.lines)
    assert card.variation_count == sum(len(card.variations(ln)) for ln in card.lines)


def test_a_plain_variation_verifies_shuffled(card):
    rng = random.Random(7)
    line = card.line("Consecutive Run", 2)
    for v in card.variations(line):
        tiles = v.tiles()
        rng.shuffle(tiles)
        verdict = card.verify(tiles)
        assert verdict.mahjong and line in verdict.lines and verdict.jokerless, tiles


def test_exposure_counts_as_its_group(card):
    line = card.line("2026", 1)
    groups = [list(g.tiles) for g in card.variations(line)[0].groups]
    exposed = [groups[2][:2] + ["J"]]  # the pung of twos, one joker
    concealed = [t for i, g in enumerate(groups) if i != 2 for t in g]
    verdict = card.verify(concealed, exposed)
    assert verdict.mahjong and verdict.value == line.value and not verdict.jokerless
    assert verdict.to_json()["lines"][0] == {"section": "2026", "line": 1, "text": line.text, "value": 25,
                                             "concealed": False}


def test_parse_error_names_the_place():
    with pytest.raises(CardError) as err:
        parse_card("card: t\n[s]\nFF 2026a 2222b 222x X25\n", "t.card")
    assert err.value.diagnostics[0].startswith("t.card:3:")
