"""The user's profile: one TOML file naming the camera, card, scoring, seats, board, speech and display.

A table is set up once and used many evenings, so everything a player would otherwise type on the command line
lives in this file. ``mahj init`` writes a commented default (``DEFAULT_PROFILE``) so the file documents itself;
``docs/assistant.md`` describes each key. Reading is strict: an unknown key or a value of the wrong kind is an
error naming ``file:line``, because a silently ignored typo ("spech") would leave a low-vision player without
speech and nobody would know why.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SEAT_NAMES = ("East", "South", "West", "North")
SCORING_PROFILES = ("nmjl", "mahjcon")
VERBOSITY = ("quiet", "normal", "verbose")
SPEECH_ENGINES = ("espeak-ng", "flite", "none")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")

DEFAULT_PROFILE = """\
# mahj profile: the table's setup, read by `mahj watch` and `mahj demo` (`--profile FILE`).
# Every key is optional; what is shown is the default. docs/assistant.md explains each one.

[camera]
# Camera index (0 = first camera), or a video file or a folder of frames to read instead.
source = 0
# A camera that sees the whole table needs 1080p: tiles are then about 25 px wide, enough to read.
width = 1920
height = 1080
fps = 30
# Your own tile set, as learned with `mahj setup tiles --set NAME`. Empty = the shipped tile model.
tile_set = ""

[calibration]
# File written by `mahj calibrate` (table corners, which rack is which seat). Empty = calibrate from
# the fiducial markers in the first frames.
file = ""

[game]
# The year's card: a .card file. Empty = the card bundled with mahj.
card = ""
# How hands are paid: "nmjl" (home play) or "mahjcon" (tournament points), or a path to your own
# scoring profile TOML.
scoring = "nmjl"
# Where the game journal is written (one JSON line per event and ruling). Relative paths are relative
# to this file.
journal_dir = "journal"

[seats]
# Players' names by seat, in turn order. A 3-player table leaves one seat empty ("").
east = "East"
south = "South"
west = "West"
north = "North"

[board]
# Signal board: "sim" (simulated, no hardware), "simavr" (firmware in the simulator),
# a serial port such as "/dev/ttyACM0", or "auto" to find a board by its USB id. "none" = no board.
port = "sim"

[speech]
# "espeak-ng", "flite" (Debian package flite: a somewhat more natural voice, set voice = "slt"), or "none".
engine = "espeak-ng"
# espeak-ng voice (`espeak-ng --voices=en` lists them).
voice = "en-us"
# Words per minute (80-450).
rate = 165
# Volume 0-200 (espeak-ng amplitude).
volume = 100
# "quiet": window closed, Mah Jongg, help requests only; "normal": also discards and claims;
# "verbose": also whose turn and every ruling.
verbosity = "normal"
# Announcements older than this many seconds are dropped rather than spoken late.
max_delay = 4.0
# Empty = the computer's audio device; a folder = write each announcement there as a WAV file.
wav_dir = ""

