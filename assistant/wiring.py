"""Opening the parts a profile names (card, scoring, referee, board, speech, display) and closing them again.

``mahj watch`` and ``mahj demo`` differ only in where frames come from and where output goes, so both build
their ``Assistant`` here. Every failure to open a part is a clear one-line error naming the part and the file or
port; an optional part that cannot start (no audio device, port in use) is reported and left off rather than
stopping a game.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assistant.console import Console
from assistant.pipeline import Assistant
from assistant.profile import Profile
from engine.card import SAMPLE_CARD, CardError, load_card
from engine.referee import Referee
from engine.referee.profile import PROFILES_DIR, ProfileError, parse_profile
from engine.tiles import parse_tile


class SetupError(RuntimeError):
    """A part could not be opened; the message says which and why."""


@dataclass
class Options:
    """Command-line choices that override the profile."""

    as_json: bool = False
    speech: bool = True
    display: bool = True
    board_port: str | None = None
    wav_dir: Path | None = None
    quiet: bool = False
    on_display: Callable[[str], Any] | None = None  # called with the display URL once it is up
    join: dict | None = None  # join a game in progress: {east, turn, wall}, None where not known
    tournament: dict | None = None  # report finished games: {url, table, token, queue, round, game}


def load_scoring(profile: Profile) -> Any:
    path = scoring_path(profile)
    try:
        return parse_profile(path.read_text(encoding="utf-8-sig"), str(path))
    except OSError as exc:
        raise SetupError(f"{path}: cannot read the scoring profile: {exc.strerror or exc}") from None
    except ProfileError as exc:
        raise SetupError(str(exc)) from None


def scoring_path(profile: Profile) -> Path:
    if profile.scoring in ("nmjl", "mahjcon"):
        return PROFILES_DIR / f"{profile.scoring}.toml"
    return Path(profile.scoring)


def card_and_scoring_texts(profile: Profile) -> tuple[str, str, str, str]:
    """(card text, card name, scoring text, scoring name) for the journal header, so a journal replays alone."""
    card = profile.card or SAMPLE_CARD
    scoring = scoring_path(profile)
    return card.read_text(encoding="utf-8-sig"), str(card), scoring.read_text(encoding="utf-8-sig"), str(scoring)


def load_game_card(profile: Profile) -> Any:
    try:
        return load_card(profile.card or SAMPLE_CARD)
    except CardError as exc:
        raise SetupError("\n".join(exc.diagnostics)) from None
    except OSError as exc:
        raise SetupError(f"{profile.card}: cannot read the card: {exc.strerror or exc}") from None


def build(profile: Profile, opts: Options, stack: ExitStack, journal: Any = None) -> Assistant:
    """An Assistant with everything the profile and options ask for; ``stack`` closes them in reverse order."""
    referee = Referee(load_game_card(profile), load_scoring(profile), players=profile.table_size)
    console = Console(profile.player, as_json=opts.as_json, quiet=opts.quiet)
    assistant = Assistant(referee, profile.players, journal=journal, console=console)

    port = opts.board_port or profile.board_port
    if port != "none":
        from hardware.driver import open_board

        try:
            board = open_board(None if port == "auto" else port)
        except Exception as exc:  # any failure to open the board must not stop a game
            console.text(f"board on {port}: not available ({exc}); going on without it")
        else:
            assistant.board = board
            stack.callback(board.close)

    if opts.speech and profile.speech.engine != "none":
        from assistant.speech import Speaker

        settings = profile.speech
        speaker = Speaker.from_settings(settings) if opts.wav_dir is None else Speaker(
            engine=settings.engine, voice=settings.voice, rate=settings.rate, volume=settings.volume,
            verbosity=settings.verbosity, max_delay=settings.max_delay, wav_dir=opts.wav_dir)
        assistant.speaker = speaker
        stack.callback(speaker.close)
        if speaker.problem:
            console.text(f"speech: {speaker.problem}")

    if opts.tournament is not None:
        from assistant.tournament.client import Queue, Sender, TableReporter

        t = opts.tournament
        reporter = TableReporter(Sender(t["url"], t["table"], t["token"]), Queue(t["queue"]), round_no=t.get("round"),
                                 game=t.get("game"), hand_of=assistant.view.declared.get,
                                 seats=lambda: assistant.referee.snapshot()["seats"],
                                 say=lambda text: console.text(f"tournament: {text}"))
        assistant.reporter = reporter
        stack.callback(reporter.close)

    if opts.display and profile.display.enabled:
        from assistant.display import DisplayServer
        from assistant.display.seats import SeatPages

        d = profile.display
        seats = SeatPages(profile.players, model=lambda: seat_model(profile), card=lambda: assistant.referee.card)
        server = DisplayServer(d.host, d.port, d.token, d.text_size, on_correction=assistant.request,
                               initial=assistant.view.snapshot(), seats=seats)
        try:
            server.start()
        except OSError as exc:
            console.text(f"display: {exc}; going on without it")
        else:
            assistant.display = server
            stack.callback(server.stop)
    return assistant


def seat_model(profile: Profile) -> Any:
    """The tile model a seat's rack photo is read with: the profile's learned set, as the camera's."""
    from assistant.session import open_model

    return open_model(profile.camera.tile_set)


KEY_HELP = ("keys: u = undo the last thing (a correction, else the last ruling) | ok / cancel = do / leave a "
            "correction that ends or restarts a game | f TILE = the last discard was really TILE | hand TILE as "
            "TILE = a tile of the hand shown was misread | c SEAT [mj] = claim for seat 0-3 (East South West "
            "North), mj for Mah Jongg | y / n [ID] = yes / no to the question (the newest, or number ID) | east "
            "SEAT / turn SEAT / wall N = a game joined in progress: who is East, whose turn it is, wall tiles left "
            "| link SEAT / relink SEAT = a seat's private page link (relink: a new one, the old one stops working) "
            "| r = repeat | who = whose turn | wind [SEAT] = seat winds | out TILE = how many of TILE are out "
            "| h = this help")


