"""The game a ground-truth video shows: a seeded sequence of physical moves at the table.

A move is a dict shaped like the referee's events (``pick``, ``rack``, ``discard``, ``exposure``,
``joker_exchange``, ``mahjong_declared``) plus what only a video needs (``hold`` seconds, ``returned``).
``moves_from_referee`` takes the game the referee's seeded legal player produces (engine.referee.scripted): the
default. ``own_moves`` is a small self-contained script kept for what the referee's games do not contain: a call
made after the next player already picked (the pick goes back to the wall); it follows the physical flow of an
NMJL game but does not check hands against the card.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from engine.tiles import JOKER, SET_COUNTS, TILES


@dataclass
class Deal:
    """Starting position: each seat's concealed tiles (East 14) and the wall in picking order."""

    hands: list[list[str]]
    wall: list[str]
    moves: list[dict] = field(default_factory=list)
    exposures: list[list[list[str]]] = field(default_factory=lambda: [[] for _ in range(4)])
    floor: list[str] = field(default_factory=list)      # face-up discards already on the table
    source: dict = field(default_factory=dict)          # where the moves come from (referee seed, event range)


def full_set() -> list[str]:
    return [code for code in TILES for _ in range(SET_COUNTS[code])]


def own_moves(seed: int, turns: int = 12, wall_len: int = 64) -> Deal:
    """A short game of ``turns`` discards ending in East..North declaring Mah Jongg. Calls, a call made after
    the next player already picked, held picks and joker exchanges occur at seeded random."""
    rng = random.Random(seed)
    tiles = full_set()
    rng.shuffle(tiles)
    hands = [tiles[i * 13:(i + 1) * 13] for i in range(4)]
    wall = tiles[52:52 + wall_len]
    spare = tiles[52 + wall_len:]          # tiles off camera, used to "arrange" a call or an exchange
    hands[0].append(wall.pop(0))
    start_wall = list(wall)
    state = [list(h) for h in hands]
    exposures: list[list[list[str]]] = [[] for _ in range(4)]
    moves: list[dict] = []
    seat = 0
    for turn in range(turns):
        if turn > 0:
            moves.append({"type": "pick", "seat": seat, "hold": rng.choice([0.0, 0.0, 0.0, 0.5, 1.0])})
            state[seat].append(wall.pop(0))
            moves.append({"type": "rack", "seat": seat})
            if rng.random() < 0.25:
                _joker_exchange(rng, seat, state, exposures, spare, moves)
        tile = rng.choice([t for t in state[seat] if t != JOKER] or state[seat])
        state[seat].remove(tile)
        moves.append({"type": "discard", "seat": seat, "tile": tile})
        nxt = (seat + 1) % 4
        if rng.random() < 0.3 and turn < turns - 1:
            caller = rng.choice([s for s in range(4) if s != seat])
            after_pick = caller != nxt and rng.random() < 0.5
            if after_pick:   # the next player already picked; the call wins and the tile goes back
                moves.append({"type": "pick", "seat": nxt, "hold": 0.6, "returned": True})
            size = rng.choice([3, 3, 4])
            group = [tile] + _take_matching(rng, state[caller], tile, size - 1, spare)
            exposures[caller].append(group)
            moves.append({"type": "exposure", "seat": caller, "tiles": list(group), "from_seat": seat,
                          "called_after_pick": after_pick})
            seat = caller
            extra = rng.choice([t for t in state[seat] if t != JOKER] or state[seat])
            state[seat].remove(extra)
            moves.append({"type": "discard", "seat": seat, "tile": extra})
            seat = (seat + 1) % 4
        else:
            seat = nxt
    moves.append({"type": "pick", "seat": seat, "hold": 0.0})
    state[seat].append(wall.pop(0))
    moves.append({"type": "rack", "seat": seat})
    shown = [t for g in exposures[seat] for t in g] + sorted(state[seat])
    moves.append({"type": "mahjong_declared", "seat": seat, "tiles": shown, "self_picked": True})
    return Deal(hands=hands, wall=start_wall, moves=moves)


def _take_matching(rng: random.Random, hand: list[str], tile: str, n: int, spare: list[str]) -> list[str]:
    """Take ``n`` tiles matching ``tile`` (or Jokers) from ``hand``; where the hand lacks them, swap tiles in
    from the off-camera spare pile first so the call is physically possible."""
    out = []
    for _ in range(n):
        pick = next((t for t in hand if t == tile), None)
        if pick is None and JOKER in hand and rng.random() < 0.6:
            pick = JOKER
        if pick is None:
            _arrange(rng, hand, tile, spare)
            pick = tile
        hand.remove(pick)
        out.append(pick)
    return out


