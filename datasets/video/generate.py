"""One call from a seed to a recording on disk: the game script, the world playing it, the renderer."""

from __future__ import annotations

from pathlib import Path

from datasets.video.render import Look, write_recording
from datasets.video.script import own_moves
from datasets.video.world import World


def make_world(seed: int, turns: int = 6, disturb: bool = True, fps: float = 30.0) -> World:
    """The game for ``seed``: the referee's seeded legal player when available, else the own script."""
    return World(own_moves(seed, turns=turns), seed, fps=fps, disturb=disturb)


def generate_game(out: Path, seed: int, turns: int = 6, size: tuple[int, int] = (640, 360), disturb: bool = True,
                  progress: bool = True) -> dict:
    world = make_world(seed, turns, disturb)
    return write_recording(world, Look.random(seed, *size), out, progress=progress)
