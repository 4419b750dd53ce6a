"""Score one winning hand: every reading of it, fu and han for each, and the best one.

The input is already checked (:mod:`engine.japanese.request` does that): concealed tile counts including the
winning tile, the declared melds, and how the hand went out. A *reading* is one way to split the concealed
tiles into sets and a pair together with one place for the winning tile in them (pair, pung or a position in
a chow); the rules let the winner pick the reading that pays best, so all are scored and the highest basic
points win (then a true limit hand over counted han, then more han, then more fu).

Patterns are named by stable keys (``YAKU_NAMES`` gives the English of the rules text for each), and the
han of every pattern comes from the :class:`~engine.japanese.rules.Rules`, never from constants here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import compress
from typing import NamedTuple

from engine.japanese.decompose import is_seven_pairs, is_thirteen_orphans, standard_splits
from engine.japanese.points import LIMIT, basic_points, limit_name
from engine.japanese.rules import Rules
from engine.japanese.tiles import (
    GREEN_KINDS,
    IS_TERMINAL_OR_HONOUR,
    KIND_NAMES,
    TERMINALS_AND_HONOURS,
    WHITE,
    dora_after,
)

YAKU_NAMES: dict[str, str] = {
    "riichi": "Declaration of Ready (riichi)",
    "double_riichi": "Ready on first turn (double riichi)",
    "ippatsu": "One Out after Ready (ippatsu)",
    "menzen_tsumo": "Fully concealed hand (menzen tsumo)",
    "haitei": "Out on the last tile of the Wall (haitei)",
    "houtei": "Out on the last discard (houtei)",
    "rinshan": "Out on a supplement tile (rinshan kaihou)",
    "chankan": "Out by robbing a Kong (chankan)",
    "yakuhai_white": "Pung of White Dragons",
    "yakuhai_green": "Pung of Green Dragons",
    "yakuhai_red": "Pung of Red Dragons",
    "seat_wind": "Pung of own Wind",
    "round_wind": "Pung of the Wind of the Round",
    "pinfu": "No-points hand (pinfu)",
    "tanyao": "All Simples (tanyao)",
    "iipeikou": "Two identical Chows (iipeikou)",
    "ryanpeikou": "Two pairs of identical Chows (ryanpeikou)",
    "isshoku_sanjun": "Three identical Chows",
    "sanshoku": "Same Chow from all suits (sanshoku)",
    "ittsu": "3 Chows of 1 suit, step 3 (ittsu)",
    "sanshoku_doukou": "Three triplets of the same number (sanshoku doukou)",
    "sanankou": "Three concealed triplets (sanankou)",
    "sankantsu": "Three Kongs (sankantsu)",
    "toitoi": "Pung hand (toitoi)",
    "shousangen": "Little Three Dragons (shousangen)",
    "chanta": "Terminal or Honor in each set (chanta)",
    "junchan": "Terminal in each set (junchan)",
    "honroutou": "All Terminals and Honors (honroutou)",
    "honitsu": "One suit and Honors (honitsu)",
    "chinitsu": "One suit only (chinitsu)",
    "chiitoitsu": "Seven Pairs (chiitoitsu)",
    "dora": "Dora",
    "aka_dora": "Red five (aka dora)",
    "ura_dora": "Ura Dora",
    # limit hands
    "kokushi": "Thirteen Orphans (kokushi musou)",
    "kokushi_13": "Thirteen Orphans, 13-sided wait",
    "suuankou": "Hidden Treasure (suuankou)",
    "suuankou_tanki": "Hidden Treasure, single wait",
    "daisangen": "Three Great Scholars (daisangen)",
    "shousuushii": "Little Four Winds (shousuushii)",
    "daisuushii": "Big Four Winds (daisuushii)",
    "tsuuiisou": "All Honors (tsuuiisou)",
    "chinroutou": "All Terminals (chinroutou)",
    "ryuuiisou": "All Green (ryuuiisou)",
    "suukantsu": "Four Kongs (suukantsu)",
    "chuuren": "Nine Gates, impure (chuuren poutou)",
    "junsei_chuuren": "Nine Gates, 9-sided wait (junsei chuuren poutou)",
    "suushun": "Four identical Chows",
    "daisharin": "Consecutive Pairs in One Suit",
    "tenhou": "Heavenly Hand (tenhou)",
    "chiihou": "Earthly Hand (chiihou)",
    "renhou": "Out on 1st turn with a discarded tile (renhou)",
    "first_turn_tsumo": "Out on 1st turn with a self-drawn tile",
}

FU_REASONS: dict[str, str] = {
    "win": "winning",
    "menzen_ron": "concealed hand, out on a discard",
    "tsumo": "self-drawn last tile",
    "open_no_points": "no-points hand with melds",
    "kanchan": "out on a one-chance chow (middle tile)",
    "penchan": "out on a one-chance chow (edge)",
    "tanki": "out on a pair",
    "seven_pairs": "seven pairs (fixed)",
    "pair_dragons": "pair of dragons",
    "pair_double_wind": "pair of own wind that is also the round wind",
    "pair_seat_wind": "pair of own wind",
    "pair_round_wind": "pair of the round wind",
}
#: Reason keys of sets: (concealed, kong) -> words.
_SET_KEYS = {(False, False): "melded pung", (True, False): "concealed pung", (False, True): "melded kong",
             (True, True): "concealed kong"}


@lru_cache(maxsize=512)
def fu_reason(key: str, kind: int) -> str:
    """Words for a fu part: a fixed reason, or a set ("concealed pung of terminals (9p)")."""
    if key in FU_REASONS:
        return FU_REASONS[key]
    th = IS_TERMINAL_OR_HONOUR[kind]
    what = "simples" if not th else "terminals" if kind < 27 else "winds" if kind < WHITE else "dragons"
    return f"{key} of {what} ({KIND_NAMES[kind]})"


class Meld(NamedTuple):
    """A declared set: ``kind`` is chi, pon, minkan, ankan or kakan; ``first`` its lowest tile kind.

    Meld, Situation: named tuples because one is built per request and tuples build fastest.
    """

    kind: str
    first: int


class Situation(NamedTuple):
    """How the hand went out. Winds are tile kinds (27..30); ``dealer`` is seat wind East."""

    tsumo: bool
    seat_wind: int
    round_wind: int
    riichi: bool = False
    double_riichi: bool = False
    ippatsu: bool = False
    haitei: bool = False
    houtei: bool = False
    rinshan: bool = False
    chankan: bool = False
    tenhou: bool = False
    chiihou: bool = False
    renhou: bool = False
    first_turn: bool = False
    dora_indicators: tuple[int, ...] = ()
    ura_indicators: tuple[int, ...] = ()

    @property
    def dealer(self) -> bool:
        return self.seat_wind == 27


@dataclass(slots=True)
class Score:
    """The best reading's score, or ``win=False`` with ``reason``."""

    win: bool
    reason: str | None = None
    han: int = 0
    fu: int = 0
    basic: int = 0
    limit_name: str | None = None
    limits: int = 0  # how many limits (400 % each) a limit hand counts; 0 for a hand scored by han and fu
    #: (key, han, limits): limits > 0 for a limit hand, 0 for a pattern, -1 for dora (which is no yaku)
    yaku: list[tuple[str, int, int]] = field(default_factory=list)
    fu_parts: list[tuple[int, str, int]] = field(default_factory=list)  # (fu, reason key, tile kind or -1)

    def fu_details(self) -> list[tuple[int, str]]:
        """The fu parts with their reasons in words (made only for the answer, not while comparing readings)."""
        return [(fu, fu_reason(key, kind)) for fu, key, kind in self.fu_parts]


