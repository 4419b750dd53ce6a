"""Seeded, plausible, fully legal American games as event streams (for synthetic videos, demos and tests).

A game is simulated with real tiles: a shuffled 152-tile set is dealt, the Charleston passes real tiles, every
pick takes a real tile from the wall and every discard comes out of a real hand. To make each game *tell a
story* (a claim, exposures, a joker exchange, a Mah Jongg that verifies on the card) the winner is given a target
hand (a concrete variation of an exposed line of the card) and a few planned tiles are placed in other hands at
the deal: one to be thrown and claimed by the winner for an exposure, a pung-with-joker that another player
exposes and the winner later redeems, and sometimes the winning tile itself. Everything else is random.
Each stream is run through a :class:`Referee` while it is generated, so it is guaranteed to be accepted.

    game = scripted_game(card, profile, seed=7)
    game.events        # list of events (deal, Charleston, picks, discards, claims, ..., Mah Jongg or wall game)
    game.hands[i]      # the true concealed tiles of every seat after event i (ground truth for rendering)
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.referee import events as ev
from engine.referee.profile import ScoringProfile
from engine.referee.referee import Referee
from engine.referee.rulings import Ruling
from engine.referee.state import CHARLESTON_STEPS
from engine.tiles import INDEX, JOKER, SET_COUNTS, TILES

if TYPE_CHECKING:
    from engine.card import Card

_OFFSET = {"right": 1, "across": 2, "left": 3}


@dataclass
class ScriptedGame:
    """A generated game: the events, the rulings the referee gave, and the true hands after every event."""

    seed: int
    events: list[ev.Event] = field(default_factory=list)
    rulings: list[list[Ruling]] = field(default_factory=list)
    hands: list[list[list[str]]] = field(default_factory=list)
    winner: int | None = None
    target: list[list[str]] = field(default_factory=list)  # the winner's planned hand, in card groups

    @property
    def outcome(self) -> str:
        return "mahjong" if self.winner is not None else "wall_game"


class _Table:
    """The true tiles plus the referee, advanced one event at a time."""

    def __init__(self, card: Card, profile: ScoringProfile, players: int, seed: int, rng: random.Random) -> None:
        self.ref = Referee(card, profile, players)
        self.rng = rng
        self.n = players
        self.t = 0.0
        self.hands: list[list[str]] = [[] for _ in range(players)]
        self.wall: list[str] = []
        self.game = ScriptedGame(seed)

    def tick(self, lo: float = 0.6, hi: float = 3.0) -> float:
        self.t = round(self.t + self.rng.uniform(lo, hi), 2)
        return self.t

    def emit(self, event: ev.Event) -> list[Ruling]:
        rulings = self.ref.apply(event)
        bad = [r for r in rulings if r.kind in ("rejected", "dead_hand", "mahjong_in_error")]
        if bad:
            raise _Stuck(f"scripted event refused: {bad[0].data}")
        self.game.events.append(event)
        self.game.rulings.append(rulings)
        self.game.hands.append([sorted(h, key=INDEX.__getitem__) for h in self.hands])
        return rulings


def _target(card: Card, rng: random.Random) -> tuple[list[list[str]], int, int]:
    """A concrete winning hand on an exposed line with a pung-or-larger group: (groups, exposure group, joker group)."""
    lines = [ln for ln in card.lines if not ln.concealed and not ln.singles_and_pairs]
    while True:
        line = rng.choice(lines)
        variation = rng.choice(card.variations(line))
        groups = [list(g.tiles) for g in variation.groups]
        eligible = [i for i, g in enumerate(variation.groups) if g.joker_ok and g.tiles[0] != "F"]
        eligible = eligible or [i for i, g in enumerate(variation.groups) if g.joker_ok]
        if len(eligible) >= 2:
            expose, joker = rng.sample(eligible, 2)
            groups[joker][0] = JOKER  # one joker in the hand, obtained by a joker exchange
            return groups, expose, joker


def scripted_game(card: Card, profile: ScoringProfile, seed: int = 0, players: int = 4,
                  outcome: str | None = None) -> ScriptedGame:
    """Generate one game. ``outcome``: "mahjong", "wall_game" or None (seeded choice, mostly Mah Jongg)."""
    for attempt in range(50):
        rng = random.Random(seed * 1000 + attempt)
        want = outcome or ("wall_game" if rng.random() < 0.15 else "mahjong")
        try:
            return _play(card, profile, seed, players, want, rng)
        except _Stuck:
            continue
    raise RuntimeError(f"no legal game found for seed {seed}")


class _Stuck(Exception):
    """The random plan ran into a corner (e.g. a planned tile was not available); try the next attempt."""


def _take(pool: list[str], tile: str) -> str:
    if tile not in pool:
        raise _Stuck(tile)
    pool.remove(tile)
    return tile


def _play(card: Card, profile: ScoringProfile, seed: int, players: int, want: str,
          rng: random.Random) -> ScriptedGame:
    tb = _Table(card, profile, players, seed, rng)
    pool = [code for code in TILES for _ in range(SET_COUNTS[code])]
    rng.shuffle(pool)
    east = 0
    winner = rng.randrange(players) if want == "mahjong" else None
    keep: list[Counter] = [Counter() for _ in range(players)]  # tiles a seat must not pass or throw (yet)
    plan: dict[str, object] = {}
    others = [s for s in range(players) if s != winner]
    if winner is not None:
        groups, expose_i, joker_i = _target(card, rng)
        tb.game.target = groups
        target = [x for g in groups for x in g]
        for x in target:
            _take(pool, x)
        exposed_tile = groups[expose_i][-1]
        # The redeemable pung: another seat X exposes T T J; the winner holds the fourth T to swap for the J.
        candidates = [c for c in TILES[:-2] if c not in target and pool.count(c) == 4
                      and card.lines_allowing([[c, c, JOKER]])]
        if not candidates:
            raise _Stuck("no redeemable tile")
        t_tile = rng.choice(candidates)
        x_seat, y_seat = rng.sample(others, 2) if len(others) >= 2 else (others[0], others[0])
        z_seat = rng.choice([s for s in others if s != x_seat] or others)
        hold = Counter(target)
        hold[JOKER] -= 1  # comes from the exchange
        hold[exposed_tile] -= 1  # comes from a claimed discard
        rest = hold - Counter(groups[expose_i][:-1])  # the exposure's other tiles stay in hand for the claim
        picks = rng.sample([x for x in rest.elements() if x != JOKER], k=min(3, sum(rest.values())))
        for x in picks:  # arrive later from the wall
            hold[x] -= 1
        final_by_discard = bool(picks) and rng.random() < 0.5  # else the last tile is self-picked
        final_seat = rng.choice(others) if final_by_discard else None
        winner_hand = list(hold.elements()) + [_take(pool, t_tile)]
        rigged = picks[:-1] if final_by_discard else picks
        plan.update(winner=winner, expose_group=groups[expose_i], exposed_tile=exposed_tile, t_tile=t_tile,
                    x=x_seat, y=y_seat, z=z_seat, picks=rigged, final=picks[-1] if final_by_discard else None,
                    final_seat=final_seat, stage="x_expose")
        tb.hands[winner] = winner_hand
        keep[winner] = Counter(hold) + Counter([t_tile])
        tb.hands[x_seat] += [_take(pool, t_tile), _take(pool, JOKER)]
        keep[x_seat] += Counter([t_tile, JOKER])
        tb.hands[y_seat].append(_take(pool, t_tile))
        keep[y_seat][t_tile] += 1
        tb.hands[z_seat].append(exposed_tile)
        keep[z_seat][exposed_tile] += 1
        if final_seat is not None:
            tb.hands[final_seat].append(picks[-1])
            keep[final_seat][picks[-1]] += 1
    for s in range(players):
        size = 14 if s == east else 13
        while len(tb.hands[s]) < size:
            tb.hands[s].append(pool.pop())
        if len(tb.hands[s]) > size:
            raise _Stuck("hand over-full")
    tb.wall = pool
    tb.emit(ev.Deal(tb.tick(), east))
    tb.emit(ev.Dice(tb.tick(0.3, 1), east, rng.randint(2, 12)))
    if players == 4:
        _charleston(tb, keep)
    return _turns(tb, keep, plan, east)


def _passable(tb: _Table, seat: int, keep: list[Counter], k: int) -> list[str]:
    spare = Counter(tb.hands[seat]) - keep[seat]
    spare[JOKER] = 0
    choices = list(spare.elements())
    if len(choices) < k:
        raise _Stuck("nothing to pass")
    return tb.rng.sample(choices, k)


def _charleston(tb: _Table, keep: list[Counter]) -> None:
    rng = tb.rng
    stop_after_first = rng.random() < 0.3
    for step, direction in enumerate(CHARLESTON_STEPS):
        if step == 3 and stop_after_first:
            tb.emit(ev.CharlestonStop(tb.tick(), rng.randrange(4)))
            break
        dest = {s: (s + _OFFSET[direction]) % 4 for s in range(4)}
        own = {s: _passable(tb, s, keep, 3) for s in range(4)}
        blind_seat = rng.randrange(4) if step in (2, 5) and rng.random() < 0.4 else None
        blind = rng.randint(1, 3) if blind_seat is not None else 0
        passed = {s: list(own[s]) for s in range(4)}
        moves = [(s, x, dest[s]) for s in range(4) for x in own[s]]
        if blind_seat is not None:
            # The blind seat forwards, unseen, some of the tiles coming to her this very pass.
            source = next(s for s in range(4) if dest[s] == blind_seat)
            forwarded = own[source][:blind]
            own[blind_seat] = own[blind_seat][blind:]
            passed[blind_seat] = own[blind_seat] + forwarded
            moves = [(s, x, dest[blind_seat] if s == source and i < blind else dest[s])
                     for s in range(4) for i, x in enumerate(own[s])]
        for s, x, _ in moves:
            tb.hands[s].remove(x)
        for _, x, to in moves:
            tb.hands[to].append(x)
        for s in rng.sample(range(4), 4):
            tb.emit(ev.CharlestonPass(tb.tick(0.3, 1.2), s, direction, 3, blind if s == blind_seat else 0,
                                      tuple(passed[s])))
    offers = {s: rng.randint(0, 3) for s in range(4)}
    for a in (0, 1):
        b = a + 2
        k = min(offers[a], offers[b])
        ga, gb = _passable(tb, a, keep, k), _passable(tb, b, keep, k)
        for x in ga:
            tb.hands[a].remove(x)
        for x in gb:
            tb.hands[b].remove(x)
        tb.hands[a] += gb
        tb.hands[b] += ga
        tb.emit(ev.CourtesyPass(tb.tick(0.3, 1), a, offers[a]))
        tb.emit(ev.CourtesyPass(tb.tick(0.3, 1), b, offers[b]))


def _turns(tb: _Table, keep: list[Counter], plan: dict, east: int) -> ScriptedGame:
    rng, ref = tb.rng, tb.ref
    winner = plan.get("winner")
    seat = east
    holding = True  # East starts with 14
    claimed_by: int | None = None
    for _ in range(400):
        if not holding:
            if not tb.wall and not plan.get("picks"):
                tb.emit(ev.WallExhausted(tb.tick()))
                return tb.game
            tile = _draw(tb, seat, plan, keep)
            tb.hands[seat].append(tile)
            tb.emit(ev.Pick(tb.tick(), seat, "normal", tile))
            if seat == winner and _complete(tb, seat):
                return _declare(tb, seat, True)
            if rng.random() < 0.8:
                tb.emit(ev.Rack(tb.tick(0.3, 1.5), seat))
        holding = False
        if seat == winner and plan.get("stage") == "exchange":
            owner = plan["x"]
            idx = next(i for i, e in enumerate(ref.seats[owner].exposures) if JOKER in e)
            tb.emit(ev.JokerExchangeAnnounced(tb.tick(0.3, 1), seat))
            tb.hands[seat].remove(plan["t_tile"])
            tb.hands[seat].append(JOKER)
            keep[seat] = keep[seat] - Counter([plan["t_tile"]]) + Counter([JOKER])
            tb.emit(ev.JokerExchange(tb.tick(0.5, 2), seat, owner, idx, plan["t_tile"]))
            plan["stage"] = "finish"
            if _complete(tb, seat):
                return _declare(tb, seat, True)
        tile = _choose_discard(tb, seat, keep, plan)
        tb.hands[seat].remove(tile)
        tb.emit(ev.Discard(tb.tick(), seat, tile, named=tile, touching=True))
        claimed_by = _maybe_claim(tb, seat, tile, keep, plan)
        if claimed_by == -1:
            return tb.game
        if claimed_by is not None:
            seat, holding = claimed_by, True
            continue
        seat = ref.turn
    raise _Stuck("game too long")


def _draw(tb: _Table, seat: int, plan: dict, keep: list[Counter]) -> str:
    """The next wall tile. The winner's planned tiles were set aside at the deal (the wall order is unseen) and
    come up in some of her picks; everyone else draws from the shuffled rest, and the set-aside tiles last."""
    picks = plan.get("picks") or []
    if seat == plan.get("winner") and picks and plan.get("stage") == "finish" and tb.rng.random() < 0.6:
        keep[seat][picks[-1]] += 1
        return picks.pop()
    if tb.wall:
        return tb.wall.pop()
    return picks.pop()


def _complete(tb: _Table, seat: int) -> bool:
    target = Counter(x for g in tb.game.target for x in g)
    have = Counter(tb.hands[seat]) + Counter(x for e in tb.ref.seats[seat].exposures for x in e)
    return have == target


def _declare(tb: _Table, seat: int, self_picked: bool) -> ScriptedGame:
    shown = tuple(tb.hands[seat]) + tuple(x for e in tb.ref.seats[seat].exposures for x in e)
    rulings = tb.emit(ev.MahjongDeclared(tb.tick(1, 3), seat, shown, self_picked))
    if not any(r.kind == "mahjong_verified" for r in rulings):
        raise _Stuck("declared hand did not verify")
    tb.game.winner = seat
    return tb.game


def _choose_discard(tb: _Table, seat: int, keep: list[Counter], plan: dict) -> str:
    stage = plan.get("stage")
    if stage == "x_expose" and seat == plan["y"] and plan["t_tile"] in tb.hands[seat]:
        return plan["t_tile"]
    if stage == "w_expose" and seat == plan["z"] and plan["exposed_tile"] in tb.hands[seat]:
        return plan["exposed_tile"]
    if stage == "finish" and seat == plan.get("final_seat") and not plan["picks"]:
        return plan["final"]
    spare = list((Counter(tb.hands[seat]) - keep[seat]).elements())
    naturals = [x for x in spare if x != JOKER]
    if seat == plan.get("winner") and JOKER in spare:
        return JOKER  # a joker her line has no room for: throwing it is legal (and safe)
    return tb.rng.choice(naturals or spare or tb.hands[seat])


def _maybe_claim(tb: _Table, discarder: int, tile: str, keep: list[Counter], plan: dict) -> int | None:
    """Planned claims: X takes T for T T J, the winner takes her exposure tile, or the winning tile."""
    rng = tb.rng
    stage = plan.get("stage")
    claimant, purpose = None, None
    if stage == "x_expose" and discarder == plan["y"] and tile == plan["t_tile"]:
        claimant, purpose = plan["x"], "exposure"
    elif stage == "w_expose" and discarder == plan["z"] and tile == plan["exposed_tile"]:
        claimant, purpose = plan["winner"], "exposure"
    elif stage == "finish" and tile == plan.get("final") and discarder == plan.get("final_seat"):
        claimant, purpose = plan["winner"], "mahjong"
    if claimant is None:
        return None
    nxt = tb.ref.turn
    if rng.random() < 0.35 and nxt != claimant and tb.wall:
        # The next player already picked: the call still wins and her tile goes back to the wall.
        tile_back = tb.wall[-1]
        tb.hands[nxt].append(tile_back)
        tb.emit(ev.Pick(tb.tick(0.3, 1), nxt, "normal", tile_back))
        tb.hands[nxt].remove(tile_back)
    tb.emit(ev.Claim(tb.tick(0.2, 0.8), claimant, purpose))
    tb.hands[claimant].append(tile)
    if purpose == "mahjong":
        _declare(tb, claimant, False)
        return -1
    if claimant == plan.get("winner"):
        shown = list(plan["expose_group"])
        for x in shown:
            tb.hands[claimant].remove(x)
        keep[claimant] = keep[claimant] - Counter(shown)
        tb.emit(ev.Exposure(tb.tick(0.5, 2), claimant, tuple(shown)))
        plan["stage"] = "exchange"
    else:
        t_tile = plan["t_tile"]
        shown = [t_tile, t_tile, JOKER]
        rng.shuffle(shown)
        for x in shown:
            tb.hands[claimant].remove(x)
        keep[claimant] -= Counter([t_tile, JOKER])
        tb.emit(ev.Exposure(tb.tick(0.5, 2), claimant, tuple(shown)))
        plan["stage"] = "w_expose"
    return claimant
