"""The game a ground-truth video shows: a seeded sequence of physical moves at the table.

A move is a dict shaped like the referee's events (``pick``, ``rack``, ``discard``, ``exposure``,
``joker_exchange``, ``mahjong_declared``) plus what only a video needs (``hold`` seconds, ``called_after_pick``).
``moves_from_referee`` takes the game the referee's seeded legal player produces when it is available
(engine.referee.scripted); ``own_moves`` is a small self-contained script used otherwise: it follows the turn
order and the physical flow of an NMJL game (pick, rack, discard, calls with exposures from the rack, joker
exchanges, a Mah Jongg at the end) but does not check hands against the card, which the video does not need.
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
