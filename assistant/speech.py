"""Speech: what the assistant says aloud, in what order, and only while it is true.

``announcement_for`` turns a referee ruling (duck-typed: ``kind``, ``seat``, ``data``) into the short sentence a
caller would say ("Bob, Three Bam", "Window closed", "Mah Jongg, Ada, 50 ..."), with the least verbosity that
says it, its priority and the fact it states (assistant.speech_facts). ``Speaker`` speaks announcements from a
worker thread: the pipeline only enqueues, so a slow synthesiser never delays a window-closed signal.

What a blind player hears is true, and the most important thing first:

* **Truth.** Each announcement knows the fact it states (the live discard, "window closed" on this discard, an
  open question, ...). One whose fact stopped being true is never started, and one being said is cut short the
  moment it stops being true. An answer to a person's question that has not started yet is made again instead
  (``renew``): she still wants to know whose turn it is, now. One cut while she hears it is not: it was true
  when it began, and what changed it (a discard, the result) is said next.
* **Priority.** The hand's result first (Mah Jongg, wall game: one short sentence), then an answer to her own
  key press (she asked and waits: not behind the long payments), then the payments, then calls, dead hands and
  questions to the table, then routine play (discards, "window closed", turns), then camera notices. A waiting
  announcement goes ahead of every less important one. An answer (unless another answer is being said) and a
  discard (unless the result is being said, or an answer with at most ``SHORT_ANSWER_S`` to go: the window to
  call a discard is short, but a second is within it) cut short the sentence being said unless it is about to
  end (``URGENT_WAIT_S``); anything more important cuts a long one with more than ``INTERRUPT_REMAINING_S``
  left. A sentence cut short is said again afterwards if it is still true (once; a camera notice is not said
  again, the display keeps showing it). How long a sentence takes is estimated from its text
  (assistant.speech_timing).
* A late announcement is worse than none: one older than ``max_delay`` is dropped (the result, questions and
  answers may wait three times as long), and when the queue is full the least important, oldest one goes.

Engines are command-line synthesisers from the OS packages, so nothing is downloaded at run time:
``espeak-ng`` (default) and, where Debian's ``flite`` is installed, its ``slt`` voice (``engine = "flite"``,
somewhat more natural).
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from assistant.profile import SEAT_NAMES
from assistant.questions import question_text
from assistant.speech_facts import Fact, Truth
from assistant.speech_timing import spoken_seconds
from engine.tiles import name_or_code

log = logging.getLogger(__name__)

QUIET, NORMAL, VERBOSE = 0, 1, 2
VERBOSITY_LEVEL = {"quiet": QUIET, "normal": NORMAL, "verbose": VERBOSE}
#: Priorities, least to most important: camera notices, routine play, calls (and dead hands, questions to the
#: table), the payments, an answer to a person's own request (she asked, and waits for it: not behind the long
#: payments), the hand's result itself (Mah Jongg, wall game: one short sentence, before anything).
NOTICE, ROUTINE, CALL, PAYMENTS, ANSWER, RESULT = 0, 1, 2, 3, 4, 5
#: A more important announcement interrupts a long sentence (over ``LONG_SENTENCE_S`` to say) with more than
#: ``INTERRUPT_REMAINING_S`` left: a discard ("Bob, Five Dot") is let finish before a call.
LONG_SENTENCE_S = 1.5
INTERRUPT_REMAINING_S = 0.5
#: An answer and a discard wait for the sentence being said only when it is about to end, within this: the table
#: reader needs about 0.3 s to be sure of a discard, which leaves a discard only 0.2 s to be heard within 0.5 s.
#: Cut with more left, a sentence is said again afterwards.
URGENT_WAIT_S = 0.2
#: A discard lets an answer to her key press finish when no more than this is left of it: she hears "West
#: player's turn." (1.1 s) whole and the discard right after; cut, the answer came only after the discard, up to
#: 1.8 s after her key press. A long answer (the seat winds, 4 s) is cut and said again after the discard.
SHORT_ANSWER_S = 1.5


@dataclass(frozen=True)
class Announcement:
    """One thing to say. ``level``: the least verbosity that says it (QUIET = always said); ``priority``: what
    goes first and what may interrupt what; ``fact``: what it states (None: nothing that can stop being true);
    ``renew``: for an answer, makes it again from the state now when its fact changed (None: drop it)."""

    text: str
    level: int = NORMAL
    kind: str = "info"
    priority: int = ROUTINE
    fact: Fact | None = None
    renew: Callable[[], Announcement | None] | None = None
    created: float = field(default_factory=time.monotonic)
    retold: bool = False  # already interrupted once and queued again


@dataclass
class Spoken:
    """What the speaker did with one announcement, for figures and tests: when it started and ended (monotonic)
    and whether it was cut short (``cut``: "interrupted" by a more important one, "untrue" when its fact ended)."""

    text: str
    kind: str
    priority: int
    fact: Fact | None
    created: float
    started: float
    ended: float = 0.0
    cut: str = ""


def _amount(n: float) -> str:
    return str(int(n)) if float(n).is_integer() else f"{n:.2f}"


def payments_sentence(payments: Mapping[Any, float], name: Callable[[int], str]) -> str:
    """"Bob pays 50. Carol pays 25. Ada receives 100." from a seat -> amount (negative = pays) mapping."""
    parts = []
    for seat, amount in sorted(payments.items(), key=lambda kv: (kv[1], int(kv[0]))):
        if amount < 0:
            parts.append(f"{name(int(seat))} pays {_amount(-amount)}")
        elif amount > 0:
            parts.append(f"{name(int(seat))} receives {_amount(amount)}")
    return ". ".join(parts) + "." if parts else "Nobody pays."


def spoken_seat(name: Callable[[int | None], str]) -> Callable[[int | None], str]:
    """Seat names for the ear: a seat without a player's name is called by its wind, which next to a tile
    ("North, East wind") or in an answer ("East sits East") sounds like a wind; said as "North player" it is
    a person."""
    def say(seat: int | None) -> str:
        who = name(seat)
        return f"{who} player" if who in SEAT_NAMES else who
    return say


def announcement_for(ruling: Any, name: Callable[[int | None], str]) -> Announcement | None:
    """The sentence for a ruling, or ``None`` if it is not worth saying at any verbosity. ``name`` says a seat
    (spoken_seat). The fact it states is the speaker's to add (speech_facts.Truth)."""
    kind, seat, data = ruling.kind, getattr(ruling, "seat", None), getattr(ruling, "data", {}) or {}
    who = name(seat if seat is not None else data.get("seat"))
    if kind == "window_opened":
        # The seat first, so a blind player knows whose tile it is as it lands ("West, Three Bam").
        return Announcement(f"{who}, {name_or_code(data.get('tile'))}", NORMAL, "discard")
    if kind == "window_closed":
        return Announcement("Window closed", QUIET, "window")
    if kind == "claim_pending":
        what = " for Mah Jongg" if data.get("purpose") == "mahjong" else ""
        return Announcement(f"{who} calls{what}", NORMAL, "claim", CALL)
    if kind == "claim_awarded":
        return Announcement(f"{who} takes {name_or_code(data.get('tile'))}", NORMAL, "claim", CALL)
    if kind == "taken_in":
        shown = sum(len(s.get("exposures") or []) for s in (data.get("seats") or {}).values())
        return Announcement(f"Joined: {len(data.get('floor') or [])} discards and {shown} exposures seen; check "
                            "them on the display", NORMAL, "info")
    if kind == "exposure_accepted":
        tiles = data.get("tiles") or []
        return Announcement(f"{who} exposes {', '.join(name_or_code(t) for t in tiles)}", VERBOSE, "exposure")
    if kind == "dead_hand":
        return Announcement(f"{who}'s hand is dead", QUIET, "dead", CALL)
    if kind == "mahjong_verified":
        extra = ", jokerless" if data.get("jokerless") else ""
        self_picked = ", self-picked" if data.get("self_picked") else ""
        return Announcement(f"Mah Jongg, {who}, {_amount(data.get('value') or 0)}{extra}{self_picked}", QUIET,
                            "mahjong", RESULT)
    if kind == "mahjong_in_error":
        return Announcement(f"Mah Jongg in error, {who}", QUIET, "mahjong", CALL)
    if kind == "settlement":
        return Announcement(payments_sentence(data.get("payments") or {}, name), QUIET, "settlement", PAYMENTS)
    if kind == "wall_game":
        return Announcement("Wall game", QUIET, "game", RESULT)
    if kind == "turn":
        return Announcement(f"{who}'s turn", VERBOSE, "turn")
    if kind == "rejected":
        return Announcement(f"Not allowed: {data.get('reason', '')}", VERBOSE, "rejected")
    if kind == "help":  # the camera or the pipeline asks a person to look, or answers a request it cannot do
        source = data.get("source")
        priority = NOTICE if source in ("camera", "tile_count") else CALL if source else ANSWER
        return Announcement(f"Please check: {data.get('message', 'the table')}", QUIET, "notice", priority)
    if kind in ("correction_preview", "correction_pending", "correction_cancelled"):  # a person's own request
        return Announcement(str(data.get("message", "")), NORMAL if kind == "correction_preview" else QUIET,
                            "help", ANSWER)
    if kind == "question":  # a penalty on the camera's evidence alone waits for a person
        return Announcement(question_text(data, name), QUIET, "question", CALL)
    return None


