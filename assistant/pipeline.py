"""The assistant's pipeline: frames -> table reading -> referee -> board, display, speech, console and journal.

``Assistant`` owns the referee and fans every ruling out. The order is deliberate: the board first (the window
LED is the one output with a latency target), then the display, then speech (only enqueued: a slow synthesiser
never holds anything up), then the console. Every event is journaled *before* it is applied, fsynced, so a
crash or Ctrl-C loses nothing: a restart replays the journal into a fresh referee (``resume``) and the game
goes on where it was.

Everything people do (corrections, claims from the display, the keyboard or the board's call buttons) arrives on
other threads; it is queued in ``inbox`` and applied on the pipeline thread between frames, so the referee is
only ever touched by one thread.
A board call button pressed briefly is a claim for its seat; held for 1.5 s (the board's HOLD event) it is an
undo, the same journaled correction as the keyboard's ``u``.

``run`` drives the whole thing from a frame source through a ``TableReader`` (vision), calling back once per
frame so a caller can draw annotations or measure.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from assistant.corrections import PENDING_SECONDS, ends_or_restarts, what_changes
from assistant.display.state import TableView
from assistant.journal import CatchUp
from assistant.observations import WallEnds, convert
from assistant.questions import UNTRUSTED_SOURCES, question_for, trusted
from assistant.taken_in import taken_in
from engine.referee import events as rev
from engine.referee.rulings import Ruling
from hardware.signals import BoardState
from vision import events as vev

#: What the camera cannot see: the Charleston is passed face down. A watched game starts after it, so the
#: pipeline records the first Charleston and a stop as assumed (journaled with source "assumed").
ASSUMED_CHARLESTON = ("right", "across", "left")
#: The same help request is shown and spoken again only after this many seconds.
HELP_REPEAT_S = 15.0


@dataclass
class Timing:
    """Wall-clock (time.monotonic) marks for the figures: when a frame was shown and when its rulings went out."""

    #: (ruling, signalled at, frame) for every window close this session signalled (none while a resume catches up)
    window_closed: list[tuple[Ruling, float, int]] = field(default_factory=list)
    frames: int = 0
    frame_seconds: float = 0.0


class Assistant:
    """Applies events to the referee and sends the rulings everywhere. Outputs are optional (None = off).

    ``board``: hardware Board (``signal(ruling)``, ``events()``); ``speaker``: speech.Speaker; ``display``:
    display.DisplayServer; ``console``: outputs.Console; ``journal``: a writer with ``append(record)``.
    """

    def __init__(self, referee: Any, players: tuple[str, ...], *, journal: Any = None, board: Any = None,
                 speaker: Any = None, display: Any = None, console: Any = None) -> None:
        self.referee = referee
        self.players = players
        self.journal = journal
        self.board = board
        self.speaker = speaker
        self.display = display
        self.console = console
        self.view = TableView(players)
        self.inbox: queue.Queue[dict] = queue.Queue()
        self.timing = Timing()
        self.frame = -1
        self.t = 0.0
        self.rulings: list[Ruling] = []
        self.catch_up: CatchUp | None = None  # while a resumed game is rebuilt (resume)
        self.game_started = False
        self.wall_ends = WallEnds()
        self._last_notice: tuple[tuple, float] = ((), -1e9)
        self._press_claims: dict[int, tuple[int, rev.Claim]] = {}  # seat -> (first contact ms, that press's claim)
        self.join: dict | None = None  # {east, turn, wall} (None: not known): the first game is joined in progress
        self.taking_in: float | None = None  # joined at this table time: what the reader takes in is yet to be said
        self.pending: tuple[dict, float] | None = None  # a correction that would end or restart a game: (request, t)
        self.reporter: Any = None  # tournament mode: follows the rulings and reports each finished game

    def name(self, seat: int | None) -> str:
        return self.view.name(seat)

    # --- the game ---------------------------------------------------------------------------------------
    def start_game(self, t: float = 0.0) -> list[Ruling]:
        """Deal and the Charleston the camera cannot see (a 3-player table has none); afterwards East's first
        discard is expected. With ``join`` set, the game is joined in progress instead: what a person said of it
        (options of ``mahj watch --join``) is trusted, and what nobody said is asked for on the display."""
        if self.join is not None:
            join, self.join = self.join, None
            told = {k: v for k, v in join.items() if v is not None}
            out = self.apply(rev.Join(t, **told), source="command line" if told else "assumed")
            self.wall_ends = WallEnds()
            self.game_started = True
            self.taking_in = t
            missing = [w for w, k in (("who is East", "east"), ("whose turn it is", "turn"),
                                      ("about how many wall tiles are left", "wall")) if k not in told]
            if missing:
                self.notice(Ruling("help", t, None, {"message": "mahj joined a game in progress: tell it "
                                                     + ", ".join(missing) + " (keys: east SEAT, turn SEAT, wall N; "
                                                     "or the display's Joined game form)", "source": "join"}))
            return out
        out = self.apply(rev.Deal(t), source="assumed")
        self.wall_ends = WallEnds()
        for event in self.assumed_charleston(t):
            out += self.apply(event, source="assumed", quiet=True)
        self.game_started = True
        return out

    def assumed_charleston(self, t: float) -> list[rev.Event]:
        """The Charleston journaled as assumed after a deal: three passes by every seat and a stop (none at a
        3-player table)."""
        if self.referee.players != 4:
            return []
        passes: list[rev.Event] = [rev.CharlestonPass(t, seat, direction) for direction in ASSUMED_CHARLESTON
                                   for seat in range(self.referee.players)]
        return [*passes, rev.CharlestonStop(t, 0)]

    def apply(self, event: rev.Event, source: str = "camera", quiet: bool = False) -> list[Ruling]:
        """Journal the event, rule on it, and send the rulings out."""
        if self.journal is not None:
            self.journal.append({"kind": "event", "source": source, "frame": self.frame,
                                 "event": rev.to_json(event)})
        if self.console is not None and not quiet and self.catch_up is None:
            self.console.event(event, source)
        return self._ruled(event, source, quiet)

    def _ruled(self, event: rev.Event, source: str | None, quiet: bool = False) -> list[Ruling]:
        """Rule on a journaled event (``source``: whose evidence it is): the rulings journaled, then sent out."""
        rulings = self._rule(event, trusted(source))
        if self.journal is not None:
            self.journal.append({"kind": "rulings", "frame": self.frame, "rulings": [r.to_json() for r in rulings]})
        for r in rulings:
            self._send(r, quiet=quiet)
        self.rulings += rulings
        return rulings

    def _rule(self, event: rev.Event, trusted: bool) -> list[Ruling]:
        """The referee's rulings on ``event`` (``trusted``: a person's evidence; the camera's penalties are only
        asked). A declared hand's tiles go to the display first: the rulings on it do not repeat them, and the
        display shows the winning hand (or the hand in error)."""
        shown = event.event if isinstance(event, rev.Correction) and event.event else rev.to_json(event)
        if shown.get("type") == "mahjong_declared":  # declared, or a misread tile of it corrected
            self.view.declare(shown["seat"], shown["tiles"])
        return self.referee.apply(event, trusted=trusted)

    def notice(self, n: Ruling) -> None:
        """Journal a notice and show/speak it, unless the very same help request went out moments ago (the
        reader may repeat a question every frame until someone looks)."""
        if self.journal is not None:
            self.journal.append({"kind": "notice", "frame": self.frame, "notice": n.to_json()})
        key = (n.kind, n.data.get("message"))
        if key == self._last_notice[0] and n.t - self._last_notice[1] < HELP_REPEAT_S:
            return
        self._last_notice = (key, n.t)
        self._send(n)

    def _send(self, r: Any, quiet: bool = False) -> None:
        if self.catch_up is not None:  # rebuilding a resumed game: it went out before the crash
            self.view.apply(r.to_json())
            return
        if r.kind == "window_closed":
            self.timing.window_closed.append((r, time.monotonic(), self.frame))
        if self.board is not None:
            if r.kind in ("corrected", "confirmed", "question_dropped"):  # the (replayed) game's lights again
                self.board.set_leds(board_state_from(r.data.get("state") or self.referee.snapshot()))
            self.board.signal(r)
        if self.view.apply(r.to_json()) and self.display is not None:
            self.display.publish(self.view.snapshot())
        if self.speaker is not None:  # a quiet ruling is not said but still ends what it makes untrue
            self.speaker.announce(r, self.name, say=not quiet)
        if self.console is not None and not quiet:
            self.console.ruling(r, self.board)
        if self.reporter is not None:
            self.reporter.ruling(r)

    # --- what the camera saw ------------------------------------------------------------------------------
    def observe(self, observations: Iterable[Any]) -> None:
        for obs in observations:
            if self.console is not None and self.catch_up is None:
                self.console.observation(obs)
            if self.journal is not None:
                self.journal.append({"kind": "observation", "frame": self.frame, "observation": obs.to_json()})
            if getattr(obs, "type", "") == "discard_down" and self.referee.stage.value == "over":
                # The next game's first discard: the walls were built and the Charleston passed unseen.
                self.start_game(obs.t)
            for item in convert(obs, self.referee, self.wall_ends):
                if isinstance(item, Ruling):
                    self.notice(item)
                else:
                    self.apply(item, source="camera")

    def take_in(self, reader: Any) -> None:
        """After a join, say once what the reader took in from the table (assistant.taken_in), when it has."""
        seen = taken_in(reader, self.taking_in, self.t) if self.taking_in is not None else None
        if seen is not None:
            self.taking_in = None
            self.notice(Ruling("taken_in", self.t, None, seen))

    def expectation(self) -> dict:
        """What the referee expects, for the table reader's tie-breaks (whose turn, concealed counts). In a game
        joined in progress the counts are unknown (exposures made before mahj came are among them): none given."""
        counts = None if self.referee.joined else {i: s.concealed for i, s in enumerate(self.referee.seats)}
        return {"turn": self.referee.turn, "rack_counts": counts}

    # --- people -------------------------------------------------------------------------------------------
    def request(self, correction: dict) -> dict:
        """Thread-safe: queue a checked correction (see display.app.check_correction) for the pipeline thread."""
        self.inbox.put({"source": "display"} | correction)
        what = {"undo": "Undo", "fix_tile": f"Correction to {correction.get('tile')}",
                "fix_hand": f"Correction of {correction.get('tile')} to {correction.get('as')}",
                "claim": "Claim", "answer": "Answer", "join": "What you said of the game", "ok": "OK",
                "cancel": "Cancel"}[correction["action"]]
        return {"message": f"{what} received."}

    def handle_requests(self) -> None:
        """Apply queued corrections and claims (pipeline thread). Board call buttons are polled here too.

        While a resumed recording is rebuilt, the requests people made at this frame come from the journal and
        new ones wait until the game has caught up."""
        if self.catch_up is not None:
            self.replay_journaled(self.frame)
            if self.catch_up is not None:
                return
        if self.board is not None:
            for press in self.board.events():
                if press.held:  # the undo gesture
                    self.inbox.put({"action": "undo", "source": "board", "seat": press.seat,
                                    "press_ms": press.board_ms})
                    continue
                if question_for(self.referee.open_questions(self.t), seat=press.seat) is not None:
                    # A question about her seat is open: her button says yes (the table agrees it is so).
                    self.inbox.put({"action": "answer", "seat": press.seat, "confirmed": True, "source": "board"})
                    continue
                # The press's own moment matters: a call at the same instant as the rack goes to the caller.
                t = self.t - (time.monotonic() - press.t) if press.t is not None else self.t
                self.inbox.put({"action": "claim", "seat": press.seat, "purpose": "exposure", "source": "board",
                                "t": t, "press_ms": press.board_ms})
        if self.view.expire_question(self.t):
            if self.display is not None:
                self.display.publish(self.view.snapshot())
            if self.board is not None:
                self.board.set_leds(board_state_from(self.referee.snapshot()))
        while True:
            try:
                c = self.inbox.get_nowait()
            except queue.Empty:
                return
            if "press_ms" in c and c["action"] == "undo" and not self._withdraw_press_claim(c):
                continue
            if c["action"] in ("ok", "cancel"):
                c = self._take_pending(c)
                if c is None:
                    continue
            event = self.correction_event(c)
            if event is None:
                what = {"answer": "no open question to answer",
                        "fix_hand": f"no hand shown holds {c.get('tile')}"}.get(c["action"], "nothing to correct yet")
                self.notice(Ruling("help", self.t, None, {"message": what}))
                continue
            if isinstance(event, rev.Correction) and not self._said_first(event, c):
                continue
            self.apply(event, source=c["source"])
            taken = bool(self.referee.events) and self.referee.events[-1] is event
            if "press_ms" in c and c["action"] == "claim" and taken:
                self._press_claims[c["seat"]] = (c["press_ms"], event)

    def _withdraw_press_claim(self, hold: dict) -> bool:
        """A held button was first a short press, and its claim may already stand: that claim is the player's
        finger on the way to the undo, not a call, so it is undone first. Returns False (and asks for help) when
        other moves already came after that claim, where one undo would remove the wrong ruling."""
        press_ms, claim = self._press_claims.pop(hold["seat"], (None, None))
        if claim is None or press_ms != hold["press_ms"] or not any(e is claim for e in self.referee.events):
            return True
        if self.referee.events[-1] is claim:
            self.apply(rev.Correction(self.t, "undo"), source="board")
            hold["withdrawn"] = True  # the gesture's own undo: the next one takes back a move, not this one
            return True
        self.notice(Ruling("help", self.t, hold["seat"], {
            "message": f"{self.name(hold['seat'])}'s button was held while play went on: nothing undone "
                       "(undo from the keyboard or the display)"}))
        return False

    def correction_event(self, c: dict) -> rev.Event | None:
        """The referee event for a person's request: undo, replace the last discard's tile or a tile of the last
        hand shown, a claim, or an answer to an open question (the one numbered, else the newest about the seat,
        else the newest). None when there is nothing it could be about."""
        if c["action"] == "undo":  # the last thing people saw: a correction (or answer) if it came after the event
            revert = self.referee.can_revert() and not c.get("withdrawn")
            return rev.Correction(self.t, "revert" if revert else "undo")
        if c["action"] == "join":
            return rev.Join(self.t, c.get("east"), c.get("turn"), c.get("wall"))
        if c["action"] == "answer":
            q = question_for(self.referee.open_questions(self.t), seat=c.get("seat"), index=c.get("id"))
            return None if q is None else rev.Answer(self.t, q.index, bool(c.get("confirmed", True)))
        if c["action"] == "claim":
            return rev.Claim(c.get("t", self.t), int(c["seat"]), c.get("purpose", "exposure"))
        kind = rev.MahjongDeclared if c["action"] == "fix_hand" else rev.Discard
        index = next((i for i in range(len(self.referee.events) - 1, -1, -1)
                      if isinstance(self.referee.events[i], kind)), None)
        if index is None:
            return None
        old = rev.to_json(self.referee.events[index])
        if kind is rev.Discard:
            return rev.Correction(self.t, "fix", index=index, event=old | {"tile": c["tile"]})
        if c["tile"] not in old["tiles"]:
            return None
        tiles = list(old["tiles"])
        tiles[tiles.index(c["tile"])] = c["as"]  # the camera read this tile of the hand shown wrong
        return rev.Correction(self.t, "fix", index=index, event=old | {"tiles": tiles})

    def _said_first(self, event: rev.Correction, c: dict) -> bool:
        """Say what a correction will change before it applies (True: apply it now). One that would end or restart
        a game waits for an ok (keyboard ``ok``, the display's Apply) instead: False."""
        rulings, after = self.referee.preview(event)
        corrected = next((r for r in rulings if r.kind == "corrected"), None)
        if corrected is None:  # refused: applying it shows why, and changes nothing
            return True
        before = self.referee.snapshot()
        text = what_changes(event.action, corrected.data.get("event"), before, after, self.name)
        if ends_or_restarts(before, after) and not c.get("ok"):
            self.pending = (c, self.t)
            self.notice(Ruling("correction_pending", self.t, None, {
                "message": f"{text} Type ok (or press Apply on the display) to do it; cancel to leave it."}))
            return False
        self.notice(Ruling("correction_preview", self.t, None, {"message": text}))
        return True

    def _take_pending(self, c: dict) -> dict | None:
        """The correction an ok applies (None: cancelled, or nothing waits)."""
        pending, self.pending = self.pending, None
        if pending is None or self.t - pending[1] > PENDING_SECONDS:
            self.notice(Ruling("help", self.t, None, {"message": "no correction is waiting for an ok"}))
            return None
        if c["action"] == "cancel":
            self.notice(Ruling("correction_cancelled", self.t, None, {"message": "Correction left undone."}))
            return None
        return pending[0] | {"ok": True, "source": c["source"]}

    # --- resume -------------------------------------------------------------------------------------------
    def resume(self, records: list[dict], lines: list[int] | None = None, path: str = "<journal>",
               frames_replay: bool = False) -> int:
        """Continue the game a journal holds (``records`` after its header; ``lines``: their file lines);
        returns the last frame it saw.

        ``frames_replay``: the frames are played again from the first (a recording), so the game is rebuilt
        by ruling on them afresh while the journal only checks each record (journal.CatchUp) and takes the
        first one it lacks: a crash anywhere, even between two events of one frame or inside the assumed
        Charleston, resumes exactly where it stopped. Otherwise (a camera) the journal's events are replayed
        now, the rulings of an event in flight at the crash are journaled and an interrupted assumed
        Charleston is finished. Either way every journaled ruling is checked against the referee's, and a
        difference is a journal.ResumeError naming its line. Nothing is signalled for what already went out;
        the display and board are brought to the game's state once it has caught up.
        """
        self.catch_up = CatchUp(self.journal, records, lines or list(range(1, len(records) + 1)), path)
        self.journal = self.catch_up
        self.game_started = self.replay_journaled(-1 if frames_replay else None) > 0
        if not frames_replay:
            self._finish_assumed_charleston()
            self.caught_up()
        return max((int(r.get("frame", -1)) for r in records), default=-1)

    def replay_journaled(self, frame: int | None) -> int:
        """Apply the journaled records the frames do not produce again (people's requests, a game before the
        recording) up to ``frame``, or all of them (None: nothing is replayed from frames); returns how many
        events that was. The game has caught up once the journal holds no more. The frames produce again exactly
        the events that are not a person's word (questions.UNTRUSTED_SOURCES: the camera's, and the assumed
        start of a game it cannot see)."""
        catch_up = self.catch_up
        assert catch_up is not None
        count = 0
        while (rec := catch_up.peek()) is not None:
            kind = rec.get("kind")
            if frame is not None and (rec.get("frame", -1) > frame or kind == "observation"
                                      or (kind == "event" and rec.get("source") in UNTRUSTED_SOURCES)):
                break
            catch_up.pop()
            if kind == "observation" and rec["observation"].get("type") == "picked":
                convert(vev.from_json(rec["observation"]), self.referee, self.wall_ends)  # relearn the live end
            elif kind == "event":
                event = rev.from_json(rec["event"])
                if isinstance(event, rev.Deal):
                    self.wall_ends = WallEnds()
                self.frame = int(rec.get("frame", self.frame))
                self._ruled(event, rec.get("source"), quiet=True)
                count += 1
        if catch_up.peek() is None and frame is not None:
            self.caught_up()
        return count

    def _finish_assumed_charleston(self) -> None:
        """A crash inside the assumed start-of-game block left it short: journal and rule on the rest of it."""
        deals = [i for i, e in enumerate(self.referee.events) if isinstance(e, rev.Deal)]
        if not deals:
            return
        tail = [rev.to_json(e) for e in self.referee.events[deals[-1] + 1:]]
        block = self.assumed_charleston(self.referee.events[deals[-1]].t)
        if len(tail) < len(block) and tail == [rev.to_json(e) for e in block[:len(tail)]]:
            for event in block[len(tail):]:
                self.apply(event, source="assumed", quiet=True)

    def caught_up(self) -> None:
        """The resumed game is where the journal ends: write from here on, and show the game as it stands."""
        if self.catch_up is None:
            return
        self.journal, self.catch_up = self.catch_up.journal, None
        self.view.sync(self.referee.snapshot())
        if self.board is not None:  # lights as they were, without replaying every beep of the game
            self.board.set_leds(board_state_from(self.referee.snapshot()))
        self.view.note(f"Resumed from the journal: {len(self.referee.events)} events replayed")
        if self.display is not None:
            self.display.publish(self.view.snapshot())


def board_state_from(state: dict) -> BoardState:
    """The board's lights for a referee snapshot (after a correction or a resume): window green while a discard
    is live (amber with a claim on it), red once a discard has been covered; the turn seat lit, dead seats
    blinking (fast on their own turn), as hardware.signals shows them during play."""
    w = state.get("window")
    played = any(seat.get("discards") for seat in state.get("seats") or [])
    window = ("amber" if w.get("claims") else "green") if w else ("red" if played else "off")
    seats = []
    for i, seat in enumerate(state.get("seats") or []):
        dead = seat.get("out") is not None
        seats.append(("F" if dead else "1") if i == state.get("turn") else ("B" if dead else "0"))
    return BoardState(window=window, window_mode="1" if window != "off" else "0",
                      seats=tuple(seats + ["0"] * (4 - len(seats))))


def run(assistant: Assistant, frames: Iterable[Any], reader: Any,
        on_frame: Callable[[Any, list], None] | None = None, stop: Callable[[], bool] | None = None) -> None:
    """The watch loop: each frame through the table reader, observations to the assistant, requests between.

    A resumed recording goes through this loop from its first frame too (Assistant.resume): its journal only
    checks the records until the crash point.
    """
    for frame in frames:
        if stop is not None and stop():
            break
        start = time.perf_counter()
        assistant.frame, assistant.t = frame.index, frame.t
        if not assistant.game_started:
            assistant.start_game(frame.t)
        observations = reader.process(frame.image, frame.index, frame.t, assistant.expectation())
        assistant.observe(observations)
        assistant.take_in(reader)
        assistant.handle_requests()
        assistant.timing.frames += 1
        assistant.timing.frame_seconds += time.perf_counter() - start
        if on_frame is not None:
            on_frame(frame, observations)
    if assistant.catch_up is not None:  # the recording ended before the crash point: the journal has the rest
        assistant.replay_journaled(None)
        assistant.caught_up()
    assistant.handle_requests()
