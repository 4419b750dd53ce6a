"""A camera table's side of tournament mode (``mahj watch --tournament URL --table N --token T``).

The reporter follows the referee's rulings; when a game ends it writes the game's report to a queue file next
to the journal (fsynced) and a background thread sends it. A report keeps its client id for every resend, so
the server counts it once however often the network drops; the queue survives a restart of ``mahj watch``
and is sent on from where it stopped. Only the standard library is used here (no database on a table's
computer).

Each queued report records whom it was made for: the server's address, the tournament (its name and ``event``
identity, when the server could be reached) and the table and token. A report is sent only to the tournament it
was made for: the same event, or, when it was queued before the event could be learnt, the same table token
(a new tournament issues new tokens). A report left from another event (or from a version of mahj that did
not record it) is never sent: it stays in the queue file, and the table is told so and whose it is.

Chairs map to seat letters as the tournament numbers them: chair 0 (East of the table's first game) is A, then
B, C, D counter-clockwise; at a 3-player table the chairs take the table's three letters in order.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.referee.rotation import LETTERS

TIMEOUT_S = 5.0
#: Answers that refuse only for now (the request came too slowly; too many connections from this address): the
#: report stays queued and is sent again, as after a 5xx. Any other 4xx refuses it for good.
AGAIN = (408, 429)
BACKOFF_S = (0.5, 1, 2, 5, 10, 30)
OUTCOMES = {"mahjong": "mahjong", "wall_game": "wall_game", "time": "time", "last_survivor": "last_survivor",
            "all_dead": "all_out", "three_dead": "all_out"}


def made_for(server: str, table: int, token: str, event: str | None = None, tournament: str | None = None) -> dict:
    """Whom a report is made for, as its queue line records it (the token as a digest: never the token)."""
    return {"server": server.rstrip("/"), "tournament": tournament, "event": event, "table": table,
            "token": hashlib.sha256(token.encode()).hexdigest()[:16]}


def same_event(made: dict | None, here: dict) -> bool:
    """Whether a report made for ``made`` (None: a queue line that does not say) belongs to the tournament of
    ``here``: the same event when both know it, else the same table token."""
    if not made:
        return False
    if made.get("event") and here.get("event"):
        return made["event"] == here["event"]
    return made.get("token") == here["token"] and made.get("table") == here["table"]


def whose(made: dict | None) -> str:
    """A queued report's tournament, in words."""
    if not made:
        return "a tournament this queue did not record (queued by an older mahj)"
    name = repr(made["tournament"]) if made.get("tournament") else "a tournament"
    return f"{name} at {made.get('server')}"


class Queue:
    """Reports waiting for the server, as JSON Lines: ``{"report": ..., "for": made_for(...)}`` when queued,
    ``{"done": client_id, "answer": ...}`` when the server answered (counted, agreed, disputed or refused).
    Nothing is ever removed from the file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.reports: dict[str, dict] = {}
        self.made_for: dict[str, dict | None] = {}
        self.answers: dict[str, dict] = {}
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut short by a crash: its report was never acknowledged as queued
                if "report" in rec:
                    self.reports[rec["report"]["client_id"]] = rec["report"]
                    self.made_for[rec["report"]["client_id"]] = rec.get("for")
                elif "done" in rec:
                    self.answers[rec["done"]] = rec.get("answer", {})

    def _append(self, rec: dict) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(rec) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def add(self, report: dict, made: dict) -> None:
        """Queue ``report``, made for ``made`` (``made_for``)."""
        with self.lock:
            self._append({"report": report, "for": made})
            self.reports[report["client_id"]] = report
            self.made_for[report["client_id"]] = made

    def done(self, client_id: str, answer: dict) -> None:
        with self.lock:
            self._append({"done": client_id, "answer": answer})
            self.answers[client_id] = answer

    def pending(self, here: dict) -> list[dict]:
        """The reports made for the tournament of ``here`` that the server has not answered yet."""
        with self.lock:
            return [r for c, r in self.reports.items() if c not in self.answers and same_event(self.made_for[c], here)]

    def elsewhere(self, here: dict) -> dict[str, int]:
        """Unanswered reports made for another tournament than ``here``'s: how many for each, in words."""
        with self.lock:
            out: dict[str, int] = {}
            for c in self.reports:
                if c not in self.answers and not same_event(self.made_for[c], here):
                    out[whose(self.made_for[c])] = out.get(whose(self.made_for[c]), 0) + 1
            return out

    def last_place(self, here: dict) -> tuple[int, int] | None:
        """The latest (round, game) queued for the tournament of ``here``."""
        with self.lock:
            places = [(r["round"], r["game"]) for c, r in self.reports.items() if same_event(self.made_for[c], here)]
        return max(places) if places else None