# --- synthesis ----------------------------------------------------------------------------------------------

def synth_command(engine: str, text: str, voice: str = "en-us", rate: int = 165, volume: int = 100,
                  wav: Path | None = None) -> list[str]:
    """The synthesiser command line: to ``wav`` if given, else to the audio device. espeak-ng without ``-z``
    ends every sentence with a third of a second of silence, which held up the next one just as long."""
    if engine == "espeak-ng":
        cmd = ["espeak-ng", "-z", "-v", voice, "-s", str(rate), "-a", str(volume)]
        return cmd + (["-w", str(wav)] if wav else []) + ["--", text]
    if engine == "flite":
        # flite speaks at about 165 words/min; duration_stretch scales it.
        stretch = f"{165 / max(rate, 1):.2f}"
        cmd = ["flite", "-voice", voice if voice in ("slt", "kal", "awb", "rms", "kal16") else "slt",
               "--setf", f"duration_stretch={stretch}", "-t", text]
        return cmd + ["-o", str(wav) if wav else "play"]
    raise ValueError(f"unknown speech engine {engine!r}")


def synthesize_wav(text: str, wav: Path, engine: str = "espeak-ng", voice: str = "en-us", rate: int = 165,
                   volume: int = 100) -> Path:
    """Synthesise ``text`` into a WAV file (for tests, and for ``wav_dir`` setups without an audio device)."""
    subprocess.run(synth_command(engine, text, voice, rate, volume, wav), check=True, capture_output=True,
                   timeout=30)
    return wav


