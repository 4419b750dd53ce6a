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


def test_sample_card_has_the_usual_sections_and_uses_every_feature(card):
    assert card.sections == ["2026", "2468", "Any Like Numbers", "Addition", "Quints", "Consecutive Run", "13579",
                             "Winds and Dragons", "369", "Singles and Pairs"]
    assert card.year == "2026" and card.publisher
    groups = [g for ln in card.lines for s in ln.slots for g in s.alternatives]
    symbols = {ch for g in groups for ch in g.symbols}
    assert symbols == set("0123456789FNEWSD")
    assert {g.tag for g in groups} == {None, "a", "b", "c"}
    assert any(len(s.alternatives) > 1 for ln in card.lines for s in ln.slots)
    assert any(ln.shifted and ln.shifts is None for ln in card.lines)
    assert any(ln.shifted and ln.shifts is not None and min(ln.shifts) < 0 for ln in card.lines)
    assert {ln.concealed for ln in card.lines} == {True, False}
    assert any(ln.note for ln in card.lines) and any(ln.singles_and_pairs for ln in card.lines)
    assert any(g.size >= 5 for g in groups)  # quints and a sextet
    assert "#" in SAMPLE_CARD.read_text(encoding="utf-8")  # comments
