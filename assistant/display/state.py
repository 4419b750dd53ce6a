"""What the table display shows, as one JSON snapshot folded from the referee's rulings.

The page re-renders from the whole snapshot on every update rather than applying deltas: a tablet that wakes
up, reconnects or misses a message is then never out of step, and the snapshot is a few kilobytes at most.
Rulings arrive as JSON dicts (``kind``, ``t``, ``seat``, ``data``; ``Ruling.to_json()``), so this module does
not depend on the referee's classes.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from typing import Any

from assistant.display.answers import all_answers
from assistant.profile import SEAT_NAMES as WINDS
from assistant.questions import question_text
from engine.tiles import INDEX, name_or_code

#: Tiles in a complete American Mah Jongg hand: a declared hand this much short of it, with the exposures, was
#: shown as its concealed part alone.
HAND_TILES = 14

WINDOW_WORDS = {
    "open": "Window OPEN: you may call",
    "claim": "Claim pending: wait",
    "closed": "Window CLOSED",
    "none": "No discard yet",
    "over": "Hand over: no more calls",
}


def seat_of(x: Any) -> int | None:
    return x if isinstance(x, int) and 0 <= x < 4 else None


def tiles_json(tiles: Any) -> list[dict]:
    """Tile codes as the page draws them: the code for the picture, the spoken name for its text alternative."""
    return [{"tile": t, "name": name_or_code(t)} for t in tiles or []]


def line_text(line: Any) -> str:
    """A card line for people: "2468 #3: FF 2222 44 66 8888 (25, concealed)", from a dict or a string."""
    if isinstance(line, dict):
        where = f"{line.get('section', '')} #{line.get('number', line.get('line', '?'))}".strip()
        flags = f"{line.get('value', '?')}" + (", concealed" if line.get("concealed") else "")
        return f"{where}: {line.get('text', '')} ({flags})"
    return str(line)


class TableView:
    """Folds rulings (and the pipeline's notes) into the snapshot the display renders."""

    def __init__(self, players: tuple[str, ...] = WINDS) -> None:
        self.players = players
        self.seq = 0
        self.deal = 0  # hands dealt so far: a seat's private hand belongs to one deal (assistant.display.seats)
        self.discard: dict | None = None
        self.turn: int | None = None
        self.window = "none"
        self.seats = [
            {"seat": i, "wind": WINDS[i], "name": players[i] or WINDS[i], "in_play": bool(players[i]),
             "exposures": [], "dead": False, "dead_reason": ""}
            for i in range(4)
        ]
        self.floor: Counter[str] = Counter()  # the discards lying on the table, live one included
        self.declared: dict[int, list[str]] = {}  # seat -> the hand that seat last laid face up
        self.mahjong: dict | None = None
        self.payments: dict | None = None
        self.balances: dict | None = None
        self.help: str = ""
        self.question: dict | None = None  # the open question the camera's evidence raised (engine/referee/doubt.py)
        self.pending = ""  # a correction that would end or restart a game, waiting for an ok (assistant/corrections.py)
        self.status: str = "Waiting for the game to start"
        self.camera: list[str] = []  # the camera check's failures at the start (assistant/startup_check.py)
        self.log: deque[str] = deque(maxlen=12)
        self.last_announcement = ""

    def name(self, seat: Any) -> str:
        try:
            return self.seats[int(seat)]["name"]
        except (TypeError, ValueError, IndexError):
            return "someone"

    def apply(self, ruling: dict) -> bool:
        """Fold one ruling in; True if the display changed."""
        kind, data = ruling.get("kind"), ruling.get("data") or {}
        seat = ruling.get("seat", data.get("seat"))
        if kind == "dealt":  # a new game: clear the table, keep the running balances
            self.deal += 1
            for seat in self.seats:
                seat.update(exposures=[], dead=False, dead_reason="")
            self.discard, self.window, self.mahjong, self.payments, self.help = None, "none", None, None, ""
            self.question = None
            self.floor.clear()
            self.declared.clear()
            self.turn = seat_of(data.get("east", seat))
            self.status = f"Game {data.get('game', '')}: {self.name(self.turn)} is East".replace("Game : ", "")
        elif kind == "window_opened":
            tile = data.get("tile")
            self.discard = {"tile": tile, "name": name_or_code(tile), "seat": seat, "by": self.name(seat),
                            "named": data.get("named")}
            self.floor[tile] += 1  # a reopened window is a withdrawn claim: the tile is back on the floor
            self.window = "open"
            self._say(f"{self.name(seat)} discards {name_or_code(tile)}. Window open.")
        elif kind == "window_closed":
            self.window = "closed"
            self._say("Window closed.")
        elif kind == "claim_pending":
            self.window = "claim"
            what = "Mah Jongg" if data.get("purpose") == "mahjong" else "exposure"
            self._say(f"{self.name(seat)} calls for {what}. Claim pending.")
        elif kind == "claim_awarded":
            # The referee takes the thrown tile off the floor (the ruling names what it was called as).
            if self.discard and self.floor[self.discard["tile"]] > 0:
                self.floor[self.discard["tile"]] -= 1
            self.window = "closed"
            self._say(f"{self.name(seat)} takes {name_or_code(data.get('tile'))}.")
        elif kind == "turn":
            self.turn = seat
            self.status = f"{self.name(seat)}'s turn"
        elif kind == "exposure_accepted":
            self.seats[int(seat)]["exposures"].append(tiles_json(data.get("tiles")))
            self.log.appendleft(f"{self.name(seat)} exposes {' '.join(data.get('tiles') or [])}")
        elif kind == "dead_hand":
            self.seats[int(seat)]["dead"] = True
            self.seats[int(seat)]["dead_reason"] = str(data.get("reason", ""))
            self._say(f"{self.name(seat)}'s hand is dead: {data.get('reason', '')}")
        elif kind == "mahjong_verified":
            self.mahjong = {"ok": True, "seat": seat, "by": self.name(seat), "value": data.get("value"),
                            "jokerless": bool(data.get("jokerless")), "self_picked": bool(data.get("self_picked")),
                            "lines": [line_text(x) for x in data.get("lines") or []], "hand": self._hand(seat)}
            self._hand_over(f"Mah Jongg: {self.name(seat)}, {data.get('value')} points")
            self._say(f"Mah Jongg verified for {self.name(seat)}, {data.get('value')} points.")
        elif kind == "mahjong_in_error":
            self.mahjong = {"ok": False, "seat": seat, "by": self.name(seat), "reason": data.get("reason", ""),
                            "hand": self._hand(seat)}
            self._say(f"Mah Jongg in error: {self.name(seat)}. {data.get('reason', '')}")
        elif kind == "settlement":
            pay = data.get("payments") or {}
            self.payments = {self.name(s): a for s, a in sorted(pay.items(), key=lambda kv: int(kv[0]))}
            bal = data.get("balances") or {}
            self.balances = {self.name(s): a for s, a in sorted(bal.items(), key=lambda kv: int(kv[0]))}
            self.status = "Hand settled"
            self.log.appendleft("Settlement: " + ", ".join(f"{k} {v:+g}" for k, v in self.payments.items()))
        elif kind == "wall_game":
            self._hand_over("Wall game: nobody pays")
            self._say("Wall game.")
        elif kind == "game_over":
            self.status = "Game over"
        elif kind == "rejected":
            self.log.appendleft(f"Rejected: {data.get('reason', '')}")
        elif kind == "help":
            self.help = str(data.get("message", ""))
            self._say(f"Please check: {self.help}" if self.help else "")
        elif kind == "help_cleared":
            self.help = ""
        elif kind == "taken_in":  # a joined game: what the camera found already on the table
            self.floor = Counter(data.get("floor") or [])
            for key, seen in (data.get("seats") or {}).items():
                self.seats[int(key)]["exposures"] = [tiles_json(run) for run in seen.get("exposures") or []]
            self.log.appendleft(str(data.get("message", "")))
        elif kind in ("correction_preview", "correction_pending", "correction_cancelled"):
            self.pending = str(data.get("message", "")) if kind == "correction_pending" else ""
            self._say(str(data.get("message", "")))
        elif kind == "question":
            self.question = {"id": data.get("id"), "seat": seat, "until": data.get("until"),
                             "text": question_text(data, self.name)}
            self._say(f"Please answer: {self.question['text']}")
        elif kind == "question_dropped":
            if self.question is not None and self.question["id"] == data.get("id"):
                self.question = None
            self.log.appendleft(f"Question {data.get('id')} dropped ({data.get('reason', '')}): no penalty")
        elif kind == "exposure_extended":
            exposures = self.seats[int(seat)]["exposures"]
            if 0 <= int(data.get("index", -1)) < len(exposures):
                exposures[int(data["index"])] = tiles_json(data.get("tiles"))
            self.log.appendleft(f"{self.name(seat)} adds {' '.join(data.get('added') or [])} to an exposure")
        elif kind == "confirmed":
            if isinstance(data.get("state"), dict):
                self.sync(data["state"])
            self.log.appendleft(f"Confirmed by a person: question {data.get('id')}")
        elif kind == "corrected":
            self.pending = ""
            if isinstance(data.get("state"), dict):
                self.sync(data["state"])
            self.log.appendleft(f"Corrected ({data.get('action')}): the game was replayed")
        else:
            return False
        self.seq += 1
        return True

    def _hand_over(self, status: str) -> None:
        """The hand has ended: what was news during play (a "Please check" about a discard, an open question,
        whose turn, a window) is moot now and leaves the screen, so the result is what a person sees first."""
        self.help, self.question, self.turn, self.window = "", None, None, "over"
        self.status = status

    def declare(self, seat: int, tiles: Any) -> None:
        """The tiles a player laid face up to declare Mah Jongg (from the event: the rulings on it do not repeat
        them), kept for the verification to show as the winning hand, or the hand in error."""
        self.declared[seat] = list(tiles)

    def _hand(self, seat: Any) -> list[list[dict]]:
        """The declared hand in groups as it lies on the table: the exposures, then the concealed tiles. A hand
        shown whole (all fourteen) is one group, since its exposures are among the tiles shown."""
        i = seat_of(seat)
        tiles = self.declared.get(i, []) if i is not None else []
        if not tiles:
            return []
        exposures = self.seats[i]["exposures"]
        if len(tiles) + sum(len(e) for e in exposures) == HAND_TILES:
            return [list(e) for e in exposures] + [tiles_json(tiles)]
        return [tiles_json(tiles)]

    def sync(self, state: dict) -> None:
        """Take over the referee's observable state (after a correction replayed the game, or a resume), so the
        screen never shows an exposure, a discard or a Mah Jongg that the correction removed."""
        self.floor = Counter(t for seat in state.get("seats") or [] for t in seat.get("discards") or [])
        if state.get("stage") != "over":
            self.mahjong = self.payments = None
        for i, seat in enumerate(state.get("seats") or []):
            if i >= 4:
                break
            self.seats[i]["exposures"] = [tiles_json(e) for e in seat.get("exposures") or []]
            self.seats[i]["dead"] = seat.get("out") is not None
            self.seats[i]["dead_reason"] = seat.get("out_reason") or ""
        self.turn = state.get("turn")
        w = state.get("window")
        if w:
            self.discard = {"tile": w["tile"], "name": name_or_code(w["tile"]), "seat": w["discarder"],
                            "by": self.name(w["discarder"]), "named": w.get("named")}
            self.window = "claim" if w.get("claims") else "open"
        else:
            self.window = "closed" if self.discard else "none"
        if self.turn is not None:
            self.status = f"{self.name(self.turn)}'s turn"
        questions = state.get("questions") or []
        self.question = None
        if questions:
            q = questions[-1]
            self.question = {"id": q["id"], "seat": q.get("seat"), "until": q.get("until"),
                             "text": question_text(q, self.name)}

    def expire_question(self, t: float) -> bool:
        """Take the question off the screen once its time to answer passed (table time ``t``); True if it was."""
        if self.question is None or t <= float(self.question.get("until") or 0.0):
            return False
        self.log.appendleft(f"Question {self.question['id']} dropped (nobody answered): no penalty")
        self.question = None
        self.seq += 1
        return True

    def note(self, text: str) -> None:
        """A line for the on-screen log (corrections, pipeline notices) that is not a ruling."""
        self.log.appendleft(text)
        self.seq += 1

    def camera_warnings(self, lines: list[str]) -> None:
        """The camera check found the camera wanting: shown until the session ends (the camera stays as it is
        unless someone moves it or the light, and then `mahj setup camera` is the check to run)."""
        self.camera = list(lines)
        self.seq += 1

    def _say(self, text: str) -> None:
        self.last_announcement = text
        if text:
            self.log.appendleft(text)

    def snapshot(self) -> dict:
        return {
            "seq": self.seq, "published_ms": time.time() * 1000.0, "deal": self.deal,
            "discard": self.discard, "turn": self.turn, "turn_name": self.name(self.turn) if self.turn is not None
            else "", "window": {"state": self.window, "words": WINDOW_WORDS[self.window]},
            "floor": [{"tile": t, "name": name_or_code(t), "count": n}
                      for t, n in sorted(self.floor.items(), key=lambda kv: INDEX.get(kv[0], len(INDEX))) if n > 0],
            "floor_total": sum(self.floor.values()),
            "seats": self.seats, "mahjong": self.mahjong, "payments": self.payments, "balances": self.balances,
            "help": self.help, "camera": self.camera, "question": self.question, "pending": self.pending,
            "status": self.status,
            "log": list(self.log), "announce": self.last_announcement, "answers": all_answers(self),
        }
