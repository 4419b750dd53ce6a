"""A light tile tracker in table coordinates: which tile of this reading is which tile of the last one.

Tiles on a table barely move between readings (the reader only reads a region once it is still), so matching
by centroid distance in millimetres is enough; boxes are not needed. Two matchers are offered: ``greedy``
(closest pairs first, O(n^2 log n), pure numpy) and ``hungarian`` (optimal, scipy's linear_sum_assignment).
bench/bench_table.py measures both on dense, jittered layouts; the reader uses the one chosen there (see
docs/vision.md for the figures).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

#: How many kinds a face-up tile's ``alts`` name, likeliest first: the choices a person is offered when unsure.
ALTS = 3


@dataclass
class TileSeen:
    """One tile in one reading: position on the table (mm), face, code (face-up only) and the model's scores."""

    x: float
    y: float
    face: str
    tile: str | None = None
    score: float = 1.0
    tile_score: float | None = None
    agree: float = 1.0          # share of the stable readings that named this code
    alts: tuple[str, ...] = ()  # what it may be, most likely first (the readings' codes, the classifier's ranking)

    @property
    def key(self) -> tuple[str, str | None]:
        return self.face, self.tile


@dataclass
class Track:
    """A committed tile: where it is, what it is, how sure we are of the code and what else it might be."""

    id: int
    x: float
    y: float
    face: str
    tile: str | None
    confidence: float = 1.0     # of the code: agreement between readings x the classifier's score
    alts: tuple[str, ...] = ()
    was_confidence: float = 1.0  # the confidence of the code it had before its last recode

    @property
    def key(self) -> tuple[str, str | None]:
        return self.face, self.tile

    def update(self, seen: TileSeen) -> None:
        self.x, self.y = seen.x, seen.y
        self.face, self.tile, self.alts = seen.face, seen.tile, seen.alts
        self.confidence = seen.agree * (seen.tile_score if seen.tile_score is not None else seen.score)


def _dist(a: Sequence, b: Sequence) -> np.ndarray:
    pa = np.array([[t.x, t.y] for t in a], dtype=np.float64).reshape(-1, 2)
    pb = np.array([[t.x, t.y] for t in b], dtype=np.float64).reshape(-1, 2)
    return np.linalg.norm(pa[:, None, :] - pb[None, :, :], axis=2)


def match(a: Sequence, b: Sequence, max_dist: float, method: str = "greedy") -> list[tuple[int, int]]:
    """Pairs ``(i, j)`` of items of ``a`` and ``b`` (anything with ``x``, ``y``) closer than ``max_dist`` mm."""
    if not a or not b:
        return []
    d = _dist(a, b)
    if method == "hungarian":
        from scipy.optimize import linear_sum_assignment

        big = max_dist * 10 + 1.0
        rows, cols = linear_sum_assignment(np.where(d <= max_dist, d, big))
        return [(int(i), int(j)) for i, j in zip(rows, cols, strict=True) if d[i, j] <= max_dist]
    if method != "greedy":
        raise ValueError(f"unknown matcher {method!r}")
    order = np.argsort(d, axis=None)
    used_a: set[int] = set()
    used_b: set[int] = set()
    pairs = []
    for flat in order:
        i, j = divmod(int(flat), d.shape[1])
        if d[i, j] > max_dist:
            break
        if i in used_a or j in used_b:
            continue
        used_a.add(i)
        used_b.add(j)
        pairs.append((i, j))
    return pairs


def same_reading(a: Sequence, b: Sequence, max_dist: float, method: str = "greedy", codes: bool = True) -> bool:
    """Two readings agree: every tile matched one-to-one within ``max_dist`` with the same face (and code, if
    ``codes``). The reader asks for positions and faces only and votes on codes (:func:`vote`): one tile whose
    code flickers between two frames must not keep a whole region from ever settling."""
    def k(t) -> tuple:
        return t.key if codes else (t.face,)

    if len(a) != len(b) or Counter(k(t) for t in a) != Counter(k(t) for t in b):
        return False
    pairs = match(a, b, max_dist, method)
    return len(pairs) == len(a) and all(k(a[i]) == k(b[j]) for i, j in pairs)


def vote(readings: Sequence[Sequence[TileSeen]], max_dist: float, method: str = "greedy") -> list[TileSeen]:
    """The last reading with each face-up tile's code decided by a score-weighted vote over all the readings
    (matched by position); ``agree`` = the share of readings that named the winning code."""
    last = readings[-1]
    partners = [(other, {j: i for i, j in match(other, last, max_dist, method)}) for other in readings[:-1]]
    out = []
    for j, seen in enumerate(last):
        if seen.face != "up":
            out.append(seen)
            continue
        named: dict[str | None, list[float]] = {seen.tile: [seen.tile_score or seen.score]}
        for other, of_last in partners:
            if j in of_last:
                t = other[of_last[j]]
                named.setdefault(t.tile, []).append(t.tile_score or t.score)
        ranked = sorted(named, key=lambda c: sum(named[c]), reverse=True)
        code = ranked[0]
        scores = named[code]
        # What else it may be: the codes other readings named, then the classifier's own runners-up.
        alts = tuple(dict.fromkeys(c for c in [*ranked, *seen.alts] if c))[:ALTS]
        out.append(TileSeen(seen.x, seen.y, seen.face, code, seen.score, sum(scores) / len(scores),
                            len(scores) / len(readings), alts))
    return out


@dataclass
class Diff:
    """What a committed reading changed: new tiles, tiles gone, tiles whose code changed (old code, track)."""

    added: list[Track] = field(default_factory=list)
    removed: list[Track] = field(default_factory=list)
    recoded: list[tuple[str | None, Track]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.recoded)


class RegionTracks:
    """The committed tiles of one region. ``commit`` merges a stable reading and returns what changed."""

    def __init__(self, max_dist: float, method: str = "greedy") -> None:
        self.tracks: list[Track] = []
        self.max_dist = max_dist
        self.method = method
        self._next_id = 0

    def commit(self, reading: Sequence[TileSeen]) -> Diff:
        """Merge a stable reading. A tile whose code changed counts as recoded only when every reading agreed
        on the new code (``TileSeen.agree``): a Joker exchanged or a tile covered by another is certain; a
        classifier wavering between two codes is not news."""
        pairs = match(self.tracks, reading, self.max_dist, self.method)
        diff = Diff()
        matched_t = {i for i, _ in pairs}
        matched_r = {j for _, j in pairs}
        for i, j in pairs:
            tr, seen = self.tracks[i], reading[j]
            if seen.face == tr.face and seen.tile != tr.tile and seen.agree < 1.0:
                tr.x, tr.y = seen.x, seen.y          # not sure of the new code: keep the old one
                continue
            old, was = tr.key, tr.confidence
            tr.update(seen)
            if tr.key != old:
                tr.was_confidence = was
                diff.recoded.append((old[1], tr))
        diff.removed = [t for i, t in enumerate(self.tracks) if i not in matched_t]
        kept = [t for i, t in enumerate(self.tracks) if i in matched_t]
        for j, seen in enumerate(reading):
            if j in matched_r:
                continue
            tr = Track(self._next_id, seen.x, seen.y, seen.face, seen.tile)
            tr.update(seen)
            self._next_id += 1
            kept.append(tr)
            diff.added.append(tr)
        self.tracks = kept
        return diff

    def count(self, face: str | None = None) -> int:
        return sum(1 for t in self.tracks if face is None or t.face == face)
