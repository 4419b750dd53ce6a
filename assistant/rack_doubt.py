"""Which tiles of a rack photo to ask the player about (issue 44: "a tile the model doubts is marked and asked
about, never silently guessed"), and why.

The classifier's calibrated score (below ``DOUBTFUL_BELOW``) is the main signal. Two more do not come from the
classifier's confidence, and neither has a threshold to tune:

- **A suit among another suit, on a rack sorted by suit.** Players sort their racks by suit. In a row that stands
  in one block per suit but for one tile, whose two neighbours share a suit it lacks and whose likeliest other
  kinds include that suit, the tile is more likely misread than placed there. A row is the tiles standing side
  by side (a gap wider than ``GAP`` of a tile's width ends it: tiles lying apart are no rack), Jokers and
  Flowers left out (players stand them anywhere), winds and dragons one suit; a row of fewer than
  ``SORTED_MIN`` such tiles says too little about whether it is sorted.
- **More of a kind than a set holds.** One of them is misread: the least sure of them are asked about.

A box the reading left face down is asked about as a Soap where the classifier gives it a Soap's chance of
SOAP_ASKED_AT or more (``assistant.rack_reading``): a plain White Dragon is a blank face, close to a back, and
a tile on the player's own rack faces her.

What was measured (bench/bench_hand.py, and the riichi set held out from training; docs/my-hand.md): these two
asked about no right tile more than the score alone on any of them; the quarter turns disagreeing, the
second-best kind being the same number in another suit, the second-best probability and the order of numbers
within a suit each marked 2-7 % more of the right tiles for at most one more wrong read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from statistics import median
from typing import Protocol

from engine.tiles import FLOWER, JOKER, SET_COUNTS, name_or_code

#: A face-up tile whose kind the classifier gives less than this (its calibrated probability) is asked about.
DOUBTFUL_BELOW = 0.75
#: A row must hold at least this many tiles (Jokers and Flowers aside) to be taken as sorted by suit.
SORTED_MIN = 5
#: A gap wider than this share of a tile's width between two tiles of a row: they do not stand on one rack.
GAP = 0.5
#: The likeliest other kinds looked at for one of the neighbours' suit.
ALTS_LOOKED_AT = 2
SUIT_WORDS = {"B": "Bams", "C": "Craks", "D": "Dots", "H": "winds and dragons"}

#: A face-down box with at least this calibrated chance of being a Soap is put on the rack as a Soap and asked
#: about, not told to turn: a question is cheap, a lost tile is not. On the rack photos of the set never trained
#: on it puts 6 of its 8 blank Soaps read as backs on the rack, and no box on no tile; the Hong Kong racks' 20
#: backs are given at most 0.005 (docs/hand.md; the classifier of 2026-11-29, later).
SOAP_ASKED_AT = 0.1

#: Why a tile is asked about, as the page and ``mahj hand`` say it.
UNSURE = "mahj is not sure of it"
SOAP_OR_BACK = "it looks blank: a Soap, or a tile turned away"


class Read(Protocol):
    """What a doubt is judged from: the kind read, how sure, and the likeliest other kinds."""

    tile: str
    score: float
    alts: tuple[str, ...]
    box: tuple[float, float, float, float]


def suit(code: str) -> str:
    """B, C or D for a numbered tile; H for a wind or a dragon."""
    return code[1] if len(code) == 2 and code[0].isdigit() else "H"


def side_by_side(tiles: Sequence[Read], rows: Sequence[Sequence[int]]) -> list[list[int]]:
    """The rows cut where two neighbours stand apart by more than GAP of a tile's width."""
    if not tiles:
        return []
    width = median(t.box[2] - t.box[0] for t in tiles)
    out: list[list[int]] = []
    for row in rows:
        for k, i in enumerate(row):
            if k == 0 or tiles[i].box[0] - tiles[row[k - 1]].box[2] > GAP * width:
                out.append([])
            out[-1].append(i)
    return out


def among_other_suit(tiles: Sequence[Read], rows: Sequence[Sequence[int]]) -> dict[int, str]:
    """Tiles (index -> why) that stand between two tiles of another suit, in a rack otherwise sorted by suit,
    and whose likeliest other kinds include that suit."""
    out: dict[int, str] = {}
    for row in side_by_side(tiles, rows):
        ids = [i for i in row if tiles[i].tile not in (JOKER, FLOWER)]
        if len(ids) < SORTED_MIN:
            continue
        suits = [suit(tiles[i].tile) for i in ids]
        odd = {k for k in range(1, len(ids) - 1) if suits[k - 1] == suits[k + 1] != suits[k]}
        rest = [s for k, s in enumerate(suits) if k not in odd]
        blocks = [s for k, s in enumerate(rest) if k == 0 or rest[k - 1] != s]
        if len(odd) > 1 or len(blocks) != len(set(blocks)):   # not one misread on a rack sorted by suit
            continue
        for k in sorted(odd):
            around = suits[k - 1]
            if any(suit(a) == around for a in tiles[ids[k]].alts[:ALTS_LOOKED_AT] if a not in (JOKER, FLOWER)):
                out[ids[k]] = f"it stands among {SUIT_WORDS[around]}"
    return out


def over_count(tiles: Sequence[Read]) -> dict[int, str]:
    """For each kind read more often than a set holds, its least sure tiles beyond that count (index -> why)."""
    out: dict[int, str] = {}
    counts = Counter(t.tile for t in tiles)
    for kind, n in counts.items():
        if n > SET_COUNTS.get(kind, 4):
            same = sorted((i for i, t in enumerate(tiles) if t.tile == kind), key=lambda i: tiles[i].score)
            for i in same[:n - SET_COUNTS.get(kind, 4)]:
                out[i] = f"{n} read as {name_or_code(kind)}, more than a set has"
    return out


def doubts(tiles: Sequence[Read], rows: Sequence[Sequence[int]]) -> dict[int, str]:
    """Every tile to ask about (index into ``tiles`` -> why), ``rows``: the rack's rows as indexes, each left to
    right. The classifier's doubt first: it is the likeliest reason."""
    return (over_count(tiles) | among_other_suit(tiles, rows)
            | {i: UNSURE for i, t in enumerate(tiles) if t.score < DOUBTFUL_BELOW})