def _arrange(rng: random.Random, hand: list[str], tile: str, spare: list[str]) -> None:
    """Swap a random non-Joker of ``hand`` for ``tile`` (taken from the spare pile when it has one), so a
    scripted call or exchange is possible; the swapped-out tile goes to the spare pile."""
    out = rng.choice([t for t in hand if t != JOKER] or hand)
    hand.remove(out)
    if tile in spare:
        spare.remove(tile)
    spare.append(out)
    hand.append(tile)


def _joker_exchange(rng: random.Random, seat: int, state: list[list[str]], exposures: list[list[list[str]]],
                    spare: list[str], moves: list[dict]) -> None:
    for owner in rng.sample(range(4), 4):
        for gi, group in enumerate(exposures[owner]):
            real = next((t for t in group if t != JOKER), None)
            if JOKER not in group or real is None:
                continue
            if real not in state[seat]:
                _arrange(rng, state[seat], real, spare)
            state[seat].remove(real)
            group[group.index(JOKER)] = real
            state[seat].append(JOKER)
            moves.append({"type": "joker_exchange", "seat": seat, "from_seat": owner, "exposure_index": gi,
                          "tile": real})
            moves.append({"type": "rack", "seat": seat, "joker": True})
            return


def referee_game(seed: int):
    """The referee's seeded legal game (engine.referee.scripted) on the sample card with NMJL scoring."""
    from importlib import resources

    import engine.profiles
    from engine.card import SAMPLE_CARD, load_card
    from engine.referee.profile import parse_profile
    from engine.referee.scripted import scripted_game

    text = (resources.files(engine.profiles) / "nmjl.toml").read_text(encoding="utf-8")
    return scripted_game(load_card(SAMPLE_CARD), parse_profile(text, "nmjl.toml"), seed=seed)


def moves_from_referee(game, turns: int = 6, seed: int = 0, wall_len: int = 52, part: str = "claim") -> Deal:
    """A stretch of a referee-played game as a ``Deal``. ``part="claim"``: from the discard before the game's
    last claim for an exposure (so the video shows a call, an exposure and usually the joker exchange that
    follows) for ``turns`` discards; ``part="end"``: the last ``turns`` discards and the Mah Jongg (or wall game);
    ``part="claim_to_end"``: from that claim to the end. Hands come from ``game.hands``; exposures and the
    discard floor are replayed from the events before the start; the wall holds the tiles still to be picked (in
    order) and face-down filler."""
    rng = random.Random(seed)
    events = game.events
    name = [type(e).__name__ for e in events]
    discards = [i for i, n in enumerate(name) if n == "Discard"]
    calls = [i for i, n in enumerate(name) if n == "Claim" and events[i].purpose == "exposure"]
    before = [d for d in discards if calls and d < calls[-1]]
    if part == "end" or not before:
        start = discards[max(0, len(discards) - turns)]
    else:
        start = before[-1]
    later = [d for d in discards if d >= start]
    stop = len(events) if part != "claim" or len(later) <= turns else later[turns]
    hands = [list(h) for h in game.hands[start - 1]]
    exposures: list[list[list[str]]] = [[] for _ in range(4)]
    floor: list[str] = []
    for e, n in zip(events[:start], name[:start], strict=True):
        if n == "Discard":
            floor.append(e.tile)
        elif n == "Exposure":
            exposures[e.seat].append(list(e.tiles))
            floor.pop()
        elif n == "JokerExchange":
            group = exposures[e.from_seat][e.exposure_index]
            group[group.index(JOKER)] = e.tile
    picks = [e.tile for e, n in zip(events[start:stop], name[start:stop], strict=True) if n == "Pick"]
    filler = full_set()
    rng.shuffle(filler)
    wall = picks + filler[:max(0, wall_len - len(picks))]
    moves: list[dict] = []
    for e, n in zip(events[start:stop], name[start:stop], strict=True):
        if n == "Pick":
            moves.append({"type": "pick", "seat": e.seat, "hold": rng.choice([0.0, 0.0, 0.0, 0.5, 1.0])})
        elif n == "Rack":
            moves.append({"type": "rack", "seat": e.seat})
        elif n == "Discard":
            moves.append({"type": "discard", "seat": e.seat, "tile": e.tile})
        elif n == "Exposure":
            moves.append({"type": "exposure", "seat": e.seat, "tiles": list(e.tiles)})
        elif n == "JokerExchange":
            moves.append({"type": "joker_exchange", "seat": e.seat, "from_seat": e.from_seat,
                          "exposure_index": e.exposure_index, "tile": e.tile})
            moves.append({"type": "rack", "seat": e.seat, "joker": True})
        elif n == "MahjongDeclared":
            moves.append({"type": "mahjong_declared", "seat": e.seat, "tiles": list(e.tiles),
                          "self_picked": e.self_picked})
    source = {"referee_seed": game.seed, "start_event": start, "stop_event": stop, "part": part,
              "outcome": game.outcome if stop == len(events) else "cut"}
    return Deal(hands=hands, wall=wall, moves=moves, exposures=exposures, floor=floor, source=source)
