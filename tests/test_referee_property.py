"""Property tests: any event stream, however wrong, gets rulings or clear rejections and never crashes the referee.

Two generators: arbitrary events (wrong seats, unknown tiles, impossible moments, bad values) and real scripted
games with events dropped, repeated, swapped or re-seated. Invariants: no exception, only known ruling kinds, no
"internal error", a rejected event changes nothing, tile counts and the wall never go negative.
"""

from collections import Counter
from functools import cache

from card_bruteforce import matching_lines
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referee_kit import Table, card, profile

from engine.referee import Referee, events
from engine.referee.rulings import KINDS
from engine.referee.scripted import scripted_game
from engine.tiles import TILES

seats = st.integers(-1, 4)
tiles = st.sampled_from(TILES + ("ZZ", "0", ""))
tile_lists = st.lists(tiles, max_size=7).map(tuple)
times = st.floats(0, 500, allow_nan=False)

any_event = st.one_of(
    st.builds(events.Deal, times, st.one_of(st.none(), seats)),
    st.builds(events.Dice, times, seats, st.integers(0, 14)),
    st.builds(events.CharlestonPass, times, seats, st.sampled_from(["right", "across", "left", "up"]),
              st.integers(0, 4), st.integers(-1, 4), tile_lists),
    st.builds(events.CourtesyPass, times, seats, st.integers(-1, 4), tile_lists),
    st.builds(events.CharlestonStop, times, seats),
    st.builds(events.Pick, times, seats, st.sampled_from(["normal", "wrong_end", "wrong_wall", "up"]),
              st.one_of(st.none(), tiles)),
    st.builds(events.Rack, times, seats),
    st.builds(events.Discard, times, seats, tiles, st.one_of(st.none(), tiles), st.booleans()),
    st.builds(events.Claim, times, seats, st.sampled_from(["mahjong", "exposure", "pung"])),
    st.builds(events.Exposure, times, seats, tile_lists),
    st.builds(events.JokerExchangeAnnounced, times, seats),
    st.builds(events.JokerExchange, times, seats, seats, st.integers(-1, 3), tiles),
    st.builds(events.MahjongDeclared, times, seats, st.lists(tiles, min_size=10, max_size=15).map(tuple),
              st.booleans()),
    st.builds(events.DeadChallenge, times, seats, seats, st.one_of(st.none(), st.booleans())),
    st.builds(events.TileCount, times, seats, st.integers(-1, 16)),
    st.builds(events.ThrowIn, times, seats),
    st.builds(events.AttemptedHand, times, seats, st.integers(-5, 100)),
    st.builds(events.Penalty, times, seats, st.sampled_from(["blind_pass_peek", "talking", "__class__"])),
    st.builds(events.WallExhausted, times),
    st.builds(events.WallDestroyed, times, seats),
    st.builds(events.TimeCalled, times),
    st.builds(events.SeatChange, times, seats, seats),
    st.builds(events.Correction, times, st.sampled_from(["undo", "fix", "redo"]), st.one_of(st.none(), seats),
              st.one_of(st.none(), st.just({"type": "rack", "t": 1.0, "seat": 1}), st.just({"type": "x"}))),
)


def _check(ref: Referee, event) -> None:
    before = ref.snapshot()
    rulings = ref.apply(event)
    for r in rulings:
        assert r.kind in KINDS, r.kind
        assert "internal error" not in str(r.data.get("reason", "")), r.data
    if any(r.kind == "rejected" for r in rulings):
        assert len(rulings) == 1 and ref.snapshot() == before
    for seat in ref.seats:
        assert seat.concealed >= 0
    assert ref.wall >= 0


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["nmjl", "mahjcon"]), st.sampled_from([3, 4]), st.lists(any_event, max_size=40))
def test_arbitrary_event_streams_never_crash(profile_name, players, stream):
    ref = Referee(card(), profile(profile_name), players)
    ref.apply(events.Deal(0.0))
    for event in stream:
        _check(ref, event)