def engine_available(engine: str) -> bool:
    return engine != "none" and shutil.which(engine) is not None


NO_AUDIO = ("no audio device: no sound card (/dev/snd) and no PulseAudio or PipeWire server; plug in a speaker "
            "or headphones, or write speech to files (mahj say --wav FILE, speech.wav_dir in the profile)")


def audio_output() -> str | None:
    """What speech would play through: a sound server or an ALSA card; None when there is none. espeak-ng and
    flite exit 0 even when nothing can be heard, so without this check "said" would be a lie."""
    if not sys.platform.startswith("linux"):
        return "the system's audio output"  # macOS and Windows always have a default output to try
    if os.environ.get("PULSE_SERVER"):
        return f"PulseAudio server {os.environ['PULSE_SERVER']}"
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    for name in ("pulse/native", "pipewire-0"):
        if runtime and Path(runtime, name).exists():
            return f"sound server {Path(runtime, name)}"
    playback = sorted(Path("/dev/snd").glob("pcmC*D*p")) if Path("/dev/snd").is_dir() else []
    return f"ALSA device {playback[0].name}" if playback else None


class Utterance(Protocol):
    """A sentence being said: ``wait`` returns once it has been said or cut; ``stop`` cuts it short."""

    def wait(self) -> None: ...

    def stop(self) -> None: ...


class _Process:
    """A synthesiser process as an Utterance."""

    def __init__(self, cmd: list[str]) -> None:
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def wait(self) -> None:
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()


def _interrupts(new: Announcement, said: Announcement, length: float, left: float) -> bool:
    """Whether ``new`` cuts short ``said`` (``length`` seconds long, ``left`` of them still to come): an answer
    cuts anything but another answer (she asked, now) and a discard anything but the result (the window to call
    it is short) or a short answer, unless it is about to end; anything more important cuts a long sentence with
    a while to go."""
    if new.priority == ANSWER:
        return said.kind != "answer" and left > URGENT_WAIT_S
    if new.kind == "discard":
        if said.kind == "answer":
            return left > SHORT_ANSWER_S
        return said.priority < RESULT and left > URGENT_WAIT_S
    return new.priority > said.priority and length > LONG_SENTENCE_S and left > INTERRUPT_REMAINING_S


