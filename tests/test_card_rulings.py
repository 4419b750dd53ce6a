"""Rulings players ask about, as behaviour of the sample card (our wording; see docs/card.md).

Each test names the ruling it pins down; hands are written out in full so a reader can check them by eye.
"""

import itertools

import pytest

from engine.card import SAMPLE_CARD, load_card

CARD = load_card(SAMPLE_CARD)


def lines_of(verdict):
    return {(ln.section, ln.number) for ln in verdict.lines}


def hand(text):
    return text.split()


# --- jokers never stand for a single or a pair ------------------------------------------------------------------

def test_joker_may_fill_a_kong_but_never_a_pair():
    natural = hand("F F 2B 2B 2B 2B 4B 4B 6B 6B 8B 8B 8B 8B")  # 2468 #2: FF 2222 44 66 8888
    assert ("2468", 2) in lines_of(CARD.verify(natural))
    kong_joker = hand("F F 2B 2B 2B J 4B 4B 6B 6B 8B 8B 8B 8B")
    assert ("2468", 2) in lines_of(CARD.verify(kong_joker))
    pair_joker = hand("F F 2B 2B 2B 2B 4B J 6B 6B 8B 8B 8B 8B")
    assert not CARD.verify(pair_joker).mahjong
    flower_pair_joker = hand("F J 2B 2B 2B 2B 4B 4B 6B 6B 8B 8B 8B 8B")
    assert not CARD.verify(flower_pair_joker).mahjong


def test_joker_never_in_a_group_of_different_tiles():
    year = hand("F F F 2B WD 2B 6B 2C 2C 2C 2D 2D 2D 2D")  # 2026 #1: FFF 2026a 222b 2222c
    assert CARD.verify(year).mahjong
    assert not CARD.verify(hand("F F F 2B J 2B 6B 2C 2C 2C 2D 2D 2D 2D")).mahjong


def test_singles_and_pairs_take_no_jokers_and_earn_no_jokerless_bonus():
    sp = hand("1D 1D 2D 2D 3D 3D 4D 4D 5D 5D 6D 6D 7D 7D")  # Singles and Pairs #2, shift 0
    verdict = CARD.verify(sp)
    assert verdict.mahjong and verdict.singles_and_pairs and not verdict.jokerless and verdict.value == 50
    for i in range(14):
        assert not CARD.verify(sp[:i] + ["J"] + sp[i + 1:]).mahjong


def test_jokers_allowed_in_concealed_hands_pungs_and_a_group_of_only_jokers_is_fine():
    concealed = hand("2B 4B 6B 8B 2C 4C 6C 8C 2D 2D 2D 8D 8D 8D")  # 2468 #4: 2468a 2468b 222c 888c C35
    assert lines_of(CARD.verify(concealed)) == {("2468", 4)}
    all_jokers = hand("2B 4B 6B 8B 2C 4C 6C 8C J J J 8D 8D 8D")
    verdict = CARD.verify(all_jokers)
    assert verdict.mahjong and verdict.value == 35 and not verdict.jokerless


def test_quint_needs_a_joker_so_a_quint_hand_is_never_jokerless():
    quints = hand("F F F F F 1B 1B 1B 1B J 1C 1C 1C 1C")  # Quints #2: FFFFF 55555a 5555b, shifted to ones
    verdict = CARD.verify(quints)
    assert ("Quints", 2) in lines_of(verdict) and not verdict.jokerless


def test_jokerless_bonus_only_without_any_joker_concealed_or_exposed():
    natural = CARD.verify(hand("F F F 2B WD 2B 6B 2C 2C 2C 2D 2D 2D 2D"))
    assert natural.mahjong and natural.jokerless and not natural.singles_and_pairs
    exposed_joker = CARD.verify(hand("2B WD 2B 6B 2C 2C 2C 2D 2D 2D 2D"), [["F", "F", "J"]])
    assert exposed_joker.mahjong and not exposed_joker.jokerless


# --- zeros are soap and belong to no suit -----------------------------------------------------------------------

def test_zero_is_the_white_dragon_in_every_suit():
    for suit in "BCD":
        others = [s for s in "BCD" if s != suit]
        year = [f"2{suit}", "WD", f"2{suit}", f"6{suit}"]
        tiles = ["F", "F", "F", *year, *[f"2{others[0]}"] * 3, *[f"2{others[1]}"] * 4]
        assert ("2026", 1) in lines_of(CARD.verify(tiles))
        red = [t if t != "WD" else "RD" for t in tiles]  # the suit's own dragon is not a zero
        assert not CARD.verify(red).mahjong


def test_zero_never_stands_in_a_run_or_for_any_number():
    run = hand("1B 1B 1B 2B 2B 2B 2B 3B 3B 3B 4B 4B 4B 4B")  # Consecutive Run #1: 111 2222 333 4444 shift any
    assert ("Consecutive Run", 1) in lines_of(CARD.verify(run))
    with_zeros = ["WD" if t == "1B" else t for t in run]
    assert not CARD.verify(with_zeros).mahjong


def test_a_pung_of_zeros_may_take_jokers():
    tiles = hand("E E E E W W W W WD J J F F F")  # Winds and Dragons #4: EEEE WWWW 000 FFF
    assert ("Winds and Dragons", 4) in lines_of(CARD.verify(tiles))


