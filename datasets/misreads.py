"""Tile readings wrong on purpose, to measure what misreads cost at a table: the camera alone must never
penalise anyone (engine/referee/doubt.py), however badly it reads.

* :class:`Misreader` decides, deterministically per tile and seed, which faces are read wrong and as what.
* :class:`MisreadingDetector` wraps a detector (the recordings' true boxes, vision.oracle) so that a tile lying
  still is misread in every frame, as a model that confuses it would: the table reader's votes over frames do not
  wash it out.
* :func:`camera_view` is a referee game (engine.referee.scripted) as the table reader reports it: no sounds
  (claims are not seen), the deal and Charleston unseen (face down), each tile face read through a Misreader.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from engine.referee import events as rev
from engine.tiles import TILES
from vision import events as ve


class Misreader:
    """Reads a tile face wrong with probability ``rate`` (0..1), as another tile chosen at random; the same
    ``key`` always gets the same reading, so a replay misreads alike."""

    def __init__(self, rate: float, seed: int = 0) -> None:
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"misread rate must be 0..1, got {rate}")
        self.rate, self.seed = rate, seed
        self.faces = self.misread = 0

    def __call__(self, tile: str, key: Any) -> str:
        rng = random.Random(f"{self.seed}:{key}:{tile}")
        self.faces += 1
        if rng.random() >= self.rate:
            return tile
        self.misread += 1
        return rng.choice([x for x in TILES if x != tile])


class MisreadingDetector:
    """A detector whose face-up readings go through a Misreader, keyed by where the tile lies (16 px cells of
    the frame), with full confidence: the worst kind of misread, one the reader cannot doubt."""

    def __init__(self, detector: Any, misreader: Misreader) -> None:
        self.detector, self.misreader = detector, misreader

    def __getattr__(self, name: str) -> Any:
        return getattr(self.detector, name)

    def detect_at(self, frame_index: int, rect: tuple[int, int, int, int]) -> list[Any]:
        out = []
        for d in self.detector.detect_at(frame_index, rect):
            if d.tile is not None:
                cell = (round((rect[0] + d.box[0] + d.box[2]) / 32), round((rect[1] + d.box[1] + d.box[3]) / 32))
                d = replace(d, tile=self.misreader(d.tile, cell))
            out.append(d)
        return out


def camera_view(events: Sequence[rev.Event], misread: Misreader | None = None) -> Iterator[ve.Observation]:
    """The observations a table reader makes of ``events`` (one per seen move, frame = event number)."""

    def read(tile: str, i: int, k: int = 0) -> str:
        return tile if misread is None else misread(tile, (i, k))

    play = False
    for i, e in enumerate(events):
        kw = {"t": e.t, "frame": i, "confidence": 0.95}
        if isinstance(e, rev.Discard):
            play = True
            yield ve.DiscardDown(**kw, seat=e.seat, tile=read(e.tile, i))
        elif not play:
            continue  # deal and Charleston: face down, not seen
        elif isinstance(e, rev.Pick):
            yield ve.Picked(**kw, seat=e.seat, wall_seat=e.seat)
        elif isinstance(e, rev.Rack):
            yield ve.Racked(**kw, seat=e.seat)
        elif isinstance(e, rev.Exposure):
            yield ve.ExposurePlaced(**kw, seat=e.seat, tiles=tuple(read(x, i, k) for k, x in enumerate(e.tiles)))
        elif isinstance(e, rev.JokerExchange):
            yield ve.JokerExchanged(**kw, seat=e.seat, exposure_seat=e.from_seat, exposure_index=e.exposure_index,
                                    tile=read(e.tile, i))
        elif isinstance(e, rev.MahjongDeclared):
            yield ve.HandDisplayed(**kw, seat=e.seat, tiles=tuple(read(x, i, k) for k, x in enumerate(e.tiles)))
