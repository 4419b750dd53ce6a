"""What a blind player hears over whole games (issue 43): is every sentence true when heard, and does the most
important one come first?

    python bench/bench_speech.py --video datasets/video/fixtures/{demo,camera,moves}.mp4 GAMES/*.mp4 [--model] [--json]

Each recording is played *paced* (frames at their real times, as a camera delivers them) through the whole
assistant with the emulated board and speech on. Tiles are found by the recording's true boxes (the oracle,
vision/oracle.py) unless ``--model``: this measures speech, not the tile model. Real espeak-ng synthesises every
sentence, run as the speaker runs it (its command line) but to a pipe instead of the audio device; the moment
its first audio arrives is when the sentence is *heard* to start, and it then "plays" for its audio's length
unless the speaker cuts it short. A player presses keys as the game goes: ``who`` every ``--press-every``
seconds while the hand is played, and ``r`` (repeat) a second after the payments begin.

What is checked, from the rulings' own timeline (every ruling the pipeline sent, with its time), not from the
speaker's bookkeeping:

1. **Truth.** For each sentence heard, the moment its fact stopped being true: a discard, a call, a reader's
   question about it and "Window closed" at the next discard or the hand's end; a turn at the next turn; a
   penalty question when it is dropped or confirmed; a camera notice when the camera recovers. Counted: sentences
   whose audio *started* after that moment (goal 0), and how long audio went on past it (a cut takes a moment).
   A "who" answer must name the seat whose turn it is when it is heard.
2. **Mah Jongg** heard within 1 s of its verification; and the laid-down hand verified within 1 s of the moment
   the recording's truth log has it laid face up (``hand_displayed``).
3. **Answers**: a key press -> its answer heard, within 1 s.
4. **Discard -> speech start**: each true discard to the first audio of the first announcement of its tile
   after it; p95 <= 500 ms. Discards never announced count as missed. Also given: the speaker's own share
   (ruling -> heard), how far the watch ran behind the recording, and the p95 over the discards ruled on while
   the watch kept up (the shared CPU not holding the table reader back).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_assistant import pct  # noqa: E402

from assistant.commands.demo import oracle_for, prime_journal  # noqa: E402
from assistant.profile import load_profile  # noqa: E402
from assistant.sources import FrameSource  # noqa: E402
from assistant.wiring import Options  # noqa: E402

#: Rulings after which what was said about the live discard (and "Window closed" on it) no longer holds.
NEXT_DISCARD = frozenset({"window_opened", "mahjong_verified", "wall_game", "corrected", "confirmed", "dealt"})
HAND_OVER = frozenset({"mahjong_verified", "wall_game", "dealt"})
ABOUT_THE_DISCARD = frozenset({"window_opened", "window_closed", "claim_pending", "claim_awarded",
                               "exposure_accepted", "rejected"})
#: How long audio may go on after its fact ended before it counts as heard untrue: the cut itself (stopping the
#: synthesiser's audio) takes a moment.
CUT_GRACE_S = 0.2
#: A discard ruled on within this of the recording's own time was read with the watch keeping up (the CPU not
#: holding the table reader back).
KEPT_UP_MS = 100


class BenchVoice:
    """The speaker's own espeak-ng command line (assistant.speech.synth_command), to a pipe instead of the audio
    device: its first audio taken as the moment the sentence is heard, then "played" for the audio's length
    (16-bit mono 22.05 kHz) unless stopped."""

    def __init__(self, settings: Any) -> None:
        self.settings = settings
        self.said: list[_Said] = []

    def __call__(self, text: str) -> _Said:
        from assistant.speech import synth_command

        s = self.settings
        command = synth_command("espeak-ng", text, s.voice, s.rate, s.volume)
        said = _Said(text, subprocess.Popen([command[0], "--stdout", *command[1:]], stdout=subprocess.PIPE,
                                            stderr=subprocess.DEVNULL))
        self.said.append(said)
        return said


class _Said:
    def __init__(self, text: str, proc: subprocess.Popen) -> None:
        self.text, self.proc = text, proc
        self.heard: float | None = None  # first audio
        self.ended: float | None = None  # audio over (played out or stopped)
        self.stopped = threading.Event()

    def wait(self) -> None:
        assert self.proc.stdout is not None
        first = self.proc.stdout.read(4096)
        if not self.stopped.is_set() and first:
            self.heard = time.monotonic()
            rest = self.proc.stdout.read()
            self.stopped.wait(max(0, len(first) + len(rest) - 44) / 2 / 22050 - (time.monotonic() - self.heard))
        self.proc.wait()
        self.ended = time.monotonic()

    def stop(self) -> None:
        self.stopped.set()
        if self.proc.poll() is None:
            self.proc.terminate()


def truth_discards(truth: Path) -> list[tuple[float, str]]:
    """(true time, tile) of every discard in a truth log."""
    from vision.events import read_log

    return [(o.t_action if o.t_action is not None else o.t, o.tile) for o in read_log(truth)
            if o.type == "discard_down"]


def stale_at(source: Any, later: list[tuple[float, Any]]) -> float | None:
    """When what the sentence for ruling ``source`` states stopped being true, from the rulings sent after it."""
    kind, data = source.kind, source.data or {}
    if kind in ABOUT_THE_DISCARD or (kind == "help" and data.get("source") in ("reader", "tile_count")):
        ends = NEXT_DISCARD
    elif kind == "turn":
        ends = HAND_OVER | {"turn", "corrected", "confirmed"}
    elif kind in ("mahjong_verified", "settlement", "wall_game", "dead_hand", "mahjong_in_error"):
        ends = frozenset({"dealt"})
    elif kind == "question":
        return next((t for t, r in later if (r.kind in ("question_dropped", "confirmed")
                                             and (r.data or {}).get("id") == data.get("id"))
                     or r.kind in HAND_OVER), None)
    elif kind == "help" and data.get("source") == "camera":
        return next((t for t, r in later if r.kind == "help_cleared"
                     and (r.data or {}).get("problem") == data.get("problem")), None)
    else:
        return None
    return next((t for t, r in later if r.kind in ends), None)


def first_of_each(landed: list[tuple[float, str]], later: list[tuple[float, Any]],
                  same: Callable[[Any, str], bool]) -> list[int | None]:
    """For each discard landing (time, tile), in order, the index of the first entry of ``later`` (time, what)
    from half a second before it on that is about the same tile (``same(what, tile)``) and not taken by an
    earlier discard; None where there is none."""
    found: list[int | None] = []
    used: set[int] = set()
    for t_landed, tile in landed:
        i = next((i for i, (t, what) in enumerate(later) if i not in used and t >= t_landed - 0.5
                  and same(what, tile)), None)
        if i is not None:
            used.add(i)
        found.append(i)
    return found


def discard_latencies(landed: list[tuple[float, str]], announced: list[tuple[float, str]]) -> list[float | None]:
    """Milliseconds from each discard landing (time, tile) to the first announcement heard of its tile (time,
    text), in order; None for one never announced. Matched by tile: a discard cut short and said again later
    must not pass for the next one (it did: -468 ms)."""
    from engine.tiles import spoken_name

    found = first_of_each(landed, announced, lambda text, tile: text.endswith(f", {spoken_name(tile)}"))
    return [None if i is None else (announced[i][0] - t_landed) * 1000
            for (t_landed, _), i in zip(landed, found, strict=True)]


def turn_at(t: float, turns: list[tuple[float, int | None]]) -> int | None:
    """Whose turn the referee had at ``t`` (None: nobody's, the hand is over)."""
    return next((seat for when, seat in reversed(turns) if when <= t), None)


def run_recording(video: Path, model: bool, press_every: float) -> dict:
    import assistant.pipeline as pipeline
    import assistant.session as session
    import assistant.speech as speech
    from assistant.wiring import answer_aloud
    from engine.tiles import TILES, name_or_code, spoken_name
    from vision.events import read_log

    sent: list[tuple[float, Any]] = []
    table_t: dict[int, float] = {}  # the recording's time of the frame each ruling was sent at
    turns: list[tuple[float, int | None]] = []  # whose turn the referee had after each ruling (its own state)
    holder: dict[str, Any] = {}
    original = pipeline.Assistant._send

    def recorded(self: Any, r: Any, quiet: bool = False) -> None:
        holder["assistant"] = self
        if self.catch_up is None:
            sent.append((time.monotonic(), r))
            table_t[id(r)] = self.t
        original(self, r, quiet)
        over = self.referee.stage.value == "over"
        turns.append((time.monotonic(), None if over else self.referee.turn))

    profile = load_profile(None)
    voice = BenchVoice(profile.speech)
    speech.audio_output = lambda: "bench"  # no sound card needed: the audio goes to the pipe
    engine_play = speech.Speaker._play_with_engine
    speech.Speaker._play_with_engine = lambda self, text: voice(text)  # type: ignore[method-assign]
    pipeline.Assistant._send = recorded  # type: ignore[method-assign]
    profile = replace(profile, board_port="sim", display=replace(profile.display, enabled=False))
    presses: list[tuple[float, str]] = []
    done = threading.Event()

    def press(question: str) -> None:
        presses.append((time.monotonic(), question))
        answer_aloud(holder["assistant"], {"ask": question})

    def player() -> None:
        """A blind player at the table: "who" now and then while the hand is played, "repeat" a second into the
        payments."""
        next_who, repeated = time.monotonic() + press_every, False
        while not done.wait(0.05):
            if "assistant" not in holder or holder["assistant"].speaker is None:
                continue
            now = time.monotonic()
            over = any(r.kind in HAND_OVER for _, r in sent)
            if now >= next_who and not over:
                press("turn")
                next_who = now + press_every
            paid = next((t for t, r in sent if r.kind == "settlement"), None)
            if paid is not None and not repeated and now >= paid + 1.0:
                press("repeat")
                repeated = True

    source = FrameSource(video, paced=True)
    detector = None if model else oracle_for(video)
    thread = threading.Thread(target=player, daemon=True)
    thread.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            journal = Path(tmp) / "journal.jsonl"
            prime_journal(journal, video)
            # The watch drains speech when the recording ends, then closes it: what was not said by then is lost
            result = session.watch(profile, Options(quiet=True, speech=True, display=False), source, journal,
                                   keyboard=False, stop_at_game_over=False, detector=detector)
            assistant = result.assistant
    finally:
        done.set()
        pipeline.Assistant._send = original  # type: ignore[method-assign]
        speech.Speaker._play_with_engine = engine_play  # type: ignore[method-assign]
    log = list(assistant.speaker.log)
    heard = [(s, v) for s, v in zip(log, voice.said, strict=False) if v.heard is not None]

    # 1. truth
    untrue, overran, checked = [], [], 0
    for spoken, said in heard:
        if spoken.kind == "answer":
            if spoken.fact is not None and spoken.fact.topic == "turn":  # whose turn (answers.whose_turn)
                seat = turn_at(said.heard, turns)
                ok = "nobody's turn" in said.text.lower() if seat is None else \
                    (f"{assistant.view.name(seat)}'s turn" in said.text
                     or f"{assistant.view.seats[seat]['wind']} player's turn" in said.text)
                checked += 1
                if not ok:
                    untrue.append({"text": said.text, "why": "another seat's turn when heard"})
            continue
        before = [(t, r) for t, r in sent if t <= spoken.created]
        if not before:
            continue
        origin = before[-1][1]
        end = stale_at(origin, [(t, r) for t, r in sent if t > before[-1][0]])
        checked += 1
        if end is None:
            continue
        if said.heard > end:
            untrue.append({"text": said.text, "heard_after_ms": round((said.heard - end) * 1000, 1)})
        elif said.ended is not None and said.ended > end:
            overran.append(round((said.ended - end) * 1000, 1))

    # 2. Mah Jongg: laid down -> verified -> heard
    mahjong = []
    truths = [o for o in read_log(video.with_suffix(".truth.jsonl")) if o.type == "hand_displayed"]
    for t, r in sent:
        if r.kind != "mahjong_verified":
            continue
        said = next((v for _, v in heard if v.text.startswith("Mah Jongg,") and v.heard >= t), None)
        laid = truths[0].t if truths else None
        mahjong.append({"verified_to_heard_ms": round((said.heard - t) * 1000, 1) if said else None,
                        "laid_to_verified_ms": round((t - (source.t0 + laid)) * 1000, 1) if laid is not None
                        else None,
                        # in the recording's own time: what the reader needs, whatever the CPU
                        "laid_to_verified_frames_ms": round((table_t[id(r)] - laid) * 1000, 1)
                        if laid is not None else None})

    # 3. answers
    answers = []
    for t, question in presses:
        said = next((v for s, v in heard if s.kind == "answer" and v.heard >= t), None)
        answers.append({"question": question, "ms": round((said.heard - t) * 1000, 1) if said else None})

    # 4. discard -> speech start: each true discard to the first announcement heard of *its* tile (a discard cut
    # short and said again later must not pass for the next one)
    names = tuple(f", {spoken_name(t)}" for t in TILES)
    announced = [(v.heard, v.text) for _, v in heard if v.text.endswith(names)]
    landed = [(source.t0 + t, tile) for t, tile in truth_discards(video.with_suffix(".truth.jsonl"))]
    each = discard_latencies(landed, announced)
    latencies, missed = [x for x in each if x is not None], sum(1 for x in each if x is None)
    # the same over the discards the watch ruled on while keeping up with the recording (within KEPT_UP_MS of
    # it): what speech gives where the shared CPU was not holding the table reader back
    rulings = [(t, r) for t, r in sent if r.kind == "window_opened"]
    ruled_on = first_of_each(landed, rulings,
                             lambda r, tile: name_or_code((r.data or {}).get("tile")) == name_or_code(tile))
    kept_up = []
    for i, ms in zip(ruled_on, each, strict=True):
        if i is not None and ms is not None:
            t, r = rulings[i]
            if (t - (source.t0 + table_t[id(r)])) * 1000 <= KEPT_UP_MS:
                kept_up.append(round(ms, 1))
    # the speaker's own share: the discard's ruling sent -> its sentence heard
    ruled = [(t, name_or_code((r.data or {}).get("tile"))) for t, r in sent if r.kind == "window_opened"]
    own = [min((h for h, text in announced if h >= t and text.endswith(f", {said}")), default=None)
           for t, said in ruled]
    speech_share = [round((h - t) * 1000, 1) for (t, _), h in zip(ruled, own, strict=True) if h is not None]
    # and how far behind the recording the watch ran when it ruled on a discard (CPU, not speech)
    behind = [round((t - (source.t0 + table_t[id(r)])) * 1000, 1) for t, r in sent if r.kind == "window_opened"]
    outcome = next((r.kind for _, r in sent if r.kind in ("mahjong_verified", "wall_game")), "unfinished")
    timeline = sorted([(t, f"ruling {r.kind} {r.seat if r.seat is not None else ''}") for t, r in sent]
                      + [(t, f"press {q}") for t, q in presses]
                      + [(v.heard, f"heard {v.text!r}" + (f" (cut: {s.cut})" if s.cut else "")) for s, v in heard])
    return {"recording": str(video), "detector": "model" if model else "oracle", "frames": result.frames,
            "outcome": outcome, "sentences_heard": len(heard), "sentences_cut": sum(1 for s in log if s.cut),
            "checked": checked, "untrue": untrue, "overran_ms": overran, "mahjong": mahjong, "answers": answers,
            "discards": len(latencies) + missed, "discards_missed": missed,
            "discard_to_speech_ms": [round(x, 1) for x in latencies], "ruling_to_speech_ms": speech_share,
            "discard_to_speech_kept_up_ms": kept_up,
            "watch_behind_ms": behind,
            "timeline": [f"{t - source.t0:7.2f} {what}" for t, what in timeline]}


def summary(runs: list[dict]) -> dict:
    lat = [x for r in runs for x in r["discard_to_speech_ms"]]
    answers = [a["ms"] for r in runs for a in r["answers"]]
    heard = [m["verified_to_heard_ms"] for r in runs for m in r["mahjong"]]
    laid = [m["laid_to_verified_ms"] for r in runs for m in r["mahjong"] if m["laid_to_verified_ms"] is not None]
    read = [m["laid_to_verified_frames_ms"] for r in runs for m in r["mahjong"]
            if m["laid_to_verified_frames_ms"] is not None]
    over = [x for r in runs for x in r["overran_ms"]]
    share = [x for r in runs for x in r["ruling_to_speech_ms"]]
    behind = [x for r in runs for x in r["watch_behind_ms"]]
    kept = [x for r in runs for x in r["discard_to_speech_kept_up_ms"]]
    return {
        "recordings": len(runs), "outcomes": [r["outcome"] for r in runs],
        "sentences_heard": sum(r["sentences_heard"] for r in runs),
        "sentences_checked": sum(r["checked"] for r in runs),
        "heard_untrue": sum(len(r["untrue"]) for r in runs),
        "cut_overrun_ms_max": max(over) if over else 0.0, "cut_overruns_past_grace": sum(
            1 for x in over if x > CUT_GRACE_S * 1000),
        "mahjong": len(heard), "mahjong_unheard": sum(1 for x in heard if x is None),
        "mahjong_verified_to_heard_ms_max": max((x for x in heard if x is not None), default=None),
        "laid_to_verified_ms_max": max(laid, default=None),
        "laid_to_verified_in_recording_time_ms_max": max(read, default=None),
        "answers": len(answers), "answers_unheard": sum(1 for x in answers if x is None),
        "answer_ms_max": max((x for x in answers if x is not None), default=None),
        "answer_ms_p95": round(pct([x for x in answers if x is not None], 95), 1),
        "discards": sum(r["discards"] for r in runs), "discards_missed": sum(r["discards_missed"] for r in runs),
        "discard_to_speech_ms": {"median": round(pct(lat, 50), 1), "p95": round(pct(lat, 95), 1),
                                 "max": round(max(lat), 1) if lat else None},
        "discard_to_speech_kept_up_ms": {"n": len(kept), "median": round(pct(kept, 50), 1),
                                         "p95": round(pct(kept, 95), 1)},
        "discard_ruling_to_speech_ms": {"median": round(pct(share, 50), 1), "p95": round(pct(share, 95), 1)},
        "watch_behind_at_discards_ms": {"median": round(pct(behind, 50), 1), "p95": round(pct(behind, 95), 1)},
    }


def verdicts(s: dict) -> dict[str, bool]:
    """The goals of issue 43, met or not."""
    return {
        "no sentence heard after its fact ended": s["heard_untrue"] == 0 and s["cut_overruns_past_grace"] == 0,
        "Mah Jongg heard within 1 s of its verification": s["mahjong_unheard"] == 0
        and (s["mahjong_verified_to_heard_ms_max"] or 0) <= 1000,
        "laid-down hand verified within 1 s": (s["laid_to_verified_ms_max"] or 0) <= 1000,
        "answer heard within 1 s of the key press": s["answers_unheard"] == 0 and (s["answer_ms_max"] or 0) <= 1000,
        "discard -> speech start p95 <= 500 ms": s["discard_to_speech_ms"]["p95"] <= 500,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--video", type=Path, nargs="+", required=True,
                    help="recordings, each with NAME.truth.jsonl (and NAME.boxes.npz for the oracle) beside it")
    ap.add_argument("--model", action="store_true", help="read tiles with the shipped model, not the true boxes")
    ap.add_argument("--press-every", type=float, default=8.0, metavar="S", help="seconds between 'who' presses")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    runs = []
    for video in args.video:
        if not video.with_suffix(".truth.jsonl").exists():
            print(f"{video}: no truth log beside it; skipped", file=sys.stderr)
            continue
        runs.append(run_recording(video, args.model, args.press_every))
        if not args.json:
            r = runs[-1]
            print(f"{video.name}: {r['outcome']}, {r['sentences_heard']} heard ({r['sentences_cut']} cut), "
                  f"{len(r['untrue'])} untrue, discards {r['discard_to_speech_ms']} ms", flush=True)
    if not runs:
        print("no recording with a truth log", file=sys.stderr)
        return 2
    s = summary(runs)
    out = {"summary": s, "goals": verdicts(s), "runs": runs}
    if args.json:
        print(json.dumps(out))
    else:
        d = s["discard_to_speech_ms"]
        print(f"\n{s['recordings']} recordings ({', '.join(s['outcomes'])}); {s['sentences_heard']} sentences heard, "
              f"{s['sentences_checked']} checked: {s['heard_untrue']} heard after their fact ended; audio past a "
              f"fact's end at most {s['cut_overrun_ms_max']} ms ({s['cut_overruns_past_grace']} over "
              f"{CUT_GRACE_S * 1000:.0f} ms)")
        print(f"Mah Jongg: {s['mahjong']} ({s['mahjong_unheard']} unheard), verified -> heard at most "
              f"{s['mahjong_verified_to_heard_ms_max']} ms; laid down -> verified at most "
              f"{s['laid_to_verified_ms_max']} ms ({s['laid_to_verified_in_recording_time_ms_max']} ms in the "
              "recording's own time)")
        print(f"answers: {s['answers']} key presses ({s['answers_unheard']} unanswered), press -> heard p95 "
              f"{s['answer_ms_p95']} ms, max {s['answer_ms_max']} ms")
        print(f"discard -> speech start: median {d['median']} ms, p95 {d['p95']} ms, max {d['max']} ms over "
              f"{s['discards'] - s['discards_missed']} discards ({s['discards_missed']} never announced); of which "
              f"ruling -> speech median {s['discard_ruling_to_speech_ms']['median']} ms, p95 "
              f"{s['discard_ruling_to_speech_ms']['p95']} ms; the watch ran behind the recording by median "
              f"{s['watch_behind_at_discards_ms']['median']} ms, p95 {s['watch_behind_at_discards_ms']['p95']} ms "
              "(CPU)")
        k = s["discard_to_speech_kept_up_ms"]
        print(f"  over the {k['n']} discards ruled on with the watch within {KEPT_UP_MS} ms of the recording: "
              f"median {k['median']} ms, p95 {k['p95']} ms")
        for goal, met in out["goals"].items():
            print(f"  {'met' if met else 'NOT MET'}: {goal}")
    return 0 if all(out["goals"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