[display]
# The large-print web display. 127.0.0.1 = this computer only. To reach it from a tablet on the LAN,
# set host = "0.0.0.0" AND a token (the page is then opened as http://HOST:PORT/?token=TOKEN).
enabled = true
host = "127.0.0.1"
port = 8765
# Needed for corrections from the page, always; and for any access from another machine. Empty = a new
# random token each start (printed with the URL).
token = ""
# Starting text size in percent (the page has bigger/smaller buttons too).
text_size = 150
"""


class ProfileError(ValueError):
    """A profile that cannot be used; the message starts with ``file:line:`` (or ``file:`` if no line)."""


@dataclass(frozen=True)
class CameraSettings:
    source: int | str = 0
    width: int = 1920
    height: int = 1080
    fps: float = 30.0
    tile_set: str = ""          # an enrolled set's name (vision.tile_model.sets_dir); "" = the shipped model


@dataclass(frozen=True)
class SpeechSettings:
    engine: str = "espeak-ng"
    voice: str = "en-us"
    rate: int = 165
    volume: int = 100
    verbosity: str = "normal"
    max_delay: float = 4.0
    wav_dir: Path | None = None


@dataclass(frozen=True)
class DisplaySettings:
    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = 8765
    token: str = ""
    text_size: int = 150


@dataclass(frozen=True)
class Profile:
    """The parsed profile. Paths are absolute (resolved against the profile file's folder)."""

    path: Path | None = None
    camera: CameraSettings = field(default_factory=CameraSettings)
    calibration: Path | None = None
    card: Path | None = None
    scoring: str = "nmjl"
    journal_dir: Path = Path("journal")
    players: tuple[str, str, str, str] = SEAT_NAMES
    board_port: str = "sim"
    speech: SpeechSettings = field(default_factory=SpeechSettings)
    display: DisplaySettings = field(default_factory=DisplaySettings)

    def player(self, seat: int | None) -> str:
        """How to call a seat aloud and on screen: the player's name, or the wind if no name is set."""
        if seat is None or not 0 <= seat < 4:
            return "someone"
        return self.players[seat] or SEAT_NAMES[seat]

    @property
    def seats_in_play(self) -> list[int]:
        return [i for i, name in enumerate(self.players) if name]

    @property
    def table_size(self) -> int:
        """4, or 3 when north is empty (the referee numbers a 3-player table's chairs 0..2)."""
        return len(self.seats_in_play)


def write_default(path: str | Path, overwrite: bool = False) -> Path:
    """Write the commented default profile; refuses to overwrite an existing file unless asked."""
    p = Path(path)
    if p.exists() and not overwrite:
        raise ProfileError(f"{p}: already exists (use --force to overwrite)")
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(DEFAULT_PROFILE, encoding="utf-8")
    return p


def load_profile(path: str | Path | None) -> Profile:
    """Read a profile file; ``None`` gives the defaults (journal under the current directory)."""
    if path is None:
        return parse_profile(DEFAULT_PROFILE, "<default profile>", base=Path.cwd())
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")  # an editor's byte-order mark is no error (cards accept it too)
    except OSError as exc:
        raise ProfileError(f"{p}: cannot read profile: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ProfileError(f"{p}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return parse_profile(text, str(p), base=p.resolve().parent, path=p)


# --- parsing and checking ---------------------------------------------------------------------------------

_SCHEMA: dict[str, dict[str, tuple[type, ...]]] = {
    "camera": {"source": (int, str), "width": (int,), "height": (int,), "fps": (int, float), "tile_set": (str,)},
    "calibration": {"file": (str,)},
    "game": {"card": (str,), "scoring": (str,), "journal_dir": (str,)},
    "seats": {"east": (str,), "south": (str,), "west": (str,), "north": (str,)},
    "board": {"port": (str,)},
    "speech": {
        "engine": (str,), "voice": (str,), "rate": (int,), "volume": (int,), "verbosity": (str,),
        "max_delay": (int, float), "wav_dir": (str,),
    },
    "display": {"enabled": (bool,), "host": (str,), "port": (int,), "token": (str,), "text_size": (int,)},
}


class _Locator:
    """Finds the line of ``[table]`` and ``table.key`` in TOML text, so value errors can name a line.

    tomllib gives line numbers only for syntax errors; a light scan of headers and ``key =`` lines is enough for
    the flat two-level layout of a profile.
    """

    _HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]")
    _KEY = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")

    def __init__(self, text: str) -> None:
        self.lines: dict[str, int] = {}
        table = ""
        for n, line in enumerate(text.splitlines(), start=1):
            if m := self._HEADER.match(line):
                table = m.group(1)
                self.lines.setdefault(table, n)
            elif m := self._KEY.match(line):
                self.lines.setdefault(f"{table}.{m.group(1)}" if table else m.group(1), n)

    def where(self, key: str) -> int | None:
        return self.lines.get(key) or self.lines.get(key.split(".")[0])


def profile_tile_set(path: str | Path | None) -> str:
    """The learned tile set a profile reads with ("" for none, or no profile given): what `mahj detect` and
    `mahj hand` read a photo with unless --set or --no-set says otherwise."""
    return load_profile(path).camera.tile_set if path is not None else ""


def parse_profile(text: str, filename: str = "<profile>", base: Path | None = None,
                  path: Path | None = None) -> Profile:
    """Parse and check profile text; every problem is a ``ProfileError`` naming ``filename:line``."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        where = f"{m.group(1)}:{m.group(2)}" if m else "1"
        raise ProfileError(f"{filename}:{where}: {msg}") from None
    loc = _Locator(text)
    base = base or Path.cwd()

    def fail(key: str, msg: str) -> ProfileError:
        line = loc.where(key)
        return ProfileError(f"{filename}:{line}: {key}: {msg}" if line else f"{filename}: {key}: {msg}")

    for table, value in data.items():
        if table not in _SCHEMA:
            raise fail(table, f"unknown section (known: {', '.join(_SCHEMA)})")
        if not isinstance(value, dict):
            raise fail(table, "must be a [section]")
        for key, v in value.items():
            kinds = _SCHEMA[table].get(key)
            if kinds is None:
                raise fail(f"{table}.{key}", f"unknown key (known: {', '.join(_SCHEMA[table])})")
            if not isinstance(v, kinds) or (isinstance(v, bool) and bool not in kinds):
                names = " or ".join({int: "a whole number", float: "a number", str: "text",
                                     bool: "true/false"}[k] for k in kinds)
                raise fail(f"{table}.{key}", f"must be {names}, not {v!r}")

    def get(table: str, key: str, default: Any) -> Any:
        return data.get(table, {}).get(key, default)

    def a_path(value: str) -> Path | None:
        return (base / Path(value).expanduser()).resolve() if value else None

    def choice(table: str, key: str, default: str, allowed: tuple[str, ...]) -> str:
        v = get(table, key, default)
        if v not in allowed:
            raise fail(f"{table}.{key}", f"must be one of {', '.join(allowed)}, not {v!r}")
        return v

    def in_range(table: str, key: str, default: float, lo: float, hi: float) -> Any:
        v = get(table, key, default)
        if not lo <= v <= hi:
            raise fail(f"{table}.{key}", f"must be between {lo:g} and {hi:g}, not {v!r}")
        return v

    source = get("camera", "source", 0)
    if isinstance(source, str):
        source = str(a_path(source)) if source else 0
    camera = CameraSettings(source=source, width=in_range("camera", "width", 1920, 64, 8192),
                            height=in_range("camera", "height", 1080, 64, 8192),
                            fps=float(in_range("camera", "fps", 30, 1, 240)),
                            tile_set=get("camera", "tile_set", ""))

    scoring = get("game", "scoring", "nmjl")
    if scoring not in SCORING_PROFILES:
        if not scoring.endswith(".toml"):
            raise fail("game.scoring", f"must be nmjl, mahjcon or a .toml file, not {scoring!r}")
        scoring = str(a_path(scoring))

    players = tuple(get("seats", s.lower(), s) for s in SEAT_NAMES)
    if sum(1 for p in players if p) < 3:
        raise fail("seats", "at least three seats need a player")
    if not all(players[:3]):
        raise fail("seats", 'a 3-player table leaves north empty (north = ""): play runs East, South, West')

    speech = SpeechSettings(
        engine=choice("speech", "engine", "espeak-ng", SPEECH_ENGINES),
        voice=get("speech", "voice", "en-us"),
        rate=in_range("speech", "rate", 165, 80, 450),
        volume=in_range("speech", "volume", 100, 0, 200),
        verbosity=choice("speech", "verbosity", "normal", VERBOSITY),
        max_delay=float(in_range("speech", "max_delay", 4.0, 0.5, 60)),
        wav_dir=a_path(get("speech", "wav_dir", "")),
    )
    display = DisplaySettings(
        enabled=get("display", "enabled", True),
        host=get("display", "host", "127.0.0.1"),
        port=in_range("display", "port", 8765, 0, 65535),
        token=get("display", "token", ""),
        text_size=in_range("display", "text_size", 150, 50, 400),
    )
    if display.host not in LOOPBACK_HOSTS and not display.token:
        raise fail("display.host", f"{display.host!r} is reachable from the network: set display.token too")
    if display.token and (len(display.token) < 8 or any(ch.isspace() for ch in display.token)):
        raise fail("display.token", "use at least 8 characters, without spaces")

    board = get("board", "port", "sim")
    if not board:
        raise fail("board.port", 'must name a port, "sim", "simavr", "auto" or "none"')

    return Profile(
        path=path, camera=camera, calibration=a_path(get("calibration", "file", "")),
        card=a_path(get("game", "card", "")), scoring=scoring,
        journal_dir=a_path(get("game", "journal_dir", "journal")) or base / "journal",
        players=players,  # type: ignore[arg-type]
        board_port=board, speech=speech, display=display,
    )
