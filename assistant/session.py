"""One watched game from start to end: what ``mahj watch`` and ``mahj demo`` both run.

Opens the journal first (resuming it if it already holds a game), then the parts (wiring.build), the frame
source, the calibration and the tile model, and runs the pipeline until the source ends, the game is over (for
recordings) or the user presses Ctrl-C. Whatever happens, the journal holds every event already ruled on, and
the summary says how to resume.
"""

from __future__ import annotations

import math
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assistant.annotate import UNSHOWN, AnnotatedWriter, reader_tiles, result_lines
from assistant.console import describe_ruling
from assistant.display.seats import tell_links
from assistant.journal import Journal, check_record, header_record, read_journal, referee_from_header
from assistant.pipeline import Assistant, run
from assistant.profile import Profile
from assistant.sources import FrameSource
from assistant.startup_check import StartupCheck
from assistant.wiring import KEY_HELP, Options, SetupError, build, card_and_scoring_texts, start_keyboard


@dataclass
class SessionResult:
    journal: Path
    frames: int = 0
    resumed_events: int = 0
    interrupted: bool = False
    rulings: list[Any] = field(default_factory=list)
    assistant: Assistant | None = None
    display_url: str | None = None
    annotated: Path | None = None
    seconds: float = 0.0

    @property
    def mahjong(self) -> dict | None:
        return next((r.to_json() for r in self.rulings if r.kind == "mahjong_verified"), None)

    @property
    def settlement(self) -> dict | None:
        return next((r.to_json() for r in reversed(self.rulings) if r.kind == "settlement"), None)


def open_calibration(profile: Profile, first_frame: Any) -> Any:
    """The profile's saved calibration, or one found from the corner markers in the first frame."""
    from vision.calibration import Calibration, CalibrationError, calibrate_frame

    try:
        if profile.calibration is not None:
            return Calibration.load(profile.calibration)
        return calibrate_frame(first_frame)
    except (CalibrationError, OSError, ValueError) as exc:
        raise SetupError(f"calibration: {exc} (run `mahj calibrate` and set calibration.file in the profile)") from None


def open_model(tile_set: str = "") -> Any:
    """The shipped tile model, or the one adapted to the user's own set (``camera.tile_set``, `mahj setup tiles`)."""
    from vision.enroll import load_set
    from vision.tile_model import TileModel, sets_dir

    if tile_set and not (sets_dir() / tile_set).is_dir():
        raise SetupError(f"camera.tile_set: no set {tile_set!r} in {sets_dir()} (see `mahj setup tiles --list`)")
    try:
        return load_set(sets_dir() / tile_set) if tile_set else TileModel.load()
    except (OSError, ValueError, RuntimeError) as exc:
        raise SetupError(f"tile model: {exc}") from None


def warn_camera(assistant: Assistant, lines: list[str]) -> None:
    """The camera check's failures: a line each on the console, and a standing warning on the display."""
    for line in lines:
        assistant.console.text(line)
    if lines:
        assistant.view.camera_warnings(lines)
        if assistant.display is not None:
            assistant.display.publish(assistant.view.snapshot())


def resumable(records: list[dict[str, Any]], lines: list[int], path: Path) -> dict[str, Any] | None:
    """The journal's header (None if it has none), once every record is one a resume can use; otherwise a
    SetupError naming the first bad record's line."""
    for record, line in zip(records, lines, strict=True):
        problem = check_record(record)
        if problem is not None:
            raise SetupError(f"{path}:{line}: {problem}; this journal cannot be resumed (start a new one)")
    return next((r for r in records if r.get("kind") == "header"), None)


def referee_of(header: dict[str, Any], line: int, path: Path) -> Any:
    """The referee a journal's header describes; a card or scoring profile it holds that does not parse is a
    SetupError naming the journal line (not the sample card or a profile file)."""
    from engine.card import CardError
    from engine.referee import ProfileError

    try:
        return referee_from_header(header, where=f"{path}:{line}")
    except (CardError, ProfileError) as exc:
        raise SetupError("\n".join(exc.diagnostics)) from None


