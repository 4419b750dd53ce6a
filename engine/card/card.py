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

from engine.card.compiled import JOKERS_IN_SET, KINDS, NK, CompiledCard, Variation
from engine.card.model import CardLine
from engine.card.results import MissingTile, Suggestion, Verdict
from engine.tiles import INDEX, JOKER, SET_COUNTS, parse_tile

_SET = np.array([SET_COUNTS[k] for k in KINDS], dtype=np.int16)
_RULED_OUT = 1 << 20  # score of a variation the exposures do not fit
_DEAD = 1 << 10  # added to the score of a variation that cannot be completed from unseen tiles
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


def _hand(concealed: Sequence[str], exposures: Sequence[Sequence[str]]) -> _Hand:
    counts = np.zeros(NK + 1, dtype=np.int16)
    for t in concealed:
        counts[INDEX[_code(t)]] += 1
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
        self._index = {id(ln): i for i, ln in enumerate(lines)}
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
        i = self._index[id(line)]
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
        """Is this hand Mah Jongg on the card? ``exposures``: groups of codes; a joker in one stands for its tile."""
        hand = _hand(concealed, exposures)
        if hand.total != 14:
            return Verdict(False, reason=f"{hand.total} tiles; Mah Jongg needs 14")
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
            return Verdict(False, nearest=self._suggest(hand, np.zeros(NK + 1, dtype=np.int16), NEAREST, alive=True))
        best = self.lines[matched[0]]
        return Verdict(True, value=best.value, jokerless=not hand.any_joker and not best.singles_and_pairs,
                       singles_and_pairs=best.singles_and_pairs, lines=[self.lines[i] for i in matched])

    # --- distance, deadness, ranking ------------------------------------------------------------------------

    def _distance(self, hand: _Hand, unseen: np.ndarray, unseen_jokers: int) -> dict[str, np.ndarray]:
        """Per variation: tiles still missing, naturals-only gaps, joker-eligible gaps, and deadness."""
        c = self._c
        need = c.need - hand.fill
        elig = c.elig - hand.fill
        h = hand.h
        used = np.minimum(h, need)
        natural_open = np.maximum(need - elig - h, 0)
        open_ = need - used
        elig_open = open_ - natural_open
        missing = open_.sum(axis=1) - np.minimum(hand.jokers, elig_open.sum(axis=1))
        avail_for_elig = np.maximum(unseen - natural_open, 0)
        short = np.maximum(elig_open - avail_for_elig, 0).sum(axis=1)
        dead = (natural_open > unseen).any(axis=1) | (short > hand.jokers + unseen_jokers)
        return {"missing": missing, "natural_open": natural_open, "elig_open": elig_open, "dead": dead}

    def _unseen(self, hand: _Hand, seen: np.ndarray, own: bool) -> tuple[np.ndarray, int]:
        """Tiles of each kind nobody has seen: the set minus ``seen`` minus the player's exposed (and, when the
        player is asking, concealed) tiles."""
        unseen = _SET - seen[:NK] - hand.exposed_naturals - (hand.h if own else 0)
        jokers = JOKERS_IN_SET - int(seen[NK]) - hand.exposed_jokers - (hand.jokers if own else 0)
        return np.maximum(unseen, 0), max(jokers, 0)

    def _best_per_line(self, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Index of the lowest-score variation of each line, and that score."""
        c = self._c
        n = len(score)
        key = score.astype(np.int64) * n + np.arange(n)
        best = np.minimum.reduceat(key, c.starts)
        return best % n, best // n

    def _suggest(self, hand: _Hand, seen: np.ndarray, limit: int | None, alive: bool = False) -> list[Suggestion]:
        c = self._c
        unseen, unseen_jokers = self._unseen(hand, seen, own=True)
        mask = self._fit(hand) if not hand.problem else np.zeros(len(c.variations), dtype=bool)
        d = self._distance(hand, unseen, unseen_jokers)
        score = np.where(mask, d["missing"] + _DEAD * d["dead"], _RULED_OUT)
        best, best_score = self._best_per_line(score)
        order = np.lexsort((np.arange(len(self.lines)), -self._values, best_score))
        out: list[Suggestion] = []
        for i in order.tolist():
            s = int(best_score[i])
            if alive and s >= _DEAD:
                break
            out.append(self._suggestion(i, int(best[i]), s, d, hand, unseen))
            if limit is not None and len(out) >= limit:
                break
        return out

    def _suggestion(self, i: int, v: int, score: int, d: dict, hand: _Hand, unseen: np.ndarray) -> Suggestion:
        line = self.lines[i]
        if score >= _RULED_OUT:
            why = hand.problem or ("concealed hand, but the hand has exposures" if line.concealed and hand.exposed
                                   else "the exposures do not fit this line")
            return Suggestion(line, None, dead=True, reason=why)
        natural_open = d["natural_open"][v]
        elig_open = d["elig_open"][v].copy()
        jokers = hand.jokers
        for k in sorted(np.flatnonzero(elig_open).tolist(), key=lambda k: unseen[k]):
            use = min(jokers, int(elig_open[k]))
            elig_open[k] -= use
            jokers -= use
        need = [MissingTile(KINDS[k], int(natural_open[k]), False, int(unseen[k]))
                for k in np.flatnonzero(natural_open).tolist()]
        need += [MissingTile(KINDS[k], int(elig_open[k]), True, int(unseen[k]))
                 for k in np.flatnonzero(elig_open).tolist()]
        need.sort(key=lambda m: (INDEX[m.tile], m.joker_ok))
        dead = score >= _DEAD
        reason = None
        if dead:
            short = [m for m in need if not m.joker_ok and m.count > m.unseen]
            reason = (f"needs {short[0].count} more {short[0].tile} (no jokers there), only {short[0].unseen} unseen"
                      if short else "not enough unseen tiles and jokers left to complete it")
        target = tuple(g.tiles for g in self._c.variations[v].groups)
        return Suggestion(line, int(d["missing"][v]), tuple(need), target, dead, reason)

    def suggest(self, tiles: Sequence[str], exposures: Sequence[Sequence[str]] = (),
                seen: Sequence[str] = ()) -> list[Suggestion]:
        """Every line ranked for a hand in play: fewest tiles still missing first, dead lines last.

        ``seen``: tiles visible elsewhere (discards, other players' exposures); they lower the unseen counts
        that decide whether a line can still be completed.
        """
        hand = _hand(tiles, exposures)
        return self._suggest(hand, _seen_counts(seen), None)

    def lines_allowing(self, exposures: Sequence[Sequence[str]], seen: Sequence[str] = ()) -> list[CardLine]:
        """Lines a hand with these exposures could still complete, judged from the table only (the concealed
        tiles are unknown, so they count as unseen). With exposures only X lines qualify; with none, C lines
        too. An empty list means the hand is dead."""
        hand = _hand((), exposures)
        if hand.problem:
            return []
        unseen, unseen_jokers = self._unseen(hand, _seen_counts(seen), own=False)
        alive = self._fit(hand) & ~self._distance(hand, unseen, unseen_jokers)["dead"]
        return [self.lines[i] for i in sorted(set(self._c.line_of[alive].tolist()))]


def _beyond_set(hand: _Hand) -> str | None:
    """A hand no real set can produce (a misread tile, a typo): more of a kind than the 152-tile set holds."""
    naturals = hand.h + hand.exposed_naturals
    over = np.flatnonzero(naturals > _SET)
    if over.size:
        k = int(over[0])
        return f"{int(naturals[k])} x {KINDS[k]}, but a set has only {int(_SET[k])}"
    jokers = hand.jokers + hand.exposed_jokers
    if jokers > JOKERS_IN_SET:
        return f"{jokers} jokers, but a set has only {JOKERS_IN_SET}"
    return None


def _seen_counts(seen: Sequence[str]) -> np.ndarray:
    counts = np.zeros(NK + 1, dtype=np.int16)
    for t in seen:
        counts[INDEX[_code(t)]] += 1
    return counts
