"""The compiled matcher against the card's meaning: every hand a line allows verifies on it, and on random and
nearly-right hands the fast matcher agrees line for line with the brute-force matcher in card_bruteforce.py."""

import random
from collections import Counter

import pytest
from card_bruteforce import concrete_hands, matching_lines, missing_per_line
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.card import SAMPLE_CARD, load_card
from engine.tiles import SET_COUNTS, TILES

CARD = load_card(SAMPLE_CARD)
LINES = CARD.lines
NATURALS = [t for t in TILES if t != "J"]
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def found(verdict):
    return {(ln.section, ln.number) for ln in verdict.lines}


def key(line):
    return (line.section, line.number)


def test_engine_expansion_equals_brute_force_expansion():
    """Both expand every line into the same set of concrete hands (suits, shifts, alternatives)."""
    for line in LINES:
        ours = {tuple(sorted((g.tiles, g.joker_ok) for g in v.groups)) for v in CARD.variations(line)}
        theirs = {tuple(sorted((tuple(t), ok) for t, ok in groups)) for groups in concrete_hands(line)}
        assert ours == theirs, line.text


def with_jokers(groups, wants_joker):
    """Tile lists for a concrete hand, a joker wherever ``wants_joker(tile)`` says so in a pung-or-larger group,
    plus wherever a real set would run out of naturals; None if that would take more than 8 jokers."""
    hand = [[("J" if ok and wants_joker(t) else t) for t in tiles] for tiles, ok in groups]
    counts = Counter(t for g in hand for t in g)
    for (_, ok), g in zip(groups, hand, strict=True):
        for i, t in enumerate(g):
            if ok and t != "J" and counts[t] > SET_COUNTS[t]:
                g[i], counts[t], counts["J"] = "J", counts[t] - 1, counts["J"] + 1
    return hand if counts["J"] <= 8 else None


def test_every_concrete_hand_verifies_on_its_line_with_jokers_in_eligible_groups():
    rng = random.Random(2026)
    checked = 0
    for line in LINES:
        for groups in concrete_hands(line):
            hand = with_jokers(groups, lambda _t: rng.random() < 0.4)
            if hand is None:
                continue
            tiles = [t for g in hand for t in g]
            rng.shuffle(tiles)
            verdict = CARD.verify(tiles)
            assert verdict.mahjong and key(line) in found(verdict), (line.text, tiles)
            assert verdict.value == max(ln.value for ln in verdict.lines)
            checked += 1
    assert checked > CARD.variation_count  # brute force keeps duplicates, so it yields more hands


@st.composite
def made_hands(draw, allow_exposures=True):
    """A hand built from a random concrete hand of a random line: jokers in eligible slots, some pungs or larger
    exposed (X lines only), concealed tiles shuffled. Returns (line, groups, concealed, exposures)."""
    line = draw(st.sampled_from(LINES))
    groups = draw(st.sampled_from(concrete_hands(line)))
    hand = with_jokers(groups, lambda _t: draw(st.booleans()))
    assume(hand is not None)
    concealed, exposures = [], []
    for (natural, ok), tiles in zip(groups, hand, strict=True):
        if ok and allow_exposures and not line.concealed and draw(st.integers(0, 3)) == 0:
            if all(t == "J" for t in tiles):  # an exposure needs one natural tile
                tiles = [natural[0], *tiles[1:]]
            exposures.append(tiles)
        else:
            concealed.extend(tiles)
    assume(concealed)
    concealed = draw(st.permutations(concealed))
    return line, groups, list(concealed), exposures


@SETTINGS
@given(made_hands())
def test_made_hands_verify_on_their_line(hand):
    line, _, concealed, exposures = hand
    verdict = CARD.verify(concealed, exposures)
    assert verdict.mahjong and key(line) in found(verdict)
    assert found(verdict) == matching_lines(CARD, concealed, exposures)
    jokers = "J" in concealed or any("J" in e for e in exposures)
    assert verdict.jokerless == (not jokers and not verdict.singles_and_pairs)


