"""Shared by the tournament tests: a database URL for each backend, a small tournament, report bodies.

PostgreSQL cases use MAHJ_TEST_POSTGRES_URL (``.ci/run`` starts a server and sets it), each test in a schema of
its own. Without the URL they skip, except under CI (the CI variable set), where a missing server must fail.
"""

import os
import uuid
from pathlib import Path

import pytest

from engine.card import SAMPLE_CARD
from engine.referee.profile import PROFILES_DIR

PG_ENV = "MAHJ_TEST_POSTGRES_URL"
BACKENDS = ["sqlite", "postgresql"]
NAMES = [f"Player {i:02d}" for i in range(1, 12)]  # 11 players at 3 tables: one 3-player table


def postgres_base() -> str:
    """MAHJ_TEST_POSTGRES_URL; without it the test skips, or fails under CI (the CI variable set)."""
    base = os.environ.get(PG_ENV)
    if not base:
        if os.environ.get("CI"):
            pytest.fail(f"{PG_ENV} is not set: CI must run the PostgreSQL cases (.ci/run starts the server)")
        pytest.skip(f"set {PG_ENV}=postgresql+psycopg://USER:PASSWORD@HOST/DB to run the PostgreSQL cases")
    return base


def database_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """A fresh, empty database of ``backend``; dropped again when the test ends."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'tournament.db'}"
    base = postgres_base()
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    plain = base.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")

    def drop() -> None:
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")

    request.addfinalizer(drop)
    sep = "&" if "?" in base else "?"
    return f"{base}{sep}options=-csearch_path%3D{schema}"


def profile_and_card() -> tuple[tuple[str, str], tuple[str, str]]:
    return ((PROFILES_DIR / "mahjcon.toml").read_text(), "mahjcon"), (SAMPLE_CARD.read_text(), str(SAMPLE_CARD))


def new_tournament(url: str, tables: int = 3, rounds: int = 3, games: int = 4, names=NAMES, seed: int = 1,
                   address: str | None = None):
    from assistant.tournament.store import Store

    profile, card = profile_and_card()
    return Store.create(url, "Spring Open", names, tables, rounds, games, profile, card, seed=seed, address=address)


def win(table: int, game: int, round_no: int = 1, client: str | None = None, **kw) -> dict:
    """A win by A on a discard from B, given as a card line, unless ``kw`` says otherwise."""
    body = {"round": round_no, "table": table, "game": game, "client_id": client or uuid.uuid4().hex,
            "outcome": "mahjong", "winner": "A", "discarder": "B", "line": {"section": "2468", "number": 1}}
    return body | kw


def wall(table: int, game: int, round_no: int = 1, client: str | None = None, **kw) -> dict:
    return {"round": round_no, "table": table, "game": game, "client_id": client or uuid.uuid4().hex,
            "outcome": "wall_game"} | kw


class Server:
    """``mahj tournament serve`` in a process of its own (a real server: it can be killed like one)."""

    def __init__(self, db_url: str, *extra: str, files: int | None = None) -> None:
        """``extra``: more serve options; ``files``: the server's limit on open files (soft and hard), as on a
        machine that allows no more."""
        self.db_url, self.extra, self.files = db_url, extra, files
        self.proc = None
        self.port: int | None = 0

    def start(self) -> "Server":
        import json
        import subprocess
        import sys

        port = [] if self.port is None else ["--port", str(self.port)]  # None: the port of the cards' address
        cmd = [sys.executable, "-m", "assistant.cli", "tournament", "serve", "--db", self.db_url, "--host",
               "127.0.0.1", *port, "--json", *self.extra]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     cwd=Path(__file__).resolve().parents[1], start_new_session=True,
                                     preexec_fn=None if self.files is None else self._limit_files)
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"server did not start: {self.proc.stderr.read()}")
        self.port = json.loads(line)["port"]
        return self

    def _limit_files(self) -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_NOFILE, (self.files, self.files))

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def kill(self) -> None:
        """SIGKILL to the server and its workers: no clean shutdown, as in a power cut."""
        import os
        import signal

        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except Exception:  # noqa: BLE001 - a server that ignores SIGTERM is killed
                self.kill()
