"""Shared helpers for the referee tests: the sample card, the built-in profiles and a scripted table."""

from __future__ import annotations

from functools import cache

from engine.card import SAMPLE_CARD, Card, load_card
from engine.referee import Referee, Ruling, events, parse_profile
from engine.referee.profile import PROFILES_DIR, ScoringProfile

# Hands of the sample card used throughout (value 25 unless noted).
EVENS = "F F 2B 2B 2B 2B 4B 4B 6B 6B 8B 8B 8B 8B".split()  # 2468 #2 "FF 2222 44 66 8888" X25
WINDS = "F F N N N E E E W W W S S S".split()  # Winds and Dragons #1 "FF NNN EEE WWW SSS" X25
PAIRS = "1B 1B 2B 2B 3B 3B 4B 4B 5B 5B 6B 6B 7B 7B".split()  # Singles and Pairs #2, C50


@cache
def card() -> Card:
    return load_card(SAMPLE_CARD)


@cache
def profile(name: str = "nmjl") -> ScoringProfile:
    return parse_profile((PROFILES_DIR / f"{name}.toml").read_text(encoding="utf-8"), f"{name}.toml")


class Table:
    """A referee plus a clock: ``table("discard", seat=0, tile="3B")`` applies one event and returns rulings."""

    def __init__(self, rules: str | ScoringProfile = "nmjl", players: int = 4, card_: Card | None = None) -> None:
        """``rules``: a built-in profile's name or a parsed profile."""
        rules = profile(rules) if isinstance(rules, str) else rules
        self.ref = Referee(card_ or card(), rules, players)
        self.t = 0.0
        self.rulings: list[Ruling] = []

    def __call__(self, kind: str, /, **fields) -> list[Ruling]:
        if "t" not in fields:
            self.t += 1.0
            fields["t"] = self.t
        event = events.from_json({"type": kind, **fields})
        out = self.ref.apply(event)
        self.rulings += out
        return out

    def start(self, charleston: str = "stop") -> None:
        """Deal and run the Charleston: "stop" after the first left, "full" both, "none" (3 players)."""
        self("deal")
        if self.ref.players == 3 or charleston == "none":
            return
        steps = ("right", "across", "left") + (("left", "across", "right") if charleston == "full" else ())
        for direction in steps:
            for seat in range(4):
                self("charleston_pass", seat=seat, direction=direction)
        if charleston == "stop":
            self("charleston_stop", seat=1)

    def turn(self, seat: int, tile: str = "N", rack: bool = True) -> list[Ruling]:
        """``seat`` picks (if it has to), racks and discards ``tile``, naming it."""
        out: list[Ruling] = []
        if self.ref.phase.value == "wait_pick":
            out += self("pick", seat=seat)
            if rack:
                out += self("rack", seat=seat)
        return out + self("discard", seat=seat, tile=tile, named=tile)


    def expose(self, seat: int, tiles: list[str]) -> list[Ruling]:
        """``seat`` calls the live discard for an exposure and places ``tiles`` on the rack."""
        return self("claim", seat=seat, purpose="exposure") + self("exposure", seat=seat, tiles=tiles)


def joker_on_wests_rack() -> Table:
    """The usual start of the joker-exchange rules: East throws 3 Bam, West (2) calls it and exposes 3B 3B J,
    then throws North; it is North's (3) turn, with a joker to redeem for a 3 Bam on West's rack."""
    g = Table()
    g.start()
    g.turn(0, "3B")
    g.expose(2, ["3B", "3B", "J"])
    g.turn(2, "N")
    return g


def south_calls_twice(first: str, second: str, rules: str = "mahjcon") -> Table:
    """East throws ``first``; South (1) calls it, exposes a pung and throws 1 Dot; West throws ``second`` and South
    calls and exposes a pung of it too. South holds two exposures and must now discard (or declare)."""
    g = Table(rules)
    g.start()
    g.turn(0, first)
    g.expose(1, [first] * 3)
    g.turn(1, "1D")
    g.turn(2, second)
    g.expose(1, [second] * 3)
    return g


def kinds(rulings: list[Ruling]) -> list[str]:
    return [r.kind for r in rulings]


def only(rulings: list[Ruling], kind: str) -> Ruling:
    found = [r for r in rulings if r.kind == kind]
    assert len(found) == 1, f"expected one {kind} in {kinds(rulings)}"
    return found[0]


def payments(rulings: list[Ruling]) -> dict[int, int]:
    """The one settlement among ``rulings``, as {seat: amount} (the JSON keeps seats as strings)."""
    return {int(k): v for k, v in only(rulings, "settlement").data["payments"].items()}
