"""The compiled card and its three questions: verify a Mah Jongg, rank lines for a hand, find dead hands.

Everything reduces to per-kind counts. For one concrete hand of the card (a variation) with ``need[k]`` tiles
of kind ``k`` of which ``elig[k]`` sit in joker-eligible groups, a hand with ``h[k]`` naturals is Mah Jongg
when ``h <= need`` and ``need - h <= elig`` for every kind (the gaps are exactly the jokers, since both sides
hold 14 tiles). Exposures first claim whole eligible groups of their tile and size, so they are subtracted from
``need`` and ``elig`` of the variations that have such a group. Jokers are interchangeable, so these aggregate
conditions are exact: no search over which joker stands where is needed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.card.compiled import JOKERS_IN_SET, KINDS, NK, SET_KIND_COUNTS, CompiledCard, Variation
from engine.card.model import CardLine
from engine.card.results import MissingTile, Suggestion, Verdict
from engine.tiles import INDEX, JOKER, parse_tile

_RULED_OUT = 1 << 20  # score of a variation the exposures do not fit
#: Added to the score of a variation that cannot be completed from unseen tiles (a line at or above it is dead).
DEAD_DISTANCE = 1 << 10
NEAREST = 3


def _code(tile: str) -> str:
    return tile if tile in INDEX else parse_tile(tile)


@dataclass
class _Hand:
    """A hand reduced to counts: concealed naturals ``h`` and jokers; exposures as (size, kind) groups."""

    h: np.ndarray
    jokers: int
    exposed: Counter
    fill: np.ndarray
    exposed_naturals: np.ndarray
    exposed_jokers: int
    total: int
    problem: str | None = None

    @property
    def any_joker(self) -> bool:
        return self.jokers + self.exposed_jokers > 0


@dataclass
class _Distance:
    """Per variation ``missing`` and ``dead`` (None when not judged); per entry the naturals-only and
    joker-eligible gaps."""

    missing: np.ndarray
    dead: np.ndarray | None
    natural_open: np.ndarray
    elig_open: np.ndarray


def _hand(concealed: Sequence[str], exposures: Sequence[Sequence[str]]) -> _Hand:
    counts = _tile_counts(concealed)
    fill = np.zeros(NK, dtype=np.int16)
    naturals = np.zeros(NK, dtype=np.int16)
    exposed: Counter = Counter()
    exposed_jokers, total, problem = 0, len(concealed), None
    for n, group in enumerate(exposures, start=1):
        codes = [_code(t) for t in group]
        total += len(codes)
        kinds = {c for c in codes if c != JOKER}
        exposed_jokers += len(codes) - sum(c != JOKER for c in codes)
        if not kinds:
            problem = problem or f"exposure {n} is jokers only (an exposure needs a natural tile)"
        elif len(kinds) > 1:
            problem = problem or f"exposure {n} mixes tiles ({' '.join(codes)}); an exposure is one tile repeated"
        elif len(codes) < 3:
            problem = problem or f"exposure {n} has {len(codes)} tiles; an exposure is a pung or larger"
        else:
            k = INDEX[kinds.pop()]
            exposed[(len(codes), k)] += 1
            fill[k] += len(codes)
            naturals[k] += sum(c != JOKER for c in codes)
    return _Hand(counts[:NK], int(counts[NK]), exposed, fill, naturals, exposed_jokers, total, problem)


class Card:
    """A parsed, compiled card. Build it with ``parse_card`` or ``load_card``."""

    def __init__(self, name: str, lines: list[CardLine], compiled: CompiledCard, *, filename: str = "<card>",
                 year: str | None = None, publisher: str | None = None, sections: list[str] | None = None) -> None:
        self.name = name
        self.year = year
        self.publisher = publisher
        self.filename = filename
        self.lines = lines
        self.sections = sections or list(dict.fromkeys(ln.section for ln in lines))
        self._c = compiled
        self._index = {ln: i for i, ln in enumerate(lines)}  # lines are unique by (section, number)
        self._values = np.array([ln.value for ln in lines], dtype=np.int64)

    # --- facts about the card -------------------------------------------------------------------------------

    @property
    def cheapest_value(self) -> int:
        """The lowest line value: the base of penalties such as a wrong death challenge."""
        return int(self._values.min()) if self.lines else 0

    @property
    def variation_count(self) -> int:
        return len(self._c.variations)

    def variations(self, line: CardLine) -> list[Variation]:
        """The concrete hands one line allows (suits, shifts and alternatives resolved), without duplicates."""
        i = self._index[line]
        start = int(self._c.starts[i])
        return self._c.variations[start:start + self._c.line_variation_counts[i]]

    def line(self, section: str, number: int) -> CardLine:
        for ln in self.lines:
            if ln.section == section and ln.number == number:
                return ln
        raise KeyError(f"no line {section} #{number}")

    # --- verification ---------------------------------------------------------------------------------------

    def _fit(self, hand: _Hand) -> np.ndarray:
        """Variations whose eligible groups can hold every exposure (and that are not concealed lines)."""
        c = self._c
        mask = np.ones(len(c.variations), dtype=bool)
        if not hand.exposed:
            return mask
        mask &= ~c.concealed
        for (size, kind), count in hand.exposed.items():
            groups = c.groups_by_size.get(size)
            if groups is None:
                mask[:] = False
                break
            mask &= groups[:, kind] >= count
        return mask

    def verify(self, concealed: Sequence[str], exposures: Sequence[Sequence[str]] = ()) -> Verdict:
        """Is this hand Mah Jongg on the card? ``exposures``: groups of codes; a joker in one stands for its tile.

        Tiles are codes (names like "3 bam" are read too); an unknown tile raises ``engine.tiles.TileError``.
        Hands that cannot be judged (not 14 tiles, a malformed exposure, more tiles than a set holds), or whose
        exposures no line allows, get ``mahjong=False`` with ``reason`` set rather than an exception: they come
        from cameras and people.
        """
        hand = _hand(concealed, exposures)
        if hand.total != 14:
            return Verdict(False, reason=f"{hand.total} tile{'s' if hand.total != 1 else ''}; Mah Jongg needs 14")
        if hand.problem:
            return Verdict(False, reason=hand.problem)
        over = _beyond_set(hand)
        if over:
            return Verdict(False, reason=over)
        c = self._c
        mask = self._fit(hand)
        hbits = np.bitwise_or.reduce(c.bits[hand.h > 0]) if hand.h.any() else np.uint64(0)
        cand = np.flatnonzero(mask & ((c.support & hbits) == hbits))
        need = c.need[cand] - hand.fill
        ok = (need >= hand.h).all(axis=1) & ((need - hand.h) <= c.elig[cand] - hand.fill).all(axis=1)
        matched = sorted(set(c.line_of[cand[ok]].tolist()),
                         key=lambda i: (-self.lines[i].value, self.lines[i].singles_and_pairs, i))
        if not matched:
            nearest = self._suggest(hand, np.zeros(NK + 1, dtype=np.int16), NEAREST, judge_dead=False)
            fitting = [s for s in nearest if s.missing is not None]
            # Ruled-out lines rank last, so nothing fitting means no line takes these exposures: say so.
            why = None if fitting else "no exposed (X) line on the card allows these exposures"
            return Verdict(False, nearest=fitting, reason=why)
        best = self.lines[matched[0]]
        return Verdict(True, value=best.value, jokerless=not hand.any_joker and not best.singles_and_pairs,
                       singles_and_pairs=best.singles_and_pairs, lines=[self.lines[i] for i in matched])

    # --- distance, deadness, ranking ------------------------------------------------------------------------

    def _distance(self, hand: _Hand, unseen: np.ndarray | None = None, unseen_jokers: int = 0) -> _Distance:
        """Per variation: tiles still missing and (when ``unseen`` is given) whether it can still be completed.

        Works on the sparse entries (variation, kind), each judged by ``_entry_gaps``; a variation's gaps are the
        sums over its entries, its jokers then fill the eligible gaps; what is left is missing.
        """
        c = self._c
        kind, start = c.entry_kind, c.entry_start
        need, elig = c.entry_need, c.entry_elig
        if hand.exposed:
            fill = hand.fill[kind]
            need, elig = need - fill, elig - fill
        g = _entry_gaps(hand.h[kind], need, elig, None if unseen is None else unseen[kind])
        missing = np.add.reduceat(g.open, start) - np.minimum(hand.jokers, np.add.reduceat(g.elig_open, start))
        dead = None
        if unseen is not None:
            dead = _dead(np.add.reduceat(g.lacking, start), np.add.reduceat(g.short, start),
                         hand.jokers + unseen_jokers)
        return _Distance(missing, dead, g.natural_open, g.elig_open)

    def _unseen(self, hand: _Hand, seen: np.ndarray, own: bool) -> tuple[np.ndarray, int]:
        """Tiles of each kind nobody has seen: the set minus ``seen`` minus the player's exposed (and, when the
        player is asking, concealed) tiles."""
        unseen = SET_KIND_COUNTS - seen[:NK] - hand.exposed_naturals - (hand.h if own else 0)
        jokers = JOKERS_IN_SET - int(seen[NK]) - hand.exposed_jokers - (hand.jokers if own else 0)
        return np.maximum(unseen, 0), max(jokers, 0)

    def _best_per_line(self, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Index of the lowest-score variation of each line, and that score."""
        c = self._c
        n = len(score)
        key = score.astype(np.int64) * n + np.arange(n)
        best = np.minimum.reduceat(key, c.starts)
        return best % n, best // n

    def _suggest(self, hand: _Hand, seen: np.ndarray, limit: int | None, judge_dead: bool = True) -> list[Suggestion]:
        """Lines ranked by (dead, missing, -value, card order), each at its best variation; the first ``limit``."""
        c = self._c
        unseen, unseen_jokers = self._unseen(hand, seen, own=True)
        mask = self._fit(hand) if not hand.problem else np.zeros(len(c.variations), dtype=bool)
        d = self._distance(hand, unseen if judge_dead else None, unseen_jokers)
        score = d.missing.astype(np.int64) + (DEAD_DISTANCE * d.dead if judge_dead else 0)
        best, best_score = self._best_per_line(np.where(mask, score, _RULED_OUT))
        order = np.lexsort((np.arange(len(self.lines)), -self._values, best_score))
        if limit is not None:
            order = order[:limit]
        chosen = best[order]
        # the entries of every chosen variation, gathered in one go rather than sliced line by line
        counts = c.entry_count[chosen]
        idx = np.repeat(c.entry_start[chosen] - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))
        kinds = c.entry_kind[idx].tolist()
        natural_open = d.natural_open[idx].tolist()
        elig_open = d.elig_open[idx].tolist()
        left = unseen.tolist()
        out, at = [], 0
        for i, v, n in zip(order.tolist(), chosen.tolist(), counts.tolist(), strict=True):
            s = int(best_score[i])
            if s >= _RULED_OUT:
                out.append(self._ruled_out(self.lines[i], hand))
            else:
                gaps = list(zip(kinds[at:at + n], natural_open[at:at + n], elig_open[at:at + n], strict=True))
                out.append(self._suggestion(self.lines[i], v, int(d.missing[v]), s >= DEAD_DISTANCE, gaps,
                                            hand.jokers, left))
            at += n
        return out

    @staticmethod
    def _ruled_out(line: CardLine, hand: _Hand) -> Suggestion:
        why = hand.problem or ("concealed hand, but the hand has exposures" if line.concealed and hand.exposed
                               else "the exposures do not fit this line")
        return Suggestion(line, None, dead=True, reason=why)

    def _suggestion(self, line: CardLine, v: int, missing: int, dead: bool, gaps: list[tuple[int, int, int]],
                    jokers: int, unseen: list[int]) -> Suggestion:
        """What one variation still needs; the hand's jokers go to the eligible gaps hardest to fill naturally."""
        elig_left = {k: e for k, _, e in gaps if e > 0}
        for k in sorted(elig_left, key=lambda k: unseen[k]):
            use = min(jokers, elig_left[k])
            elig_left[k] -= use
            jokers -= use
        need = []
        for k, natural, _ in gaps:
            if natural > 0:
                need.append(MissingTile(KINDS[k], natural, False, unseen[k]))
            if elig_left.get(k, 0) > 0:
                need.append(MissingTile(KINDS[k], elig_left[k], True, unseen[k]))
        reason = None
        if dead:
            short = [m for m in need if not m.joker_ok and m.count > m.unseen]
            reason = (f"needs {short[0].count} more {short[0].tile} (no jokers there), only {short[0].unseen} unseen"
                      if short else "not enough unseen tiles and jokers left to complete it")
        return Suggestion(line, missing, tuple(need), self._c.targets[v], dead, reason)

    def suggest(self, tiles: Sequence[str], exposures: Sequence[Sequence[str]] = (),
                seen: Sequence[str] = ()) -> list[Suggestion]:
        """Every line ranked for a hand in play: fewest tiles still missing first, dead lines last.

        ``seen``: tiles visible elsewhere (discards, other players' exposures); they lower the unseen counts
        that decide whether a line can still be completed.
        """
        hand = _hand(tiles, exposures)
        return self._suggest(hand, _tile_counts(seen), None)

    def pass_distances(self, tiles: Sequence[str], passes: Sequence[Sequence[str]], seen: Sequence[str] = (),
                       within: int | None = None) -> np.ndarray:
        """For a concealed hand and each way ``passes`` of giving some of its tiles away (never a joker): per
        pass and line, the fewest tiles the kept tiles still miss over the line's variations that can still be
        completed from what their owner has not seen (the set minus the kept tiles minus ``seen``); at least
        ``DEAD_DISTANCE`` where none can. What the Charleston advice ranks every possible pass by.

        ``within``: only variations the whole hand misses by at most that many tiles are scored (giving tiles
        away never brings a variation nearer), and a line with none of them reads ``within + 1``: the advice
        only needs the lines within a few tiles of the nearest.

        Every per-entry gap depends only on how many tiles of the entry's kind are kept, so each variation's
        sums are those of the whole hand plus, for each kind a pass takes from, a correction worked out once per
        (kind, how many taken): hundreds of passes cost a few additions each, not a scan of the card each.
        """
        hand = _hand(tiles, ())
        c = self._c
        kind, start = c.entry_kind, c.entry_start
        unseen, unseen_jokers = self._unseen(hand, _tile_counts(seen), own=True)
        g = _entry_gaps(hand.h[kind], c.entry_need, c.entry_elig, unseen[kind])
        terms = ("open", "elig_open", "lacking", "short")
        base = [np.add.reduceat(getattr(g, t), start) for t in terms]
        scored = np.arange(len(c.variations))
        if within is not None:
            scored = np.flatnonzero(base[0] - np.minimum(hand.jokers, base[1]) <= within)
        place = np.full(len(c.variations), -1)
        place[scored] = np.arange(len(scored))
        rows: dict[tuple[int, int], int] = {}   # (kind, how many taken) -> its row in the corrections
        picks = np.zeros((len(passes), 3), dtype=np.intp)  # row 0: no correction
        for i, p in enumerate(passes):
            taken: dict[int, int] = {}
            for t in p:
                k = INDEX[_code(t)]
                taken[k] = taken.get(k, 0) + 1
            if INDEX[JOKER] in taken or len(taken) > 3 or any(n > hand.h[k] for k, n in taken.items()):
                raise ValueError(f"cannot pass {' '.join(p)} from this hand (jokers are never passed)")
            picks[i, :len(taken)] = [rows.setdefault(kn, len(rows) + 1) for kn in sorted(taken.items())]
        var_of = place[np.repeat(np.arange(len(c.variations)), c.entry_count)]
        corr = np.zeros((len(terms), len(rows) + 1, len(scored)), dtype=np.int16)
        for (k, n), row in rows.items():
            at = np.flatnonzero((kind == k) & (var_of >= 0))
            after = _entry_gaps(hand.h[k] - n, c.entry_need[at], c.entry_elig[at], unseen[k] + n)
            for q, t in enumerate(terms):
                corr[q, row] = np.bincount(var_of[at], getattr(after, t) - getattr(g, t)[at], len(scored))
        open_, elig_open, lacking, short = (b[scored][None, :] + cq[picks[:, 0]] + cq[picks[:, 1]] + cq[picks[:, 2]]
                                            for b, cq in zip(base, corr, strict=True))
        missing = open_ - np.minimum(hand.jokers, elig_open)
        score = missing + DEAD_DISTANCE * _dead(lacking, short, hand.jokers + unseen_jokers)
        out = np.full((len(passes), len(self.lines)), DEAD_DISTANCE if within is None else within + 1, np.int64)
        if len(scored):
            lines = c.line_of[scored]
            first = np.flatnonzero(np.r_[True, lines[1:] != lines[:-1]])
            out[:, lines[first]] = np.minimum.reduceat(score.T, first, axis=0).T
        return out

    def lines_allowing(self, exposures: Sequence[Sequence[str]], seen: Sequence[str] = ()) -> list[CardLine]:
        """Lines a hand with these exposures could still complete, judged from the table only (the concealed
        tiles are unknown, so they count as unseen). With exposures only X lines qualify; with none, C lines
        too. An empty list means the hand is dead."""
        hand = _hand((), exposures)
        if hand.problem:
            return []
        unseen, unseen_jokers = self._unseen(hand, _tile_counts(seen), own=False)
        alive = self._fit(hand) & ~self._distance(hand, unseen, unseen_jokers).dead
        return [self.lines[i] for i in sorted(set(self._c.line_of[alive].tolist()))]