def parse_key_command(line: str) -> dict | str:
    """A keyboard correction as typed at the watch/demo prompt -> a checked request, or an error message."""
    from assistant.display.app import check_correction

    words = line.strip().split()
    if not words:
        return ""
    cmd, rest = words[0].lower(), words[1:]
    try:
        if cmd in ("u", "undo", "ok", "cancel"):
            return check_correction({"action": "undo" if cmd == "u" else cmd})
        if cmd in ("y", "yes", "n", "no"):
            index = int(rest[0]) if rest and rest[0].isdigit() else None
            if rest and index is None:
                return f"not done: {rest[0]!r} is not a question number"
            return check_correction({"action": "answer", "id": index, "confirmed": cmd in ("y", "yes")})
        if cmd == "hand":
            wrong, _, right = " ".join(rest).partition(" as ")
            if not right:
                return "not done: say hand TILE as TILE (the tile read, as the tile it is), e.g. hand 5C as 5D"
            return check_correction({"action": "fix_hand", "tile": wrong, "as": right})
        if cmd in ("f", "fix"):
            return check_correction({"action": "fix_tile", "tile": " ".join(rest)})
        if cmd in ("east", "turn", "wall"):
            if not rest:
                return f"not done: {cmd} needs a {'number of tiles' if cmd == 'wall' else 'seat'}"
            value = int(rest[0]) if cmd == "wall" and rest[0].isdigit() else seat_number(rest[0])
            return check_correction({"action": "join", cmd: value if value is not None else rest[0]})
        if cmd in ("r", "repeat", "who", "wind", "winds"):  # questions: answered, never journaled
            seat = seat_number(rest[0]) if rest and cmd.startswith("wind") else None
            if rest and cmd.startswith("wind") and seat is None:
                return f"not done: {rest[0]!r} is not a seat (east, south, west, north or 0-3)"
            return {"ask": {"r": "repeat", "repeat": "repeat", "who": "turn"}.get(cmd, "wind"), "seat": seat}
        if cmd in ("link", "relink"):
            seat = seat_number(rest[0]) if rest else None
            if seat is None:
                return f"not done: say {cmd} SEAT (east, south, west, north or 0-3)"
            return {"seat_link": seat, "reissue": cmd == "relink"}
        if cmd == "out":
            return {"ask": "out", "tile": parse_tile(" ".join(rest))}
        if cmd in ("c", "claim"):
            seat = seat_number(rest[0]) if rest else None
            purpose = "mahjong" if len(rest) > 1 and rest[1].lower() in ("mj", "mahjong") else "exposure"
            return check_correction({"action": "claim", "seat": seat, "purpose": purpose})
    except ValueError as exc:  # TileError is a ValueError
        return f"not done: {exc}"
    return KEY_HELP


#: What each of a player's questions is about (assistant.speech_facts): the answer is made again if it changes
#: before it is said.
ANSWER_TOPICS = {"repeat": "news", "turn": "turn", "wind": "game", "out": "floor"}


def answer_aloud(assistant: Assistant, question: dict) -> str:
    """Answer a player's question (repeat, whose turn, seat winds, how many out) on the terminal and aloud,
    ahead of anything less important, interrupting a long sentence (assistant.speech)."""
    from assistant.display.answers import ask

    def make() -> str:
        return ask(assistant.view, question["ask"], question.get("tile"), question.get("seat"))

    text = make()
    assistant.console.text(text)
    if assistant.speaker is not None:
        assistant.speaker.answer(make, ANSWER_TOPICS[question["ask"]])
    return text


def seat_link(assistant: Assistant, seat: int, reissue: bool) -> None:
    """Show a seat's private page link and QR code on the console, after replacing it when ``reissue`` (a link
    someone else saw: the old one stops working at once)."""
    from assistant.display.seats import tell_links

    server = assistant.display
    if server is None or server.seats is None:
        assistant.console.text("no display is running, so there are no seat pages")
        return
    if reissue:
        server.seats.reissue(seat)
        assistant.console.text(f"{server.seats.label(seat)}: a new private link; the old one no longer works")
    tell_links(server.seats, assistant.console.text, server.host, [seat], qr=not assistant.console.json)


def seat_number(word: str) -> int | None:
    """A seat as people type it: a wind (east, e, ...) or its number 0-3; None if it is neither."""
    seats = {"e": 0, "east": 0, "s": 1, "south": 1, "w": 2, "west": 2, "n": 3, "north": 3}
    word = word.lower()
    return seats.get(word, int(word) if word.isdigit() and int(word) < 4 else None)


def start_keyboard(assistant: Assistant, stream: Any = None) -> threading.Thread | None:
    """Read corrections typed on stdin (when it is a terminal or a pipe) on a daemon thread."""
    stream = stream or sys.stdin
    if stream is None or stream.closed:
        return None

    def loop() -> None:
        try:
            for line in stream:
                got = parse_key_command(line)
                if isinstance(got, dict) and "ask" in got:
                    answer_aloud(assistant, got)
                elif isinstance(got, dict) and "seat_link" in got:
                    seat_link(assistant, got["seat_link"], got["reissue"])
                elif isinstance(got, dict):
                    got["source"] = "keyboard"
                    assistant.console.text(assistant.request(got)["message"])
                elif got:
                    assistant.console.text(got)
        except (OSError, ValueError):  # stdin closed or not readable (a service, a test): no keyboard then
            return

    thread = threading.Thread(target=loop, name="keyboard", daemon=True)
    thread.start()
    return thread