class _Hand:
    """Facts about the whole hand that do not depend on the reading, computed once per score."""

    __slots__ = (
        "counts", "melds", "melded", "win", "sit", "rules", "han", "menzen", "all_counts", "simples", "all_th",
        "honours", "suits", "green", "extra", "extra_has_yaku", "situational_limits",
    )

    def __init__(self, counts: tuple[int, ...], melds: tuple[Meld, ...], win: int, red: int, sit: Situation,
                 rules: Rules) -> None:
        self.counts = counts
        self.melds = melds
        self.win = win
        self.sit = sit
        self.rules = rules
        allc = list(counts) if melds else counts
        melded = []
        menzen = True
        for m in melds:
            kind = m.kind
            if kind == "chi":
                allc[m.first] += 1
                allc[m.first + 1] += 1
                allc[m.first + 2] += 1
                melded.append((m.first * 2, False, False))
                menzen = False
            else:
                allc[m.first] += 3 if kind == "pon" else 4
                melded.append((m.first * 2 + 1, kind == "ankan", kind != "pon"))
                menzen = menzen and kind == "ankan"
        self.melded = melded
        self.menzen = menzen
        self.han = rules.han_table(menzen)
        self.all_counts = allc
        kinds = list(compress(range(34), allc))
        self.simples = _TH_SET.isdisjoint(kinds)
        self.all_th = _TH_SET.issuperset(kinds)
        self.honours = kinds[-1] >= 27
        suits = set(map(_SUIT_BASE_OF.__getitem__, kinds))
        suits.discard(27)
        self.suits = sorted(suits)
        self.green = GREEN_KINDS.issuperset(kinds)
        self.extra = self._extras(red)
        self.extra_has_yaku = bool(self.extra) and self.extra[0][2] == 0  # yaku come before dora
        self.situational_limits = self._situational_limits()

    def _extras(self, red: int) -> list[tuple[str, int, int]]:
        """Han that every reading shares: the ways of going out and dora (dora alone is no yaku)."""
        sit, rules, han = self.sit, self.rules, self.han
        keys = []
        if sit.double_riichi:
            if not rules.double_riichi_replaces_riichi:
                keys.append("riichi")
            keys.append("double_riichi")
        elif sit.riichi:
            keys.append("riichi")
        if sit.ippatsu:
            keys.append("ippatsu")
        if sit.tsumo and self.menzen:
            keys.append("menzen_tsumo")
        if sit.haitei or sit.houtei or sit.rinshan or sit.chankan:
            keys += [k for k, on in zip(_LAST_TILE_KEYS, (sit.haitei, sit.houtei, sit.rinshan, sit.chankan),
                                         strict=True) if on]
        if self.simples and (self.menzen or rules.open_tanyao):
            keys.append("tanyao")
        if len(self.suits) == 1:
            keys.append("honitsu" if self.honours else "chinitsu")
        if self.all_th:
            keys.append("honroutou")
        out = [(k, han[k], 0) for k in keys if k in han]
        allc = self.all_counts
        dora = 0
        for i in sit.dora_indicators if rules.kan_dora else sit.dora_indicators[:1]:
            dora += allc[DORA_OF[i]]
        if dora:
            out.append(("dora", dora, -1))
        if red and rules.red_fives:
            out.append(("aka_dora", red, -1))
        if (sit.riichi or sit.double_riichi) and rules.ura_dora:
            ura = 0
            for i in sit.ura_indicators if rules.kan_ura_dora else sit.ura_indicators[:1]:
                ura += allc[DORA_OF[i]]
            if ura:
                out.append(("ura_dora", ura, -1))
        return out

    def _situational_limits(self) -> list[tuple[str, int]]:
        """Limit hands earned by when the hand went out (checked by the request: who, tsumo or ron)."""
        sit, rules = self.sit, self.rules
        out: list[tuple[str, int]] = []
        if not (sit.tenhou or sit.chiihou or sit.renhou or sit.first_turn):
            return out
        if sit.tenhou or (sit.first_turn and sit.dealer and sit.tsumo):
            out.append(("tenhou", 1))
        elif rules.earthly_hand == "first_self_draw" and (sit.chiihou or (sit.first_turn and sit.tsumo)):
            out.append(("chiihou", 1))
        elif sit.chiihou:
            out.append(("chiihou", 1))
        elif sit.first_turn and sit.tsumo and rules.first_turn_self_draw_limits:
            out.append(("first_turn_tsumo", rules.first_turn_self_draw_limits))
        if (sit.renhou or (sit.first_turn and not sit.tsumo)) and rules.renhou_limits:
            out.append(("renhou", rules.renhou_limits))
        return out

    def shape_limits(self) -> list[tuple[str, int]]:
        """Limit hands that depend only on which tiles the hand holds (any reading)."""
        out: list[tuple[str, int]] = list(self.situational_limits)
        if self.green:
            out.append(("ryuuiisou", 1))
        if not self.suits:
            out.append(("tsuuiisou", 1))
        elif self.all_th and not self.honours:
            out.append(("chinroutou", 1))
        if not self.melds and len(self.suits) == 1 and not self.honours:
            base = self.suits[0]
            c = list(self.counts[base:base + 9])
            if c[0] >= 3 and c[8] >= 3 and all(c[1:8]):
                c[self.win - base] -= 1
                pure = c == [3, 1, 1, 1, 1, 1, 1, 1, 3]
                out.append(("junsei_chuuren", 1) if pure else ("chuuren", 1))
        return out


