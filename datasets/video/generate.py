"""One call from a seed to a recording on disk: the game script, the world playing it, the renderer."""

from __future__ import annotations

from pathlib import Path

from datasets.video.render import Look, write_recording
from datasets.video.script import moves_from_referee, own_moves, referee_game
from datasets.video.world import World


def make_world(seed: int, turns: int = 6, disturb: bool | tuple[str, ...] = True, fps: float = 30.0,
               own: bool = False,
               part: str | None = None) -> World:
    """The game for ``seed``: a stretch of ``turns`` discards of a game the referee's seeded legal player played
    (odd seeds: its end with the Mah Jongg; even seeds: around its last call and joker exchange; see
    script.moves_from_referee), or with ``own`` the small own script (it has calls made after a pick)."""
    if own:
        deal = own_moves(seed, turns=turns)
    else:
        deal = moves_from_referee(referee_game(seed), turns, seed, part=part or ("end" if seed % 2 else "claim"))
    return World(deal, seed, fps=fps, disturb=disturb)


def generate_game(out: Path, seed: int, turns: int = 6, size: tuple[int, int] = (640, 360),
                  disturb: bool | tuple[str, ...] = True, progress: bool = True, own: bool = False,
                  part: str | None = None) -> dict:
    world = make_world(seed, turns, disturb, own=own, part=part)
    return write_recording(world, Look.random(seed, *size), out, progress=progress)