def watch(profile: Profile, opts: Options, source: FrameSource, journal_path: Path, *,
          annotate: Path | None = None, keyboard: bool = True, stop_at_game_over: bool = False,
          linger: float = 0.0, detector: Any = None) -> SessionResult:
    """Run the assistant on ``source`` until it ends (or Ctrl-C); returns what happened. ``detector``: what
    finds the tiles (default: the shipped tile model)."""
    result = SessionResult(journal=journal_path)
    start = time.monotonic()
    with ExitStack() as stack:
        lines: list[int] = []
        records = list(read_journal(journal_path, line_numbers=lines)) if journal_path.exists() else []
        header = resumable(records, lines, journal_path)
        journal = stack.enter_context(Journal(journal_path))
        assistant = build(profile, opts, stack, journal)
        if header is not None:  # a resumed game keeps the card and scoring it started with
            assistant.referee = referee_of(header, lines[records.index(header)], journal_path)
        elif not records:
            journal.append(header_record(*card_and_scoring_texts(profile), players=assistant.referee.players))
        result.assistant = assistant
        console = assistant.console
        if assistant.display is not None:
            result.display_url = assistant.display.url
            console.text(f"display: {assistant.display.url}", url=assistant.display.url)
            if assistant.display.seats is not None:
                tell_links(assistant.display.seats, console.text, assistant.display.host, qr=not console.json)
            if opts.on_display is not None:
                opts.on_display(assistant.display.url)
        if not records or not source.live:  # a replayed recording joins its game again, as the journal checks
            assistant.join = opts.join
        if records:
            rest = [(r, n) for r, n in zip(records, lines, strict=True) if r is not header]
            last = assistant.resume([r for r, _ in rest], [n for _, n in rest], str(journal_path),
                                    frames_replay=not source.live)
            result.resumed_events = sum(1 for r in records if r.get("kind") == "event")
            console.text(f"resumed {journal_path}: {result.resumed_events} events, "
                         + ("the camera goes on" if source.live else
                            "playing the recording from its start" if last < 0 else f"continuing after frame {last}"))
        frames = iter(source)
        try:
            first = next(frames)
        except StopIteration:
            raise SetupError(f"{source.spec}: no frames") from None
        calibration = open_calibration(profile, first.image)
        from vision.reader import TableReader

        model = detector if detector is not None else open_model(profile.camera.tile_set)
        if detector is None and profile.camera.tile_set:
            console.text(f"tiles read with your set '{profile.camera.tile_set}' (camera.tile_set; `mahj watch "
                         "--no-set` reads with the shipped model)")
        from vision.tile_model import TileModel

        # `mahj setup camera`'s checks over the first seconds: warn, never stop. Only with the real tile model (the
        # oracle and test stand-ins read no pixels).
        startup = StartupCheck(model, calibration=calibration) if isinstance(model, TileModel) else None

        def check_camera(frame: Any) -> None:
            checks = startup.offer(frame.image, frame.t) if frame is not None else startup.finish()
            if checks is not None:
                warn_camera(assistant, startup.warnings(checks))

        reader = TableReader(calibration, model, fps=source.fps)
        writer: AnnotatedWriter | None = None
        if annotate is not None:
            h, w = first.image.shape[:2]
            writer = AnnotatedWriter(annotate, source.fps, (w, h))
            stack.callback(writer.close)
            result.annotated = annotate
        if keyboard and start_keyboard(assistant) is not None and sys.stdin.isatty():
            console.text(KEY_HELP)
        first_ruling = len(assistant.rulings)  # rulings before it are the resumed game's, not this video's
        noted = [first_ruling]

        def on_frame(frame: Any, observations: list) -> None:
            result.frames += 1
            if startup is not None and not startup.done:
                check_camera(frame)
            if writer is not None:
                for r in assistant.rulings[noted[0]:]:
                    if r.kind not in UNSHOWN:
                        writer.note(describe_ruling(r, assistant.name))
                noted[0] = len(assistant.rulings)
                board_state = assistant.board.state() if assistant.board is not None else None
                writer.write(frame.image, reader_tiles(reader, calibration), assistant.view.window, board_state,
                             frame.t)

        def over() -> bool:
            return stop_at_game_over and any(r.kind == "game_over" for r in assistant.rulings[-8:])

        def all_frames() -> Any:
            yield first
            yield from frames

        try:
            run(assistant, all_frames(), reader, on_frame=on_frame, stop=over)
            if startup is not None:  # a recording shorter than the window: the verdict on what was seen
                check_camera(None)
        except KeyboardInterrupt:
            result.interrupted = True
            console.text(f"stopped: the journal {journal_path} holds every event; run the same command again "
                         "to resume")
        finally:
            source.close()
            if assistant.speaker is not None:
                assistant.speaker.drain(timeout=8.0)
            if assistant.board is not None:
                assistant.board.wait_applied(timeout=1.0)
        result.rulings = list(assistant.rulings)
        if writer is not None:
            writer.hold_result(result_lines(assistant.rulings[first_ruling:], assistant.name))
        if linger > 0 and assistant.display is not None and not result.interrupted:
            until = "until you press Ctrl-C" if math.isinf(linger) else f"for {linger:g} s (Ctrl-C to end sooner)"
            console.text(f"the display stays up at {assistant.display.url} {until}; the summary follows")
            try:
                end = time.monotonic() + linger
                while time.monotonic() < end:
                    time.sleep(min(3600.0, end - time.monotonic()))
            except KeyboardInterrupt:
                pass
    result.seconds = time.monotonic() - start
    return result