@SETTINGS
@given(made_hands(), st.data())
def test_an_unwanted_tile_breaks_the_line_unless_brute_force_finds_a_match(hand, data):
    line, groups, concealed, exposures = hand
    wanted = {t for tiles, _ in groups for t in tiles}
    have = Counter(concealed) + Counter(t for e in exposures for t in e)
    unwanted = [t for t in NATURALS if t not in wanted and have[t] < SET_COUNTS[t]]
    i = data.draw(st.integers(0, len(concealed) - 1))
    mutated = concealed[:i] + [data.draw(st.sampled_from(unwanted))] + concealed[i + 1:]
    verdict = CARD.verify(mutated, exposures)
    expected = matching_lines(CARD, mutated, exposures)
    assert found(verdict) == expected
    assert verdict.mahjong == bool(expected)


@SETTINGS
@given(made_hands(allow_exposures=False).filter(lambda h: any(not ok for _, ok in h[1])), st.data())
def test_a_joker_in_a_single_or_pair_fails_unless_brute_force_finds_a_match(hand, data):
    line, groups, _, _ = hand
    flat = [(t, ok) for tiles, ok in groups for t in tiles]
    i = data.draw(st.sampled_from([i for i, (_, ok) in enumerate(flat) if not ok]))
    tiles = [t for t, _ in flat]
    tiles[i] = "J"
    tiles = data.draw(st.permutations(tiles))
    verdict = CARD.verify(tiles)
    expected = matching_lines(CARD, tiles)
    assert found(verdict) == expected
    if key(line) not in expected:
        assert key(line) not in found(verdict)


@SETTINGS
@given(st.lists(st.sampled_from(TILES), min_size=14, max_size=14))
def test_random_hands_agree_with_brute_force(tiles):
    assert found(CARD.verify(tiles)) == matching_lines(CARD, tiles)


@pytest.mark.parametrize("seed", range(3))
def test_near_misses_with_exposures_agree_with_brute_force(seed):
    """Valid hands with one concealed tile swapped for each other kind in turn: exhaustive near the targets."""
    rng = random.Random(seed)
    for line in rng.sample(LINES, 12):
        groups = rng.choice(concrete_hands(line))
        exposures = [list(t) for t, ok in groups if ok and not line.concealed][:1]
        concealed = [t for tiles, ok in groups for t in tiles]
        for e in exposures:
            for t in e:
                concealed.remove(t)
        i = rng.randrange(len(concealed))
        for other in TILES:
            mutated = concealed[:i] + [other] + concealed[i + 1:]
            assert found(CARD.verify(mutated, exposures)) == matching_lines(CARD, mutated, exposures), \
                (line.text, mutated, exposures)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(made_hands(), st.data())
def test_suggest_missing_counts_agree_with_brute_force_and_its_need_list_completes_the_hand(hand, data):
    """Take a made hand, replace up to 3 concealed tiles at random and drop one (13 tiles): for every line, the
    fewest missing tiles equal the brute force's; adding exactly the listed tiles to what the hand keeps gives
    Mah Jongg on that line."""
    _, _, concealed, exposures = hand
    for _ in range(data.draw(st.integers(0, 3))):
        i = data.draw(st.integers(0, len(concealed) - 1))
        concealed[i] = data.draw(st.sampled_from(TILES))
    concealed = concealed[:-1]
    expected = missing_per_line(CARD, concealed, exposures)
    ranked = CARD.suggest(concealed, exposures)
    assert {key(s.line): s.missing for s in ranked} == expected
    for s in ranked[:3]:
        if s.missing is None:
            continue
        assert s.missing == sum(m.count for m in s.need)
        target = Counter(t for g in s.target for t in g)
        for e in exposures:
            target -= Counter({e[0] if e[0] != "J" else next(t for t in e if t != "J"): len(e)})
        have = Counter(concealed)
        kept = [t for t in target for _ in range(min(have[t], target[t]))]
        added = [m.tile for m in s.need for _ in range(m.count)]
        jokers = ["J"] * (sum(target.values()) - len(kept) - len(added))
        assert 0 <= len(jokers) <= have["J"]
        verdict = CARD.verify(kept + added + jokers, exposures)
        assert key(s.line) in found(verdict) or "a set has only" in (verdict.reason or ""), (s.line.text, added)