class Sender:
    """Talks to the tournament server: the table's round and games, and posting one report."""

    def __init__(self, base_url: str, table: int, token: str) -> None:
        self.base, self.table, self.token = base_url.rstrip("/"), table, token
        self.here = made_for(self.base, table, token)  # the event and name are learnt from the server

    def learn(self, view: dict) -> None:
        """Take the tournament's name and event from its table view."""
        self.here = made_for(self.base, self.table, self.token, view.get("event"), view.get("tournament"))

    def _request(self, path: str, body: dict | None = None) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method="POST" if data else "GET",
                                     headers={"Authorization": f"Bearer {self.token}",
                                              "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=TIMEOUT_S) as res:
                return res.status, json.loads(res.read() or b"{}")
        except urllib.error.HTTPError as exc:
            try:
                return exc.code, json.loads(exc.read() or b"{}")
            except json.JSONDecodeError:
                return exc.code, {"error": exc.reason}

    def table_view(self) -> dict:
        """Round, seats and counted games; raises OSError when the server cannot be reached."""
        status, data = self._request(f"/api/table/{self.table}")
        if status != 200:
            raise OSError(data.get("error", f"HTTP {status}"))
        self.learn(data)
        return data

    def identify(self) -> bool:
        """Learn which tournament answers at this address now (a refused token learns nothing, and the reports
        are then matched by token); False when the server cannot be reached."""
        try:
            status, data = self._request(f"/api/table/{self.table}")
        except (OSError, ValueError):
            return False
        if status == 200:
            self.learn(data)
        return status < 500

    def post(self, report: dict) -> tuple[int, dict]:
        return self._request("/api/reports", report)


class TableReporter:
    """Builds a report from each finished game's rulings and sends it, queueing while the server is away.

    ``hand_of(seat)``: the tiles that seat laid down when declaring (the display's copy), or None.
    ``seats()``: the referee's seats as the game ends (``Referee.snapshot()["seats"]``): who is out and what each
    exposed come from there, after every correction and replay, not from the rulings as they went by.
    ``say(text)``: where to tell the table what happened to a report.
    """

    def __init__(self, sender: Sender, queue: Queue, *, round_no: int | None = None, game: int | None = None,
                 hand_of: Callable[[int], list[str] | None] = lambda seat: None,
                 seats: Callable[[], list[dict]] = list, say: Callable[[str], Any] = print) -> None:
        self.sender, self.queue, self.hand_of, self.seats, self.say = sender, queue, hand_of, seats, say
        self._told: str | None = None  # the tournament whose foreign reports were last told about
        self.letters = list(LETTERS)
        self.round, self.game = round_no, game
        try:
            view = sender.table_view()
        except OSError as exc:
            view = None
            say(f"tournament server not reachable ({exc}); reports wait in {queue.path}")
        if view is not None:
            self.letters = list(view["seats"]) or self.letters
            if self.round is None:
                self.round = view["round"]
            if self.game is None:
                counted = {int(g) for g in view["counted"]}
                last = queue.last_place(sender.here)
                done = max(counted | ({last[1]} if last and last[0] == self.round else set()), default=0)
                self.game = done + 1
        self._tell_elsewhere()
        last = queue.last_place(sender.here)
        if self.round is None:
            self.round = last[0] if last else 1
        if self.game is None:
            self.game = last[1] + 1 if last and last[0] == self.round else 1
        self._reset()
        self._wake = threading.Event()
        self._sending = threading.Lock()  # the thread and close() never send the same report at once
        self._stop = False
        self._thread = threading.Thread(target=self._send_loop, name="tournament-reports", daemon=True)
        self._thread.start()

    def _reset(self) -> None:
        self.penalties: list[tuple[int, str]] = []
        self.win: dict | None = None
        self.survivor: int | None = None
        self.east: int | None = None

    def letter(self, seat: int) -> str:
        return self.letters[seat]

    def ruling(self, r: Any) -> None:
        """Follow one ruling (``engine.referee.Ruling``); a game_over queues the game's report."""
        kind, data = r.kind, r.data
        if kind == "dealt":
            self._reset()
            self.east = data.get("east")
        elif kind == "penalty" and data.get("kind") == "blind_pass_peek":
            self.penalties.append((r.seat, "blind_pass_peek"))
        elif kind == "mahjong_verified":
            self.win = dict(data)
        elif kind == "last_survivor":
            self.survivor = data.get("seat")
        elif kind == "game_over":
            self._finished(data.get("reason", ""))

    def _finished(self, reason: str) -> None:
        outcome = OUTCOMES.get(reason)
        if outcome is None:  # a redeal is no game; a destroyed wall is the director's call
            if reason != "redeal":
                self.say(f"game ended by {reason}: report it on the table's score page")
            return
        seats = self.seats()
        outs = {i: s.get("out") for i, s in enumerate(seats)}
        report: dict[str, Any] = {
            "round": self.round, "table": self.sender.table, "game": self.game, "client_id": uuid.uuid4().hex,
            "source": "camera", "outcome": outcome,
            "dead": [self.letter(i) for i, out in outs.items() if out in ("dead", "threw_in")],
            "in_error": [self.letter(i) for i, out in outs.items() if out == "mahjong_in_error"],
            "penalties": [{"seat": self.letter(s), "kind": k} for s, k in self.penalties]}
        if self.east is not None and len(self.letters) == 3 and (self.game or 0) > 3:
            report["east"] = self.letter(self.east)
        if outcome == "mahjong" and self.win is not None:
            report |= self._win_fields(self.win, seats)
        if outcome == "last_survivor" and self.survivor is not None:
            report["survivor"] = self.letter(self.survivor)
        self.queue.add(report, self.sender.here)
        self.say(f"game {self.game} of round {self.round}: report queued for the tournament")
        self.game = (self.game or 0) + 1
        self._wake.set()

    def _win_fields(self, win: dict, seats: list[dict]) -> dict[str, Any]:
        seat = win["seat"]
        shown = [list(g) for g in seats[seat].get("exposures", [])] if seat < len(seats) else []
        out: dict[str, Any] = {"winner": self.letter(seat), "self_picked": bool(win.get("self_picked")),
                               "exposures": len(shown), "quint": any(len(g) >= 5 for g in shown),
                               "misnamed": bool(win.get("misnamed")), "jokerless": bool(win.get("jokerless"))}
        if not out["self_picked"] and win.get("discarder") is not None:
            out["discarder"] = self.letter(win["discarder"])
        best = (win.get("lines") or [{}])[0]
        out["line"] = {"section": best.get("section"), "number": best.get("number")}
        tiles = self.hand_of(seat)
        if tiles and not out["misnamed"]:  # a misnamed win was verified with the named tile, not the one shown
            concealed = Counter(tiles)
            if len(tiles) == 14:  # the whole hand shown: the exposures are among its tiles
                concealed -= Counter(t for g in shown for t in g)
            out["hand"] = {"concealed": " ".join(sorted(concealed.elements())), "exposed": [" ".join(g) for g in shown]}
        return out

    def _tell_elsewhere(self) -> None:
        """Say, once per tournament learnt, which queued reports were made for another one (kept, not sent)."""
        key = self.sender.here.get("event") or self.sender.here["token"]
        if key == self._told:
            return
        self._told = key
        for who, n in self.queue.elsewhere(self.sender.here).items():
            self.say(f"{n} queued report(s) in {self.queue.path} were made for {who}, not this tournament: they "
                     "are not sent here and stay in that file (give them to that event's director)")

    def _send_loop(self) -> None:
        tries = 0
        while not self._stop:
            pending = self.queue.pending(self.sender.here)
            if not pending:
                self._wake.wait(timeout=5.0)
                self._wake.clear()
                continue
            if self.flush_once():
                tries = 0
            else:
                self._wake.wait(timeout=BACKOFF_S[min(tries, len(BACKOFF_S) - 1)])
                self._wake.clear()
                tries += 1

    def flush_once(self) -> bool:
        """Send every pending report once; False if the server could not be reached (they stay queued)."""
        with self._sending:
            return self._flush()

    def _flush(self) -> bool:
        if not self.sender.identify():
            return False
        self._tell_elsewhere()
        for report in self.queue.pending(self.sender.here):
            try:
                status, answer = self.sender.post(report)
            except (OSError, urllib.error.URLError):
                return False
            if status >= 500 or status in AGAIN:
                return False
            self.queue.done(report["client_id"], answer | {"http": status})
            where = f"game {report['game']} of round {report['round']}"
            if status == 200:
                self.say(f"{where}: {answer.get('status')} by the tournament")
            else:  # refused for good (a stale token, a hand that does not verify): the director must look
                self.say(f"{where} refused by the tournament: {answer.get('error', status)}; report it on the "
                         "table's score page")
        return True

    def close(self, wait_s: float = 3.0) -> None:
        """Try to send what is queued for up to ``wait_s``; what is left stays in the queue for next time."""
        end = time.monotonic() + wait_s
        while self.queue.pending(self.sender.here) and time.monotonic() < end:
            if not self.flush_once():
                break
        self._stop = True
        self._wake.set()
        self._thread.join(timeout=2.0)
        left = len(self.queue.pending(self.sender.here))
        if left:
            self.say(f"{left} tournament report(s) not sent yet; they are kept in {self.queue.path} and sent next "
                     "time mahj watch runs with --tournament")
