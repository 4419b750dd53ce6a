"""Score one winning hand: every reading of it, fu and han for each, and the best one.

The input is already checked (:mod:`engine.japanese.request` does that): concealed tile counts including the
winning tile, the declared melds, and how the hand went out. A *reading* is one way to split the concealed
tiles into sets and a pair together with one place for the winning tile in them (pair, pung or a position in
a chow); the rules let the winner pick the reading that pays best, so all are scored and the highest basic
points win (then more han, then more fu).

Patterns are named by stable keys (``YAKU_NAMES`` gives the English of the rules text for each), and the
han of every pattern comes from the :class:`~engine.japanese.rules.Rules`, never from constants here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.japanese.decompose import is_seven_pairs, is_thirteen_orphans, standard_splits
from engine.japanese.points import LIMIT, basic_points, limit_name
from engine.japanese.rules import Rules
from engine.japanese.tiles import (
    GREEN_KINDS,
    IS_TERMINAL_OR_HONOUR,
    TERMINALS_AND_HONOURS,
    WHITE,
    dora_after,
    to_mpsz,
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
}


@dataclass(frozen=True, slots=True)
class Meld:
    """A declared set: ``kind`` is chi, pon, minkan, ankan or kakan; ``first`` its lowest tile kind."""

    kind: str
    first: int

    @property
    def code(self) -> int:
        """The set as an int (see :mod:`engine.japanese.decompose`): chow ``first*2``, pung/kong ``+1``."""
        return self.first * 2 + (self.kind != "chi")

    @property
    def kong(self) -> bool:
        return self.kind in ("minkan", "ankan", "kakan")

    @property
    def concealed(self) -> bool:
        return self.kind == "ankan"


@dataclass(frozen=True, slots=True)
class Situation:
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
    yaku: list[tuple[str, int, int]] = field(default_factory=list)  # (key, han, limits)
    fu_parts: list[tuple[int, str]] = field(default_factory=list)  # (fu, reason text)


class _Hand:
    """Facts about the whole hand that do not depend on the reading, computed once per score."""

    __slots__ = (
        "counts", "melds", "win", "sit", "rules", "menzen", "all_counts", "kinds", "simples", "all_th",
        "honours", "suits", "green", "extra", "situational_limits",
    )

    def __init__(self, counts: list[int], melds: tuple[Meld, ...], win: int, red: int, sit: Situation,
                 rules: Rules) -> None:
        self.counts = counts
        self.melds = melds
        self.win = win
        self.sit = sit
        self.rules = rules
        self.menzen = all(m.kind == "ankan" for m in melds)
        allc = counts[:]
        for m in melds:
            if m.kind == "chi":
                allc[m.first] += 1
                allc[m.first + 1] += 1
                allc[m.first + 2] += 1
            else:
                allc[m.first] += 4 if m.kind != "pon" else 3
        self.all_counts = allc
        kinds = [k for k in range(34) if allc[k]]
        self.kinds = kinds
        self.simples = not any(IS_TERMINAL_OR_HONOUR[k] for k in kinds)
        self.all_th = all(IS_TERMINAL_OR_HONOUR[k] for k in kinds)
        self.honours = kinds[-1] >= 27
        self.suits = {k // 9 for k in kinds if k < 27}
        self.green = all(k in GREEN_KINDS for k in kinds)
        self.extra = self._extras(red)
        self.situational_limits = self._situational_limits()

    def _extras(self, red: int) -> list[tuple[str, int, int]]:
        """Han that every reading shares: the ways of going out and dora (dora alone is no yaku)."""
        sit, rules, menzen = self.sit, self.rules, self.menzen
        out: list[tuple[str, int, int]] = []

        def add(key: str) -> None:
            han = rules.han_of(key, menzen)
            if han:
                out.append((key, han, 0))

        if sit.double_riichi:
            if not rules.double_riichi_replaces_riichi:
                add("riichi")
            add("double_riichi")
        elif sit.riichi:
            add("riichi")
        if sit.ippatsu:
            add("ippatsu")
        if sit.tsumo and menzen:
            add("menzen_tsumo")
        for key in ("haitei", "houtei", "rinshan", "chankan"):
            if getattr(sit, key):
                add(key)
        if self.simples and (menzen or rules.open_tanyao):
            add("tanyao")
        if len(self.suits) == 1:
            add("honitsu" if self.honours else "chinitsu")
        if self.all_th:
            add("honroutou")
        allc = self.all_counts
        indicators = sit.dora_indicators if rules.kan_dora else sit.dora_indicators[:1]
        dora = sum(allc[dora_after(i)] for i in indicators)
        if dora:
            out.append(("dora", dora, -1))
        if red and rules.red_fives:
            out.append(("aka_dora", red, -1))
        if sit.riichi or sit.double_riichi:
            ura_ind = sit.ura_indicators if rules.kan_ura_dora else sit.ura_indicators[:1]
            ura = sum(allc[dora_after(i)] for i in ura_ind) if rules.ura_dora else 0
            if ura:
                out.append(("ura_dora", ura, -1))
        return out

    def _situational_limits(self) -> list[tuple[str, int]]:
        """Limit hands earned by when the hand went out (checked by the request: who, tsumo or ron)."""
        sit, rules = self.sit, self.rules
        out = []
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
            base = next(iter(self.suits)) * 9
            c = self.counts[base:base + 9]
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
                 yaku=[(k, 13 * n, n) for k, n in limits])


def _wind_pair_fu(hand: _Hand, pair: int) -> tuple[int, str]:
    """Fu of the pair and why (dragons, seat wind, round wind; both winds count per the ruleset)."""
    sit = hand.sit
    if pair >= WHITE:
        return 2, "pair of dragons"
    seat, rnd = pair == sit.seat_wind, pair == sit.round_wind
    if seat and rnd:
        return hand.rules.double_wind_pair_fu, "pair of own wind that is also the round wind"
    if seat:
        return 2, "pair of own wind"
    if rnd:
        return 2, "pair of the round wind"
    return 0, ""


def _set_fu(kind: int, concealed: bool, kong: bool) -> tuple[int, str]:
    """Pung of simples 2 fu, doubled for terminals/honours, doubled if concealed, x4 for a kong."""
    th = IS_TERMINAL_OR_HONOUR[kind]
    fu = 2 << (th + concealed + 2 * kong)
    what = "simples" if not th else "terminals" if kind < 27 else "winds" if kind < WHITE else "dragons"
    return fu, f"{'concealed' if concealed else 'melded'} {'kong' if kong else 'pung'} of {what} ({to_mpsz([kind])})"


def _score_standard(hand: _Hand, sets: list[tuple[int, bool, bool]], pair: int, wait: str,
                    all_limits: list[tuple[str, int]]) -> Score:
    """Fu and han of one reading. ``sets``: (code, concealed for fu/triplet purposes, kong) x 4."""
    rules, sit, menzen = hand.rules, hand.sit, hand.menzen
    chows = sorted(code >> 1 for code, _, _ in sets if not code & 1)
    pungs = [(code >> 1, conc, kong) for code, conc, kong in sets if code & 1]

    # --- limit hands that need this reading ------------------------------------------------------------
    limits = list(all_limits)
    concealed_pungs = sum(1 for _, conc, _ in pungs if conc)
    if concealed_pungs == 4:
        limits.append(("suuankou_tanki", 1) if wait == "tanki" else ("suuankou", 1))
    dragons = sum(1 for k, _, _ in pungs if k >= WHITE)
    winds = sum(1 for k, _, _ in pungs if 27 <= k < WHITE)
    if dragons == 3:
        limits.append(("daisangen", 1))
    if winds == 4:
        limits.append(("daisuushii", 1))
    elif winds == 3 and 27 <= pair < WHITE:
        limits.append(("shousuushii", 1))
    kongs = sum(1 for _, _, kong in pungs if kong)
    if kongs == 4:
        limits.append(("suukantsu", 1))
    if rules.four_identical_chows and len(chows) == 4 and chows[0] == chows[3]:
        limits.append(("suushun", 1))
    if limits:
        return _limit_score(hand, limits)

    # --- fu ---------------------------------------------------------------------------------------------
    fu_parts: list[tuple[int, str]] = [(20, FU_REASONS["win"])]
    for kind, conc, kong in pungs:
        fu_parts.append(_set_fu(kind, conc, kong))
    pair_fu, pair_why = _wind_pair_fu(hand, pair)
    if pair_fu:
        fu_parts.append((pair_fu, pair_why))
    if wait in ("kanchan", "penchan", "tanki"):
        fu_parts.append((2, FU_REASONS[wait]))
    pinfu = menzen and not pungs and wait == "ryanmen" and not pair_fu and rules.han_of("pinfu", True)
    if menzen and not sit.tsumo:
        fu_parts.append((10, FU_REASONS["menzen_ron"]))
    if sit.tsumo and not pinfu:
        fu_parts.append((2, FU_REASONS["tsumo"]))
    raw = sum(f for f, _ in fu_parts)
    if raw == 20 and not menzen:
        fu_parts.append((rules.open_no_points_fu, FU_REASONS["open_no_points"]))
        raw += rules.open_no_points_fu
    fu = -(-raw // 10) * 10

    # --- han --------------------------------------------------------------------------------------------
    yaku = _reading_yaku(hand, chows, pungs, pair, pinfu)
    return _finish(hand, yaku, fu, fu_parts)


def _reading_yaku(hand: _Hand, chows: list[int], pungs: list[tuple[int, bool, bool]], pair: int,
                  pinfu: bool) -> list[tuple[str, int, int]]:
    """Han of the patterns that depend on how the hand is split into sets."""
    rules, sit, menzen = hand.rules, hand.sit, hand.menzen
    out: list[tuple[str, int, int]] = []

    def add(key: str, han: int | None = None) -> None:
        han = rules.han_of(key, menzen) if han is None else han
        if han:
            out.append((key, han, 0))

    pung_kinds = [k for k, _, _ in pungs]
    dragon_pungs = [k for k in pung_kinds if k >= WHITE]
    little_dragons = len(dragon_pungs) == 2 and pair >= WHITE
    if not (little_dragons and rules.shousangen_includes_dragons):
        for k in dragon_pungs:
            add(("yakuhai_white", "yakuhai_green", "yakuhai_red")[k - WHITE], rules.han_of("yakuhai", menzen))
    if little_dragons:
        add("shousangen")
    if sit.seat_wind in pung_kinds:
        add("seat_wind", rules.han_of("yakuhai", menzen))
    if sit.round_wind in pung_kinds:
        add("round_wind", rules.han_of("yakuhai", menzen))
    if pinfu:
        add("pinfu")
    if menzen and len(chows) >= 2:
        _identical_chows(rules, chows, add)
    if len(chows) >= 3:
        starts = set(chows)
        for r in range(7):
            if r in starts and r + 9 in starts and r + 18 in starts:
                add("sanshoku")
                break
        for base in (0, 9, 18):
            if base in starts and base + 3 in starts and base + 6 in starts:
                add("ittsu")
                break
    if len(pungs) >= 3:
        suited = {k for k in pung_kinds if k < 27}
        if any(r in suited and r + 9 in suited and r + 18 in suited for r in range(9)):
            add("sanshoku_doukou")
        if sum(1 for _, conc, _ in pungs if conc) == 3:
            add("sanankou")
        if sum(1 for _, _, kong in pungs if kong) == 3:
            add("sankantsu")
        if len(pungs) == 4:
            add("toitoi")
    if chows or not rules.chanta_needs_chow:
        th = IS_TERMINAL_OR_HONOUR
        if th[pair] and all(th[k] for k in pung_kinds) and all(c % 9 in (0, 6) for c in chows):
            add("chanta" if hand.honours else "junchan")
    return out


def _identical_chows(rules: Rules, chows: list[int], add) -> None:
    """Two/three identical chows, or two pairs of them (ryanpeikou where the ruleset knows it)."""
    runs: dict[int, int] = {}
    for c in chows:
        runs[c] = runs.get(c, 0) + 1
    most = max(runs.values())
    pairs = sum(n // 2 for n in runs.values())
    if most == 3 and rules.han_of("isshoku_sanjun", True):
        add("isshoku_sanjun")
    elif pairs == 2 and rules.han_of("ryanpeikou", True):
        add("ryanpeikou")
    elif pairs:
        add("iipeikou")


def _finish(hand: _Hand, yaku: list[tuple[str, int, int]], fu: int, fu_parts: list[tuple[int, str]]) -> Score:
    """Add the shared han, check there is a yaku (dora is none), and look up basic points."""
    extra = hand.extra
    if not yaku and all(limits < 0 for _, _, limits in extra):
        return Score(win=False, reason="no yaku: the hand is a winning shape but no pattern scores")
    yaku = yaku + extra
    han = sum(h for _, h, _ in yaku)
    basic, name = basic_points(han, fu, hand.rules.counted_limit, hand.rules.kiriage)
    return Score(win=True, han=han, fu=fu, basic=basic, limit_name=name, yaku=yaku, fu_parts=fu_parts)


def _placements(hand: _Hand, sets: tuple[int, ...], pair: int):
    """Each place the winning tile can take in a split: yields (sets with flags, wait kind)."""
    win, tsumo = hand.win, hand.sit.tsumo
    melded = [(m.code, m.concealed, m.kong) for m in hand.melds]
    if pair == win:
        yield [(c, bool(c & 1), False) for c in sets] + melded, "tanki"
    seen = set()
    for i, code in enumerate(sets):
        if code in seen:
            continue
        k = code >> 1
        if code & 1:
            if k != win:
                continue
            wait = "shanpon"
        elif k <= win <= k + 2:
            pos = win - k
            rank = k % 9
            if pos == 1:
                wait = "kanchan"
            elif (pos == 0 and rank == 6) or (pos == 2 and rank == 0):
                wait = "penchan"
            else:
                wait = "ryanmen"
        else:
            continue
        seen.add(code)
        flagged = [(c, bool(c & 1) and not (j == i and not tsumo), False) for j, c in enumerate(sets)]
        yield flagged + melded, wait


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
    yaku = [("chiitoitsu", rules.han_of("chiitoitsu", True), 0)]
    return _finish(hand, yaku, 25, [(25, FU_REASONS["seven_pairs"])])


def score(counts: list[int], melds: tuple[Meld, ...], win: int, red: int, sit: Situation, rules: Rules) -> Score:
    """Score a checked hand: the best of all its readings, or why it does not win.

    ``counts``: 34 concealed counts including the winning tile ``win``; ``red``: red fives in the whole hand.
    """
    hand = _Hand(counts, melds, win, red, sit, rules)
    shape_limits = hand.shape_limits()
    best: Score | None = None
    no_yaku: Score | None = None
    candidates: list[Score] = []
    for sets, pair in standard_splits(counts):
        for flagged, wait in _placements(hand, sets, pair):
            candidates.append(_score_standard(hand, flagged, pair, wait, shape_limits))
    if not melds:
        if is_seven_pairs(counts):
            candidates.append(_seven_pairs(hand, shape_limits))
        elif is_thirteen_orphans(counts, TERMINALS_AND_HONOURS):
            name = "kokushi_13" if counts[win] == 2 else "kokushi"
            candidates.append(_limit_score(hand, hand.situational_limits + [(name, 1)]))
    for cand in candidates:
        if not cand.win:
            no_yaku = cand
        elif best is None or (cand.basic, cand.han, cand.fu) > (best.basic, best.han, best.fu):
            best = cand
    if best is not None:
        return best
    if no_yaku is not None:
        return no_yaku
    return Score(win=False, reason="not a winning shape: the tiles do not form four sets and a pair, "
                                   "seven pairs or thirteen orphans")