# --- like numbers and colours ------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", range(1, 10))
def test_like_numbers_means_the_same_number_in_every_group(n):
    tiles = ["F", "F"] + [f"{n}B"] * 4 + [f"{n}C"] * 4 + [f"{n}D"] * 4  # Any Like Numbers #1
    assert ("Any Like Numbers", 1) in lines_of(CARD.verify(tiles))
    m = n % 9 + 1
    unlike = ["F", "F"] + [f"{n}B"] * 4 + [f"{n}C"] * 4 + [f"{m}D"] * 4
    assert ("Any Like Numbers", 1) not in lines_of(CARD.verify(unlike))


def test_colours_mean_different_suits_never_particular_suits():
    # 2468 #1: 222a 444a 6666b 8888b: any two different suits, in either order
    for a, b in itertools.permutations("BCD", 2):
        tiles = [f"2{a}"] * 3 + [f"4{a}"] * 3 + [f"6{b}"] * 4 + [f"8{b}"] * 4
        assert ("2468", 1) in lines_of(CARD.verify(tiles)), (a, b)
    one_suit = ["2B"] * 3 + ["4B"] * 3 + ["6B"] * 4 + ["8B"] * 4
    assert ("2468", 1) not in lines_of(CARD.verify(one_suit))


def test_one_colour_means_one_suit_any_suit():
    for s in "BCD":
        tiles = ["F", "F"] + [f"2{s}"] * 4 + [f"4{s}"] * 2 + [f"6{s}"] * 2 + [f"8{s}"] * 4  # 2468 #2
        assert ("2468", 2) in lines_of(CARD.verify(tiles))
    mixed = ["F", "F"] + ["2B"] * 4 + ["4B"] * 2 + ["6C"] * 2 + ["8B"] * 4
    assert ("2468", 2) not in lines_of(CARD.verify(mixed))


def test_dragon_follows_its_groups_suit_matching_or_opposite():
    # 2468 #7: 22 444 66 888 DDDD, one suit with its own dragon (Bam-Green, Crak-Red, Dot-Soap)
    for suit, dragon in (("B", "GD"), ("C", "RD"), ("D", "WD")):
        base = [f"2{suit}"] * 2 + [f"4{suit}"] * 3 + [f"6{suit}"] * 2 + [f"8{suit}"] * 3
        assert ("2468", 7) in lines_of(CARD.verify(base + [dragon] * 4))
        wrong = next(d for d in ("GD", "RD", "WD") if d != dragon)
        assert ("2468", 7) not in lines_of(CARD.verify(base + [wrong] * 4))
    # 2468 #3: 22a 44a 666b 888b DDDDc: the dragon of the third suit, neither of the two used
    tiles = hand("2B 2B 4B 4B 6C 6C 6C 8C 8C 8C WD WD WD WD")
    assert ("2468", 3) in lines_of(CARD.verify(tiles))
    assert ("2468", 3) not in lines_of(CARD.verify(tiles[:10] + ["GD"] * 4))


# --- exposures ---------------------------------------------------------------------------------------------------

def test_an_exposure_rules_out_concealed_lines():
    concealed = hand("2B 4B 6B 8B 2C 4C 6C 8C 8D 8D 8D")
    assert not CARD.verify(concealed, [["2D", "2D", "2D"]]).mahjong  # 2468 #4 is C35
    assert all(not ln.concealed for ln in CARD.lines_allowing([["2D", "2D", "2D"]]))
    assert any(ln.concealed for ln in CARD.lines_allowing([]))


def test_exposure_must_be_a_whole_eligible_group_of_the_same_size():
    rest = hand("2B WD 2B 6B 2C 2C 2C 2D 2D 2D 2D")  # 2026 #1 with FFF exposed
    assert CARD.verify(rest, [["F", "F", "J"]]).mahjong
    kong_for_pung = CARD.verify(hand("2B WD 2B 6B 2C 2C 2C 2D 2D 2D"), [["F", "F", "F", "F"]])
    assert not kong_for_pung.mahjong
    year_exposed = CARD.verify(hand("F F F 2C 2C 2C 2D 2D 2D 2D"), [["2B", "WD", "2B", "6B"]])
    assert not year_exposed.mahjong and "mixes tiles" in year_exposed.reason


def test_an_exposure_of_jokers_only_is_not_allowed():
    verdict = CARD.verify(hand("2B WD 2B 6B 2C 2C 2C 2D 2D 2D 2D"), [["J", "J", "J"]])
    assert not verdict.mahjong and "jokers only" in verdict.reason
    assert CARD.lines_allowing([["J", "J", "J"]]) == []


def test_mah_jongg_needs_exactly_fourteen_tiles_and_a_real_set():
    assert CARD.verify(hand("F F 2B 2B 2B 2B 4B 4B 6B 6B 8B 8B 8B")).reason == "13 tiles; Mah Jongg needs 14"
    assert "a set has only 4" in CARD.verify(hand("F F 2B 2B 2B 2B 2B 4B 6B 6B 8B 8B 8B 8B")).reason