@dataclass
class _EntryGaps:
    """Per entry (a variation's need for one kind): ``natural_open`` slots only a natural can fill, ``open`` all
    unfilled slots, ``elig_open`` the unfilled slots a joker may take; with unseen counts, ``lacking`` (1 when
    fewer naturals are unseen than the natural-only slots need) and ``short`` (eligible slots unseen naturals
    cannot fill: they need jokers)."""

    natural_open: np.ndarray
    open: np.ndarray
    elig_open: np.ndarray
    lacking: np.ndarray | None
    short: np.ndarray | None


def _entry_gaps(held: np.ndarray | int, need: np.ndarray, elig: np.ndarray,
                left: np.ndarray | int | None) -> _EntryGaps:
    """Naturals fill their own kind first, non-eligible slots before eligible ones; see ``_EntryGaps``."""
    natural_open = np.maximum(need - elig - held, 0)
    open_ = need - np.minimum(held, need)
    elig_open = open_ - natural_open
    if left is None:
        return _EntryGaps(natural_open, open_, elig_open, None, None)
    lacking = (natural_open > left).astype(np.int16)
    short = np.maximum(elig_open - np.maximum(left - natural_open, 0), 0)
    return _EntryGaps(natural_open, open_, elig_open, lacking, short)


def _dead(lacking: np.ndarray, short: np.ndarray, jokers_to_be_had: int) -> np.ndarray:
    """A variation is dead when a natural-only gap has too few unseen naturals, or its eligible gaps that
    unseen naturals cannot fill outnumber the jokers still to be had."""
    return (lacking > 0) | (short > jokers_to_be_had)


def exposure_problem(exposures: Sequence[Sequence[str]]) -> str | None:
    """Why these exposures cannot be on a rack at all (jokers only, mixed tiles, fewer than 3), or None."""
    return _hand((), exposures).problem


def _beyond_set(hand: _Hand) -> str | None:
    """A hand no real set can produce (a misread tile, a typo): more of a kind than the 152-tile set holds."""
    naturals = hand.h + hand.exposed_naturals
    over = np.flatnonzero(naturals > SET_KIND_COUNTS)
    if over.size:
        k = int(over[0])
        return f"{int(naturals[k])} x {KINDS[k]}, but a set has only {int(SET_KIND_COUNTS[k])}"
    jokers = hand.jokers + hand.exposed_jokers
    if jokers > JOKERS_IN_SET:
        return f"{jokers} jokers, but a set has only {JOKERS_IN_SET}"
    return None


def _tile_counts(tiles: Sequence[str]) -> np.ndarray:
    """Counts per kind, jokers last (index NK)."""
    counts = np.zeros(NK + 1, dtype=np.int16)
    for t in tiles:
        counts[INDEX[_code(t)]] += 1
    return counts
