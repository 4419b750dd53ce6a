"""Speech: what the assistant says aloud, and a speaker that never holds up the game.

Two parts. ``announcement_for`` turns a referee ruling (duck-typed: ``kind``, ``seat``, ``data``) into the short
sentence a caller would say ("Three Bam", "Window closed", "Mah Jongg, Ada, 50 ..."), filtered by verbosity.
``Speaker`` speaks announcements from a worker thread through a small bounded queue: the pipeline only enqueues,
so a slow synthesiser can never delay a window-closed signal. A late announcement is worse than none (players
have moved on), so announcements older than ``max_delay`` are dropped, a newer discard replaces an unspoken
older one, and when the queue is full the least important, oldest one goes.

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
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assistant.questions import question_text
from engine.tiles import name_or_code

log = logging.getLogger(__name__)

QUIET, NORMAL, VERBOSE = 0, 1, 2
VERBOSITY_LEVEL = {"quiet": QUIET, "normal": NORMAL, "verbose": VERBOSE}
#: Announcement kinds where only the newest matters: an unspoken older one is replaced.
SUPERSEDING = frozenset({"discard", "turn", "window"})
#: What a new discard cuts short while it is being spoken: older play news and camera notices (the display keeps
#: showing those). Mah Jongg, payments, dead hands and questions are never cut: they change what a player owes.
CUT_BY_DISCARD = SUPERSEDING | {"notice"}


@dataclass(frozen=True)
class Announcement:
    """One thing to say. ``level``: the least verbosity that says it (QUIET = always said, and kept longest)."""

    text: str
    level: int = NORMAL
    kind: str = "info"
    created: float = field(default_factory=time.monotonic)


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


def announcement_for(ruling: Any, name: Callable[[int | None], str]) -> Announcement | None:
    """The sentence for a ruling, or ``None`` if it is not worth saying at any verbosity."""
    kind, seat, data = ruling.kind, getattr(ruling, "seat", None), getattr(ruling, "data", {}) or {}
    who = name(seat if seat is not None else data.get("seat"))
    if kind == "window_opened":
        # The seat first, so a blind player knows whose tile it is as it lands ("West, Three Bam").
        return Announcement(f"{who}, {name_or_code(data.get('tile'))}", NORMAL, "discard")
    if kind == "window_closed":
        return Announcement("Window closed", QUIET, "window")
    if kind == "claim_pending":
        what = " for Mah Jongg" if data.get("purpose") == "mahjong" else ""
        return Announcement(f"{who} calls{what}", NORMAL, "claim")
    if kind == "claim_awarded":
        return Announcement(f"{who} takes {name_or_code(data.get('tile'))}", NORMAL, "claim")
    if kind == "exposure_accepted":
        tiles = data.get("tiles") or []
        return Announcement(f"{who} exposes {', '.join(name_or_code(t) for t in tiles)}", VERBOSE, "exposure")
    if kind == "dead_hand":
        return Announcement(f"{who}'s hand is dead", QUIET, "dead")
    if kind == "mahjong_verified":
        extra = ", jokerless" if data.get("jokerless") else ""
        self_picked = ", self-picked" if data.get("self_picked") else ""
        return Announcement(f"Mah Jongg, {who}, {_amount(data.get('value') or 0)}{extra}{self_picked}", QUIET,
                            "mahjong")
    if kind == "mahjong_in_error":
        return Announcement(f"Mah Jongg in error, {who}", QUIET, "mahjong")
    if kind == "settlement":
        return Announcement(payments_sentence(data.get("payments") or {}, name), QUIET, "settlement")
    if kind == "wall_game":
        return Announcement("Wall game", QUIET, "game")
    if kind == "turn":
        return Announcement(f"{who}'s turn", VERBOSE, "turn")
    if kind == "rejected":
        return Announcement(f"Not allowed: {data.get('reason', '')}", VERBOSE, "rejected")
    if kind == "help":  # the camera or the pipeline asks a person to look
        return Announcement(f"Please check: {data.get('message', 'the table')}", QUIET, "notice")
    if kind in ("correction_preview", "correction_pending"):  # what a correction changes, before it does
        return Announcement(str(data.get("message", "")), QUIET if kind == "correction_pending" else NORMAL, "help")
    if kind == "question":  # a penalty on the camera's evidence alone waits for a person
        return Announcement(question_text(data, name), QUIET, "help")
    return None


# --- synthesis ----------------------------------------------------------------------------------------------

def synth_command(engine: str, text: str, voice: str = "en-us", rate: int = 165, volume: int = 100,
                  wav: Path | None = None) -> list[str]:
    """The synthesiser command line: to ``wav`` if given, else to the audio device."""
    if engine == "espeak-ng":
        cmd = ["espeak-ng", "-v", voice, "-s", str(rate), "-a", str(volume)]
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


class Speaker:
    """Speaks announcements in a worker thread; ``announce``/``say`` return at once and never raise.

    ``speak`` is the synthesiser call (text -> None), replaceable for tests; by default it runs the engine to
    the audio device, or writes numbered WAV files into ``wav_dir``.
    """

    def __init__(self, engine: str = "espeak-ng", voice: str = "en-us", rate: int = 165, volume: int = 100,
                 verbosity: str = "normal", max_delay: float = 4.0, wav_dir: Path | None = None,
                 queue_size: int = 6, speak: Callable[[str], None] | None = None) -> None:
        self.engine, self.voice, self.rate, self.volume = engine, voice, rate, volume
        self.level = VERBOSITY_LEVEL[verbosity]
        self.max_delay = max_delay
        self.wav_dir = wav_dir
        self.queue_size = queue_size
        self._speak = speak or self._speak_with_engine
        self._queue: deque[Announcement] = deque()
        self._cond = threading.Condition()
        self._closed = False
        self._warned = False
        self.spoken: list[str] = []
        self.dropped = 0
        self.interrupted = 0
        self._count = 0
        #: Why nothing will be heard (said once by ``mahj watch``), or None when speech works.
        self.problem: str | None = None
        if speak is None and engine != "none" and not engine_available(engine):
            self.problem = f"{engine} is not installed (Debian: apt install {engine}); announcements are shown only"
        elif speak is None and engine != "none" and wav_dir is None and audio_output() is None:
            self.problem = f"{NO_AUDIO}; announcements are shown only"
        self.enabled = speak is not None or (engine != "none" and self.problem is None)
        if self.problem:
            log.warning("speech: %s", self.problem)
        self._proc: subprocess.Popen | None = None  # the synthesiser speaking now (to cut it short)
        self._speaking: Announcement | None = None
        self._thread = threading.Thread(target=self._run, name="speech", daemon=True)
        if self.enabled:
            self._thread.start()

    @classmethod
    def from_settings(cls, settings: Any, **kw: Any) -> Speaker:
        """Build from ``profile.SpeechSettings``."""
        return cls(engine=settings.engine, voice=settings.voice, rate=settings.rate, volume=settings.volume,
                   verbosity=settings.verbosity, max_delay=settings.max_delay, wav_dir=settings.wav_dir, **kw)

    # --- the pipeline's side: enqueue and return ---------------------------------------------------------
    def announce(self, ruling: Any, name: Callable[[int | None], str]) -> Announcement | None:
        a = announcement_for(ruling, name)
        if a is not None:
            self.put(a)
        return a

    def say(self, text: str, level: int = QUIET, kind: str = "info") -> None:
        self.put(Announcement(text, level, kind))

    def put(self, a: Announcement) -> None:
        if not self.enabled or a.level > self.level:
            return
        with self._cond:
            if a.kind in SUPERSEDING:
                before = len(self._queue)
                self._queue = deque(x for x in self._queue if x.kind != a.kind)
                self.dropped += before - len(self._queue)
                if a.kind == "discard" and self._speaking is not None and self._speaking.kind in CUT_BY_DISCARD:
                    self._interrupt()  # the table has moved on: a new discard cuts the stale one short
            if a.kind == "discard":  # ahead of waiting camera notices: the window on this tile is open now
                ahead = next((i for i, x in enumerate(self._queue) if x.kind in CUT_BY_DISCARD), len(self._queue))
                self._queue.insert(ahead, a)
            else:
                self._queue.append(a)
            while len(self._queue) > self.queue_size:
                victim = max(self._queue, key=lambda x: (x.level, -x.created))  # least important, oldest
                self._queue.remove(victim)
                self.dropped += 1
            self._cond.notify()

    def _interrupt(self) -> None:
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.terminate()
            self.interrupted += 1

    def drain(self, timeout: float = 10.0) -> bool:
        """Wait until everything queued has been spoken or dropped (for tests and orderly shutdown)."""
        end = time.monotonic() + timeout
        with self._cond:
            while (self._queue or self._busy) and time.monotonic() < end:
                self._cond.wait(0.05)
            return not self._queue and not self._busy

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    # --- the worker's side -----------------------------------------------------------------------------------
    _busy = False

    def _next(self) -> Announcement | None:
        with self._cond:
            while True:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return None
                a = self._queue.popleft()
                # Important sentences (Mah Jongg, payments, help) may wait a little longer than discards.
                limit = self.max_delay * (3 if a.level == QUIET and a.kind != "window" else 1)
                if time.monotonic() - a.created <= limit:
                    self._busy = True
                    self._speaking = a
                    return a
                self.dropped += 1

    def _run(self) -> None:
        while (a := self._next()) is not None:
            try:
                self._speak(a.text)
                self.spoken.append(a.text)
            except Exception as exc:  # a broken audio device must not take the game down
                if not self._warned:
                    log.warning("speech failed (%s); going on without it", exc)
                    self._warned = True
            finally:
                with self._cond:
                    self._busy = False
                    self._speaking = None
                    self._cond.notify_all()

    def _speak_with_engine(self, text: str) -> None:
        wav = None
        if self.wav_dir is not None:
            self.wav_dir.mkdir(parents=True, exist_ok=True)
            self._count += 1
            wav = self.wav_dir / f"{self._count:04d}.wav"
        with self._cond:
            self._proc = subprocess.Popen(synth_command(self.engine, text, self.voice, self.rate, self.volume, wav),
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            self._proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            raise
        finally:
            with self._cond:
                self._proc = None