def _ranked(a: Announcement) -> tuple[int, float]:
    """Queue order: the most important first, then the oldest."""
    return (-a.priority, a.created)


class Speaker:
    """Speaks announcements in a worker thread; ``announce``/``say`` return at once and never raise.

    ``play`` starts saying a text and returns its Utterance, replaceable for tests and benches; by default it
    runs the engine to the audio device, or writes numbered WAV files into ``wav_dir``. ``log`` records what was
    said, when, and what was cut short.
    """

    def __init__(self, engine: str = "espeak-ng", voice: str = "en-us", rate: int = 165, volume: int = 100,
                 verbosity: str = "normal", max_delay: float = 4.0, wav_dir: Path | None = None,
                 queue_size: int = 6, play: Callable[[str], Utterance] | None = None) -> None:
        self.engine, self.voice, self.rate, self.volume = engine, voice, rate, volume
        self.level = VERBOSITY_LEVEL[verbosity]
        self.max_delay = max_delay
        self.wav_dir = wav_dir
        self.queue_size = queue_size
        self._play = play or self._play_with_engine
        self._queue: list[Announcement] = []
        self._cond = threading.Condition()
        self._closed = False
        self._warned = False
        self.truth = Truth()
        self.log: list[Spoken] = []
        self.dropped = 0
        self.interrupted = 0
        self._count = 0
        #: Why nothing will be heard (the caller says it once: ``mahj watch`` prints it), or None when speech works.
        self.problem: str | None = None
        if play is None and engine != "none" and not engine_available(engine):
            self.problem = f"{engine} is not installed (Debian: apt install {engine}); announcements are shown only"
        elif play is None and engine != "none" and wav_dir is None and audio_output() is None:
            self.problem = f"{NO_AUDIO}; announcements are shown only"
        self.enabled = play is not None or (engine != "none" and self.problem is None)
        self._speaking: tuple[Announcement, Utterance | None, Spoken] | None = None
        self._thread = threading.Thread(target=self._run, name="speech", daemon=True)
        if self.enabled:
            self._thread.start()

    @classmethod
    def from_settings(cls, settings: Any, **kw: Any) -> Speaker:
        """Build from ``profile.SpeechSettings``."""
        return cls(engine=settings.engine, voice=settings.voice, rate=settings.rate, volume=settings.volume,
                   verbosity=settings.verbosity, max_delay=settings.max_delay, wav_dir=settings.wav_dir, **kw)

    @property
    def spoken(self) -> list[str]:
        """The texts said to the end, in order."""
        return [s.text for s in self.log if s.ended and not s.cut]

    # --- the pipeline's side: enqueue and return ---------------------------------------------------------
    def announce(self, ruling: Any, name: Callable[[int | None], str], say: bool = True) -> Announcement | None:
        """Follow a ruling: what it ends is dropped or cut short, and its own sentence is queued (``say`` False:
        a ruling nobody hears again, such as one replayed from a journal, still moves the facts on)."""
        with self._cond:
            fact = self.truth.follow(ruling)
            self._prune()
        a = announcement_for(ruling, spoken_seat(name)) if say else None
        if a is not None:
            a = replace(a, fact=fact)
            self.put(a)
        return a

    def say(self, text: str, level: int = QUIET, kind: str = "info", priority: int = ANSWER,
            fact: Fact | None = None) -> None:
        self.put(Announcement(text, level, kind, priority, fact))

    def answer(self, make: Callable[[], str], topic: str) -> None:
        """Say the answer to a person's own question, ahead of everything but the result. ``make`` gives its text
        from the state now and ``topic`` is what it is about (speech_facts): if the topic changes before the
        answer has been said, it is made again, since she still wants to know, now."""
        def renew() -> Announcement:
            return Announcement(make(), QUIET, "answer", ANSWER, self.truth.current(topic), renew)
        with self._cond:
            a = renew()
        self.put(a)

    def current(self, topic: str) -> Fact:
        """The fact that ``topic`` is as it is now."""
        with self._cond:
            return self.truth.current(topic)

    def put(self, a: Announcement) -> None:
        if not self.enabled or a.level > self.level:
            return
        with self._cond:
            if not self.truth.holds(a.fact):
                fresh = a.renew() if a.renew is not None else None
                if fresh is None:
                    self.dropped += 1
                    return
                a = fresh
            self._queue.append(a)
            self._queue.sort(key=_ranked)
            while len(self._queue) > self.queue_size:
                victim = max(self._queue, key=lambda x: (-x.priority, x.level, -x.created))  # least important, oldest
                self._queue.remove(victim)
                self.dropped += 1
            if self._speaking is not None:
                if _interrupts(a, self._speaking[0], *self._left_to_say()):
                    self._cut("interrupted", by=a)
            self._cond.notify_all()

    def _prune(self) -> None:
        """Drop the waiting announcements whose fact ended (an answer is made again), and cut short the one being
        said if its fact ended. Called with the lock held."""
        kept: list[Announcement] = []
        for a in self._queue:
            if self.truth.holds(a.fact):
                kept.append(a)
            elif a.renew is not None and (fresh := a.renew()) is not None:
                kept.append(replace(fresh, created=a.created, priority=a.priority))  # its place kept
            else:
                self.dropped += 1
        self._queue = sorted(kept, key=_ranked)
        if self._speaking is not None and not self.truth.holds(self._speaking[0].fact):
            self._cut("untrue")
        self._cond.notify_all()

    def _left_to_say(self) -> tuple[float, float]:
        """Seconds the sentence being said takes and still has to come, estimated from its text and the rate."""
        assert self._speaking is not None
        a, _, record = self._speaking
        length = spoken_seconds(a.text, self.rate)
        return length, length - (time.monotonic() - record.started)

    def _cut(self, why: str, by: Announcement | None = None) -> None:
        """Stop the sentence being said. Interrupted (``by`` another) but still true, it is said again right after
        the one that interrupted it (once)."""
        assert self._speaking is not None
        a, utterance, record = self._speaking
        if record.cut:
            return
        record.cut = why
        self.interrupted += 1
        if by is not None and not a.retold and a.priority > NOTICE:
            # ranked just after the interrupter, so the interrupter is said first
            self._queue.append(replace(a, retold=True, priority=min(a.priority, by.priority),
                                       created=by.created + 1e-6))
            self._queue.sort(key=_ranked)
        if utterance is not None:
            utterance.stop()

    def drain(self, timeout: float = 10.0) -> bool:
        """Wait until everything queued has been spoken or dropped (for tests and orderly shutdown)."""
        end = time.monotonic() + timeout
        with self._cond:
            while (self._queue or self._speaking) and time.monotonic() < end:
                self._cond.wait(0.05)
            return not self._queue and not self._speaking

    def close(self) -> None:
        with self._cond:
            self._closed = True
            if self._speaking is not None and self._speaking[1] is not None:
                self._speaking[1].stop()
            self._cond.notify_all()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    # --- the worker's side -----------------------------------------------------------------------------------
    def _next(self) -> Announcement | None:
        with self._cond:
            while True:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return None
                a = self._queue.pop(0)
                # The result, questions and answers may wait a little longer than routine play.
                limit = self.max_delay * (3 if a.priority >= CALL else 1)
                if time.monotonic() - a.created <= limit and self.truth.holds(a.fact):
                    self._speaking = (a, None, Spoken(a.text, a.kind, a.priority, a.fact, a.created,
                                                      time.monotonic()))
                    return a
                self.dropped += 1

    def _run(self) -> None:
        while (a := self._next()) is not None:
            assert self._speaking is not None
            record = self._speaking[2]
            try:
                utterance = self._play(a.text)
                with self._cond:
                    self._speaking = (a, utterance, record)
                    if record.cut:  # cut while the synthesiser was starting
                        utterance.stop()
                utterance.wait()
            except Exception as exc:  # a broken audio device must not take the game down
                if not self._warned:
                    log.warning("speech failed (%s); going on without it", exc)
                    self._warned = True
            finally:
                with self._cond:
                    record.ended = time.monotonic()
                    self.log.append(record)
                    self._speaking = None
                    self._cond.notify_all()

    def _play_with_engine(self, text: str) -> Utterance:
        wav = None
        if self.wav_dir is not None:
            self.wav_dir.mkdir(parents=True, exist_ok=True)
            self._count += 1
            wav = self.wav_dir / f"{self._count:04d}.wav"
        return _Process(synth_command(self.engine, text, self.voice, self.rate, self.volume, wav))