@cache
def _game(seed: int) -> tuple:
    return tuple(scripted_game(card(), profile("nmjl"), seed=seed, outcome="mahjong").events)


mutation = st.tuples(st.sampled_from(["drop", "repeat", "swap", "reseat"]), st.integers(0, 10**6), seats)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 5), st.lists(mutation, max_size=6))
def test_perturbed_real_games_never_crash(seed, mutations):
    stream = list(_game(seed))
    for kind, where, seat in mutations:
        i = where % len(stream)
        if kind == "drop":
            del stream[i]
        elif kind == "repeat":
            stream.insert(i, stream[i])
        elif kind == "swap" and i + 1 < len(stream):
            stream[i], stream[i + 1] = stream[i + 1], stream[i]
        elif kind == "reseat" and hasattr(stream[i], "seat"):
            d = events.to_json(stream[i]) | {"seat": seat}
            stream[i] = events.from_json(d)
    ref = Referee(card(), profile("nmjl"))
    for event in stream:
        _check(ref, event)


def test_unperturbed_scripted_games_are_accepted_whole():
    for seed in range(6):
        ref = Referee(card(), profile("nmjl"))
        rulings = [r for e in _game(seed) for r in ref.apply(e)]
        assert not [r for r in rulings if r.kind == "rejected"]
        assert [r.kind for r in rulings].count("mahjong_verified") == 1


def test_scripted_wins_are_ruled_as_the_brute_force_matcher_reads_the_hand():
    """The referee (its split of the shown hand into exposures and concealed tiles, then the compiled card)
    and the plain brute-force matcher of the card tests must agree on which lines a declared hand completes."""
    for seed in range(6):
        ref = Referee(card(), profile("nmjl"))
        for event in _game(seed):
            if isinstance(event, events.MahjongDeclared):
                exposures = [list(x) for x in ref.seats[event.seat].exposures]
                concealed = list((Counter(event.tiles) - Counter(t for x in exposures for t in x)).elements())
                if len(concealed) + sum(map(len, exposures)) != 14:
                    concealed = list(event.tiles)  # the event showed the concealed part only
                verified = next(r for r in ref.apply(event) if r.kind == "mahjong_verified")
                found = {(ln["section"], ln["line"]) for ln in verified.data["lines"]}
                assert found == matching_lines(card(), concealed, exposures), seed
            else:
                ref.apply(event)


few_seats = st.integers(0, 3)
few_tiles = st.sampled_from(["5D", "8B", "J"])
called_sets = st.one_of(st.lists(few_tiles, min_size=2, max_size=4),
                        st.sampled_from([["8B"] * 3, ["8B", "8B", "J"], ["8B", "8B", "5D"], ["5D"] * 3])).map(tuple)
misnamed_play = st.one_of(
    st.builds(lambda *a: [events.Discard(*a)], times, few_seats, few_tiles, few_tiles, st.just(True)),
    st.builds(lambda *a: [events.Pick(*a)], times, few_seats, st.sampled_from(["normal", "wrong_end"])),
    st.builds(lambda *a: [events.Rack(*a)], times, few_seats),
    st.builds(lambda *a: [events.Claim(*a)], times, few_seats, st.sampled_from(["mahjong", "exposure"])),
    st.builds(lambda t, seat, tiles: [events.Claim(t, seat, "exposure"), events.Exposure(t, seat, tiles)],
              times, few_seats, called_sets),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(misnamed_play, max_size=25))
def test_misnamed_and_out_of_turn_discards_never_crash_and_keep_every_tile(stream):
    """Streams dense in misnamed discards, calls, exposures of the named tile and out-of-turn picks and discards
    (the paths that withdraw a call or let a dead player's discard be won on): no tile appears or vanishes."""
    table = Table()
    table.start()
    table("discard", seat=0, tile="5D", named="8B")
    ref = table.ref
    for event in (x for step in stream for x in step):
        _check(ref, event)
        if ref.stage.value == "play":
            held = sum(s.total for s in ref.seats) + sum(len(s.discards) for s in ref.seats)
            assert held + ref.wall == 152
