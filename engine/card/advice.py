"""Advice for one player's own hand: what she can make, what to pass in the Charleston, is she Mah Jongg.

``advise`` answers, from her concealed tiles, her exposures, the card and what the table shows in public (tiles
on the floor, every exposure, dead tiles: ``seen``), the questions players ask all game:

* the nearest card lines with their value, each with the tiles still needed, how many of each are still live
  (the set's 4 of a kind, 8 Flowers, 8 Jokers, less what she holds and what is public), and where Jokers may
  stand (groups of three or more identical tiles only, never a single or a pair);
* which lines are dead (no longer have the tiles they need), and whether any line is still possible (after an
  exposure: is the hand still alive?);
* during the Charleston, which tiles to pass (``advise_pass``: never a Joker), and why;
* with 14 tiles, the verdict: Mah Jongg on which line, for how much (``Card.verify``);
* counts no real set can show (a misread photo, a typo): five of a kind, more than 14 tiles, too many Jokers.

The Charleston objective (``pass_key``), the same for every pass: keep the tiles that leave you nearest a line
(fewest tiles missing over every line still alive); among passes equally near, the one leaving the most lines at
that distance, then the most one tile further, then the highest-valued line at that distance. Passes equal on
all four are listed as equally good. The blind passes (first left, last right) and the courtesy pass let her give
fewer than three of her own tiles: she gives every tile she can spare without moving further from her nearest
line (at most three) and passes the rest of a blind pass on unseen. For the courtesy, the count is agreed with
the player across; ``courtesy=N`` asks for the best N, and without it the advice says how many she can spare.
Rules of the passes: NMJL, as summarised in docs/hand.md.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from engine.card.card import DEAD_DISTANCE, Card
from engine.card.model import CardLine
from engine.card.results import Suggestion, Verdict
from engine.tiles import INDEX, JOKER, SET_COUNTS, TILES, parse_tile, sort_key

#: The Charleston's passes in order. The first three are compulsory (the second left may be stopped before it
#: starts, then the second dance is skipped); the courtesy is optional, 0-3 tiles agreed with the player across.
PASSES: tuple[str, ...] = ("first-right", "first-across", "first-left", "second-left", "second-across",
                           "last-right", "courtesy")
#: Passes where tiles just received may be passed on unseen, so fewer than three of one's own may go.
BLIND_PASSES: frozenset[str] = frozenset({"first-left", "last-right"})
PASS_SIZE = 3
#: How many lines ``advise`` lists as nearest by default.
NEAREST_LINES = 5
#: A hand on a rack holds 13 tiles (14 for East before her first discard, or after a draw).
MOST_TILES = 14


@dataclass(frozen=True)
class LineAdvice:
    """One live line near the hand: the card's ``Suggestion`` (tiles missing, each with how many are still live
    as ``unseen``), plus the groups of its closest concrete hand where a Joker may stand, and how many of her
    Jokers it uses now."""

    suggestion: Suggestion
    joker_groups: tuple[tuple[str, ...], ...]
    jokers_used: int

    @property
    def line(self) -> CardLine:
        return self.suggestion.line

    def to_json(self) -> dict:
        return self.suggestion.to_json() | {"joker_groups": [list(g) for g in self.joker_groups],
                                            "jokers_used": self.jokers_used}


@dataclass(frozen=True)
class PassAdvice:
    """Which of her own tiles to pass (``tiles``, never a Joker) and how many to pass on ``blind``.

    ``distance_now``/``distance_after``: tiles missing from her nearest live line before and after the pass
    (None when no line is alive). ``keeps``: the nearest lines the kept tiles leave. ``alternatives``: other
    passes of the same size exactly as good. ``by_count`` (blind and courtesy passes): the best pass of each
    size 1-3, for when the player across agrees to fewer. ``key``: the objective the pass minimises
    (``pass_key``)."""

    which: str
    tiles: tuple[str, ...]
    blind: int
    reason: str
    distance_now: int | None
    distance_after: int | None
    keeps: tuple[CardLine, ...]
    alternatives: tuple[tuple[str, ...], ...] = ()
    by_count: dict[int, tuple[str, ...]] = field(default_factory=dict)
    key: tuple[int, int, int, int] = (DEAD_DISTANCE, 0, 0, 0)

    def to_json(self) -> dict:
        return {"pass": self.which, "tiles": list(self.tiles), "blind": self.blind, "reason": self.reason,
                "distance_now": self.distance_now, "distance_after": self.distance_after,
                "keeps": [ln.to_json() for ln in self.keeps],
                "alternatives": [list(a) for a in self.alternatives],
                "by_count": {str(n): list(t) for n, t in self.by_count.items()}}


@dataclass(frozen=True)
class HandAdvice:
    """Everything ``advise`` says about one hand. ``tiles`` are her concealed tiles sorted; ``problems`` counts
    no set can show (the rest is still computed, but a misread should be fixed first); ``nearest`` live lines,
    nearest first; ``dead`` lines that can no longer be completed (with ``reason``); ``possible``: some line is
    still alive; ``live``: per tile code, how many are not in her hand, her exposures or public view;
    ``charleston``: the pass advice when a pass was named; ``verdict``: with 14 tiles, Mah Jongg or not."""

    tiles: tuple[str, ...]
    exposures: tuple[tuple[str, ...], ...]
    problems: tuple[str, ...]
    nearest: tuple[LineAdvice, ...]
    dead: tuple[Suggestion, ...]
    possible: bool
    live: dict[str, int]
    charleston: PassAdvice | None = None
    verdict: Verdict | None = None

    @property
    def total(self) -> int:
        return len(self.tiles) + sum(len(g) for g in self.exposures)

    def to_json(self) -> dict:
        return {"tiles": list(self.tiles), "exposures": [list(g) for g in self.exposures], "total": self.total,
                "problems": list(self.problems), "possible": self.possible,
                "nearest": [a.to_json() for a in self.nearest],
                "dead": [s.line.to_json() | {"reason": s.reason} for s in self.dead],
                "live": self.live, "charleston": self.charleston.to_json() if self.charleston else None,
                "verdict": self.verdict.to_json() if self.verdict else None}


def advise(card: Card, tiles: Sequence[str], exposures: Sequence[Sequence[str]] = (), seen: Sequence[str] = (),
           *, charleston: str | None = None, courtesy: int | None = None, top: int = NEAREST_LINES) -> HandAdvice:
    """Advice for a hand: ``tiles`` her concealed tiles, ``exposures`` her exposed groups (a Joker in one
    stands for its tile), ``seen`` every tile visible elsewhere (the floor, the others' exposures, dead tiles).
    ``charleston``: one of ``PASSES`` for pass advice (``courtesy``: the count agreed across, 0-3).

    Tiles are codes or names ("3B", "3 bam", "soap"); an unknown one raises ``engine.tiles.TileError``, an
    unknown pass or a pass with exposures ``ValueError``. A hand of any size is advised (a photo may have missed
    a tile); ``problems`` says what no set can hold.
    """
    tiles = _codes(tiles)
    exposures = tuple(tuple(_codes(g)) for g in exposures)
    seen = _codes(seen)
    if charleston is not None and exposures:
        raise ValueError("the Charleston comes before any exposure: give no exposures with a pass")
    ranked = card.suggest(tiles, exposures, seen)
    live_lines = [s for s in ranked if not s.dead]
    held = Counter(tiles) + Counter(t for g in exposures for t in g) + Counter(seen)
    total = len(tiles) + sum(len(g) for g in exposures)
    return HandAdvice(
        tiles=tuple(sorted(tiles, key=sort_key)), exposures=exposures,
        problems=tuple(count_problems(tiles, exposures, seen)),
        nearest=tuple(_line_advice(card, s, tiles, exposures) for s in live_lines[:max(top, 0)]),
        dead=tuple(s for s in ranked if s.dead), possible=bool(live_lines),
        live={t: max(SET_COUNTS[t] - held[t], 0) for t in TILES},
        charleston=advise_pass(card, tiles, charleston, seen, courtesy) if charleston is not None else None,
        verdict=card.verify(tiles, exposures) if total == MOST_TILES else None,
    )


def count_problems(tiles: Sequence[str], exposures: Sequence[Sequence[str]] = (),
                   seen: Sequence[str] = ()) -> list[str]:
    """Counts no real set can show, as sentences: more than 14 tiles, more of a tile than the set holds (in her
    hand and exposures, or counting what is public too), more Jokers than the set has. Empty when all is
    possible."""
    tiles, seen = _codes(tiles), _codes(seen)
    exposed = [t for g in exposures for t in _codes(g)]
    out = []
    total = len(tiles) + len(exposed)
    if total > MOST_TILES:
        out.append(f"{total} tiles: a hand holds at most {MOST_TILES} (13, or 14 for East or after a draw)")
    own, public = Counter(tiles) + Counter(exposed), Counter(seen)
    for t in sorted(own, key=sort_key):
        word = "Jokers" if t == JOKER else f"x {t}"
        if own[t] > SET_COUNTS[t]:
            out.append(f"{own[t]} {word}, but a set has only {SET_COUNTS[t]}: one is misread")
        elif own[t] + public[t] > SET_COUNTS[t]:
            out.append(f"{own[t]} {word} here and {public[t]} in view on the table, but a set has only "
                       f"{SET_COUNTS[t]}: one is misread")
    return out


def pass_key(distances: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The objective every pass minimises, per row of ``distances`` (kept hands x lines, ``DEAD_DISTANCE`` or
    more for a dead line; ``values`` per line): (d, -lines at d, -lines at d + 1, -best value at d), with d the
    fewest tiles missing over the live lines. With no line alive: (DEAD_DISTANCE, 0, 0, 0)."""
    distances = np.atleast_2d(distances)
    d = distances.min(axis=1)
    alive = d < DEAD_DISTANCE
    at = distances == d[:, None]
    near = (at.sum(axis=1), (distances == d[:, None] + 1).sum(axis=1), np.where(at, values, 0).max(axis=1))
    keys = np.column_stack([np.where(alive, d, DEAD_DISTANCE), *(np.where(alive, -x, 0) for x in near)])
    return keys.astype(np.int64)


def advise_pass(card: Card, tiles: Sequence[str], which: str, seen: Sequence[str] = (),
                courtesy: int | None = None) -> PassAdvice:
    """Which tiles to pass now (``which``: one of ``PASSES``), searched over every choice of tiles the pass
    allows (never a Joker), ranked by ``pass_key``. See the module's docstring for the blind and courtesy
    passes; ``courtesy`` (0-3) is the count agreed with the player across."""
    return advise_passes(card, tiles, (which,), seen, courtesy)[0]


def advise_passes(card: Card, tiles: Sequence[str], which: Sequence[str], seen: Sequence[str] = (),
                  courtesy: int | None = None) -> list[PassAdvice]:
    """``advise_pass`` for several passes from one search (``mahj hand`` shows three when none is named)."""
    tiles, seen = _codes(tiles), _codes(seen)
    for w in which:
        if w not in PASSES:
            raise ValueError(f"unknown pass {w!r}: one of {', '.join(PASSES)}")
    if courtesy is not None and (tuple(which) != ("courtesy",) or not 0 <= courtesy <= PASS_SIZE):
        raise ValueError(f"an agreed count (0-{PASS_SIZE}) goes with the courtesy pass only")
    naturals = sorted((t for t in tiles if t != JOKER), key=sort_key)
    most = {w: min(PASS_SIZE if courtesy is None else courtesy, len(naturals)) for w in which}
    flexible = {w: w in BLIND_PASSES or (w == "courtesy" and courtesy is None) for w in which}
    sizes = sorted({0} | {n for w in which for n in (range(most[w] + 1) if flexible[w] else (most[w],))})
    passes = [c for n in sizes for c in dict.fromkeys(itertools.combinations(naturals, n))]
    now = pass_key(card.pass_distances(tiles, [()], seen), _values(card))[0]
    # a pass of n tiles moves her at most n further, and the objective looks one tile beyond that
    within = None if now[0] >= DEAD_DISTANCE else int(now[0]) + max(sizes) + 1
    distances = card.pass_distances(tiles, passes, seen, within)
    keys = pass_key(distances, _values(card))
    by_size: dict[int, list[int]] = {}
    for i, p in enumerate(passes):
        by_size.setdefault(len(p), []).append(i)
    best = {n: _best(keys, idx) for n, idx in by_size.items()}
    out = []
    for w in which:
        if flexible[w]:  # as many as she can spare without moving further from her nearest line
            size = max(n for n, (k, _) in best.items() if n <= most[w] and (k[0] == now[0] or n == 0))
        else:
            size = most[w]
        key, chosen = best[size]
        after = passes[chosen[0]]
        keeps = [ln for ln, d in zip(card.lines, distances[chosen[0]].tolist(), strict=True) if d == key[0]]
        blind = PASS_SIZE - size if w in BLIND_PASSES else 0
        out.append(PassAdvice(
            which=w, tiles=after, blind=blind,
            reason=_pass_reason(w, after, blind, now, key, keeps, len(chosen) - 1, tiles,
                                courtesy if w == "courtesy" else None),
            distance_now=_distance(now), distance_after=_distance(key), keeps=tuple(keeps),
            alternatives=tuple(passes[i] for i in chosen[1:]),
            by_count={n: passes[best[n][1][0]] for n in sorted(best) if 0 < n <= most[w]} if flexible[w] else {},
            key=tuple(int(v) for v in key)))
    return out


def _best(keys: np.ndarray, idx: list[int]) -> tuple[np.ndarray, list[int]]:
    """The lowest key among rows ``idx`` and every row that has it, in ``idx`` order."""
    sub = keys[idx]
    low = sub[np.lexsort(sub.T[::-1])[0]]
    return low, [idx[i] for i in np.flatnonzero((sub == low).all(axis=1)).tolist()]


def _values(card: Card) -> np.ndarray:
    return np.array([ln.value for ln in card.lines])


def _distance(key: np.ndarray) -> int | None:
    return None if key[0] >= DEAD_DISTANCE else int(key[0])


def _pass_reason(which: str, tiles: tuple[str, ...], blind: int, now: np.ndarray, key: np.ndarray,
                 keeps: list[CardLine], others: int, hand: Sequence[str], agreed: int | None) -> str:
    """One or two sentences a player can act on: what to pass and what it keeps."""
    given = " ".join(tiles) or "nothing"
    if which in BLIND_PASSES:
        what = (f"Pass {given} from your hand" + (f" and {blind} blind (tiles just passed to you, unseen)"
                                                   if blind else ""))
    elif which == "courtesy" and agreed is None:
        what = (f"Offer {len(tiles)} across: {given}" if tiles else
                "Keep your tiles: every one counts for your nearest lines (offer no courtesy pass)")
    else:
        what = f"Pass {given}"
    if key[0] >= DEAD_DISTANCE:
        why = "no line on the card can still be completed from what is left"
    else:
        line = max(keeps, key=lambda ln: ln.value) if keeps else None
        more = f" and {len(keeps) - 1} other line{'s' if len(keeps) != 2 else ''}" if len(keeps) > 1 else ""
        near = f"{key[0]} tile{'s' if key[0] != 1 else ''} from {line.label} ({line.value}){more}" if line else ""
        if now[0] >= DEAD_DISTANCE or key[0] == now[0]:
            why = f"you stay {near}, as near as now"
        else:
            why = (f"you will be {near}; every choice costs at least {key[0] - now[0]} "
                   f"tile{'s' if key[0] - now[0] != 1 else ''} of progress")
    notes = []
    if others:
        notes.append(f"{others} other choice{'s are' if others != 1 else ' is'} as good")
    if JOKER in hand:
        notes.append("Jokers are never passed")
    if now[0] == 0 and len(hand) == MOST_TILES:
        what = f"You hold Mah Jongg: declare it rather than pass. Otherwise: {what}"
    return f"{what}: {why}." + (f" ({'; '.join(notes)}.)" if notes else "")


def _line_advice(card: Card, s: Suggestion, tiles: Sequence[str], exposures: Sequence[Sequence[str]]
                 ) -> LineAdvice:
    """Where Jokers may still stand in the line's closest concrete hand (its pung-or-larger groups, less those
    her exposures already fill), and how many of her concealed Jokers it uses."""
    groups = next((v.groups for v in card.variations(s.line) if tuple(g.tiles for g in v.groups) == s.target), ())
    exposed = Counter((next(t for t in g if t != JOKER), len(g)) for g in exposures)
    joker_groups = []
    for g in groups:
        if g.joker_ok and exposed[(g.tiles[0], len(g.tiles))] > 0:
            exposed[(g.tiles[0], len(g.tiles))] -= 1
        elif g.joker_ok:
            joker_groups.append(g.tiles)
    open_slots = Counter(t for g in s.target for t in g)
    for g in exposures:
        open_slots[next(t for t in g if t != JOKER)] -= len(g)
    own = Counter(t for t in tiles if t != JOKER)
    naturals = sum(min(n, max(open_slots[t], 0)) for t, n in own.items())
    used = MOST_TILES - (s.missing or 0) - sum(len(g) for g in exposures) - naturals
    return LineAdvice(s, tuple(joker_groups), max(min(used, tiles.count(JOKER)), 0))


def _codes(tiles: Sequence[str]) -> list[str]:
    return [t if t in INDEX else parse_tile(t) for t in tiles]