def _limit_total(rules: Rules, limits: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Apply double limits and stacking: all of them add up, or the single best counts."""
    limits = [(k, 2 if k in rules.double_limits else n) for k, n in limits]
    if rules.limits_stack or len(limits) <= 1:
        return limits
    return [max(limits, key=lambda kn: kn[1])]


def _limit_score(hand: _Hand, limits: list[tuple[str, int]]) -> Score:
    limits = _limit_total(hand.rules, limits)
    multiple = sum(n for _, n in limits)
    return Score(win=True, han=13 * multiple, fu=0, basic=4 * LIMIT * multiple, limit_name=limit_name(multiple),
                 limits=multiple, yaku=[(k, 13 * n, n) for k, n in limits])


def _pair_fu(hand: _Hand, pair: int) -> tuple[int, str]:
    """Fu of the pair and its reason key (dragons, seat wind, round wind; a double wind per the ruleset)."""
    if pair < 27:
        return 0, ""
    if pair >= WHITE:
        return 2, "pair_dragons"
    seat, rnd = pair == hand.sit.seat_wind, pair == hand.sit.round_wind
    if seat and rnd:
        return hand.rules.double_wind_pair_fu, "pair_double_wind"
    if seat:
        return 2, "pair_seat_wind"
    if rnd:
        return 2, "pair_round_wind"
    return 0, ""


def _score_standard(hand: _Hand, sets: tuple[int, ...], pair: int, wait: str, ron_pung: int,
                    shape_limits: list[tuple[str, int]]) -> Score:
    """Fu and han of one reading: the concealed ``sets`` (codes) plus the melds, the pair and the wait.

    ``ron_pung`` is the code of the concealed pung a discard completed (it counts as melded), or -1.
    One pass over the sets gathers what both fu and the patterns need; limit hands end the scoring early.
    """
    rules, sit, menzen = hand.rules, hand.sit, hand.menzen
    th = IS_TERMINAL_OR_HONOUR
    chows: list[int] = []
    pungs: list[int] = []
    fu_parts: list[tuple[int, str, int]] = [(20, "win", -1)]
    fu = 20
    n_concealed = n_kongs = n_dragons = n_winds = 0
    all_sets = [(c, c != ron_pung, False) for c in sets]
    if hand.melded:
        all_sets += hand.melded
    for code, conc, kong in all_sets:
        k = code >> 1
        if not code & 1:
            chows.append(k)
            continue
        pungs.append(k)
        set_fu = 2 << (th[k] + conc + 2 * kong)
        fu += set_fu
        fu_parts.append((set_fu, _SET_KEYS[conc, kong], k))
        n_concealed += conc
        n_kongs += kong
        if k >= WHITE:
            n_dragons += 1
        elif k >= 27:
            n_winds += 1

    # --- limit hands that need this reading ------------------------------------------------------------
    if n_concealed == 4 or n_dragons == 3 or n_winds >= 3 or n_kongs == 4 or shape_limits or (
            rules.four_identical_chows and len(chows) == 4):
        limits = list(shape_limits)
        if n_concealed == 4:
            limits.append(("suuankou_tanki", 1) if wait == "tanki" else ("suuankou", 1))
        if n_dragons == 3:
            limits.append(("daisangen", 1))
        if n_winds == 4:
            limits.append(("daisuushii", 1))
        elif n_winds == 3 and 27 <= pair < WHITE:
            limits.append(("shousuushii", 1))
        if n_kongs == 4:
            limits.append(("suukantsu", 1))
        if rules.four_identical_chows and len(chows) == 4 and min(chows) == max(chows):
            limits.append(("suushun", 1))
        if limits:
            return _limit_score(hand, limits)

    # --- fu ---------------------------------------------------------------------------------------------
    pair_fu, pair_key = _pair_fu(hand, pair)
    if pair_fu:
        fu += pair_fu
        fu_parts.append((pair_fu, pair_key, pair))
    if wait != "ryanmen" and wait != "shanpon":
        fu += 2
        fu_parts.append((2, wait, -1))
    pinfu = menzen and not pungs and wait == "ryanmen" and not pair_fu and "pinfu" in hand.han
    if menzen and not sit.tsumo:
        fu += 10
        fu_parts.append((10, "menzen_ron", -1))
    if sit.tsumo and not pinfu:
        fu += 2
        fu_parts.append((2, "tsumo", -1))
    if fu == 20 and not menzen:
        fu += rules.open_no_points_fu
        fu_parts.append((rules.open_no_points_fu, "open_no_points", -1))
    fu = -(-fu // 10) * 10

    # --- han of the patterns that depend on the split ----------------------------------------------------
    han = hand.han
    keys: list[str] = []
    if n_dragons or n_winds:
        little_dragons = n_dragons == 2 and pair >= WHITE
        if little_dragons:
            keys.append("shousangen")
        if not (little_dragons and rules.shousangen_includes_dragons):
            keys += [_DRAGON_KEYS[k - WHITE] for k in pungs if k >= WHITE]
        if sit.seat_wind in pungs:
            keys.append("seat_wind")
        if sit.round_wind in pungs:
            keys.append("round_wind")
    if pinfu:
        keys.append("pinfu")
    if len(chows) >= 2:
        if menzen and len(set(chows)) < len(chows):
            keys.append(_identical_chows(han, chows))
        if len(chows) >= 3:
            starts = set(chows)
            for r in range(7):
                if r in starts and r + 9 in starts and r + 18 in starts:
                    keys.append("sanshoku")
                    break
            for base in (0, 9, 18):
                if base in starts and base + 3 in starts and base + 6 in starts:
                    keys.append("ittsu")
                    break
    if len(pungs) >= 3:
        suited = {k for k in pungs if k < 27}
        if len(suited) >= 3 and any(r in suited and r + 9 in suited and r + 18 in suited for r in range(9)):
            keys.append("sanshoku_doukou")
        if n_concealed == 3:
            keys.append("sanankou")
        if n_kongs == 3:
            keys.append("sankantsu")
        if len(pungs) == 4:
            keys.append("toitoi")
    if th[pair] and (chows or not rules.chanta_needs_chow):
        if all(th[k] for k in pungs) and all(c % 9 == 0 or c % 9 == 6 for c in chows):
            keys.append("chanta" if hand.honours else "junchan")
    return _finish(hand, [(k, han[k], 0) for k in keys if k in han], fu, fu_parts)


_DRAGON_KEYS = ("yakuhai_white", "yakuhai_green", "yakuhai_red")
_LAST_TILE_KEYS = ("haitei", "houtei", "rinshan", "chankan")
#: The kind each indicator makes dora, by indicator kind.
DORA_OF: tuple[int, ...] = tuple(dora_after(i) for i in range(34))
_TH_SET = frozenset(TERMINALS_AND_HONOURS)
#: First kind of each kind's suit (0, 9, 18; 27 for honours).
_SUIT_BASE_OF: tuple[int, ...] = tuple(min(k // 9, 3) * 9 for k in range(34))


def _identical_chows(han: dict[str, int], chows: list[int]) -> str:
    """Two/three identical chows, or two pairs of them (ryanpeikou where the ruleset knows it)."""
    runs: dict[int, int] = {}
    for c in chows:
        runs[c] = runs.get(c, 0) + 1
    if max(runs.values()) == 3 and "isshoku_sanjun" in han:
        return "isshoku_sanjun"
    if sum(n // 2 for n in runs.values()) == 2 and "ryanpeikou" in han:
        return "ryanpeikou"
    return "iipeikou"


def _finish(hand: _Hand, yaku: list[tuple[str, int, int]], fu: int, fu_parts: list[tuple[int, str, int]]) -> Score:
    """Add the shared han, check there is a yaku (dora is none), and look up basic points."""
    if not yaku and not hand.extra_has_yaku:
        return Score(False, "no yaku: the hand is a winning shape but no pattern scores")
    yaku += hand.extra
    han = 0
    for _, h, _ in yaku:
        han += h
    basic, name = basic_points(han, fu, hand.rules.counted_limit, hand.rules.kiriage)
    return Score(True, None, han, fu, basic, name, 0, yaku, fu_parts)


def _placements(win: int, sets: tuple[int, ...], pair: int, ron: bool) -> list[tuple[str, int]]:
    """Each place the winning tile can take in a split, as (wait kind, code of a pung completed on a discard).

    Two identical chows are one place; a chow takes the tile at its middle (closed wait), at an end that
    leaves 1-2 or 8-9 (edge wait) or at an open end (two-sided).
    """
    out = [("tanki", -1)] if pair == win else []
    for code in sets:
        k = code >> 1
        if code & 1:
            if k == win:
                out.append(("shanpon", code if ron else -1))
        elif k <= win <= k + 2:
            pos = win - k
            if pos == 1:
                wait = "kanchan"
            elif (pos == 0 and k % 9 == 6) or (pos == 2 and k % 9 == 0):
                wait = "penchan"
            else:
                wait = "ryanmen"
            if (wait, -1) not in out:
                out.append((wait, -1))
    return out


def _seven_pairs(hand: _Hand, shape_limits: list[tuple[str, int]]) -> Score:
    rules = hand.rules
    limits = [kv for kv in shape_limits if kv[0] != "tsuuiisou" or rules.all_honours_seven_pairs]
    if rules.consecutive_pairs:
        pairs = [k for k in range(34) if hand.counts[k]]
        lo = pairs[0]
        if pairs[-1] < 27 and pairs == list(range(lo, lo + 7)) and lo // 9 == (lo + 6) // 9:
            if rules.consecutive_pairs == "any" or lo % 9 == 1:
                limits.append(("daisharin", 1))
    if limits:
        return _limit_score(hand, limits)
    yaku = [("chiitoitsu", hand.han["chiitoitsu"], 0)] if "chiitoitsu" in hand.han else []
    return _finish(hand, yaku, 25, [(25, "seven_pairs", -1)])


def score(counts: tuple[int, ...], melds: tuple[Meld, ...], win: int, red: int, sit: Situation, rules: Rules) -> Score:
    """Score a checked hand: the best of all its readings, or why it does not win.

    ``counts``: 34 concealed counts including the winning tile ``win``; ``red``: red fives in the whole hand.
    """
    hand = _Hand(counts, melds, win, red, sit, rules)
    shape_limits = hand.shape_limits()
    best: Score | None = None
    no_yaku: Score | None = None
    candidates: list[Score] = []
    ron = not sit.tsumo
    for sets, pair in standard_splits(counts):
        for wait, ron_pung in _placements(win, sets, pair, ron):
            candidates.append(_score_standard(hand, sets, pair, wait, ron_pung, shape_limits))
    if not melds:
        if is_seven_pairs(counts):
            candidates.append(_seven_pairs(hand, shape_limits))
        elif not candidates and is_thirteen_orphans(counts, TERMINALS_AND_HONOURS):
            name = "kokushi_13" if counts[win] == 2 else "kokushi"
            candidates.append(_limit_score(hand, hand.situational_limits + [(name, 1)]))
    if len(candidates) == 1 and candidates[0].win:
        return candidates[0]
    for cand in candidates:
        if not cand.win:
            no_yaku = cand
        elif best is None or (cand.basic, cand.limits, cand.han, cand.fu) > (best.basic, best.limits, best.han,
                                                                               best.fu):
            best = cand
    if best is not None:
        return best
    if no_yaku is not None:
        return no_yaku
    return Score(win=False, reason="not a winning shape: the tiles do not form four sets and a pair, "
                                   "seven pairs or thirteen orphans")
