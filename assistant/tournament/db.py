"""The tournament database: its tables (SQLAlchemy Core), opening a URL, and bringing the schema up to date
with the Alembic migrations shipped in ``migrations/``.

SQLite (a file, the default) and PostgreSQL (``postgresql+psycopg://``, for a large event with several writers)
hold the same schema. Every answer the server gives about a report is sent after its transaction committed, so
what was acknowledged survives a killed server: SQLite runs in WAL mode with ``synchronous=FULL`` and takes its
write lock at the start of a transaction (no deadlock between two writers upgrading their locks).
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Engine,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    event,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# Threads a server runs database work on at once, and connections kept open for them: a burst of reports reuses
# connections instead of opening and closing some on every burst. More threads only queue on Python's lock and
# the database's CPU (bench/bench_tournament.py, 60 tables at once: p95 lower at 8 than at 16 or 40).
# Every database call runs on one of those threads and holds one connection at a time, so the pool needs no
# overflow; N server processes keep N x DB_THREADS connections (PostgreSQL allows 100 by default).
DB_THREADS = 8
POOL_SIZE, POOL_OVERFLOW = DB_THREADS, 0

metadata = MetaData()

tournament = Table(
    "tournament", metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(200), nullable=False),
    Column("tables", Integer, nullable=False),
    Column("rounds", Integer, nullable=False),
    Column("games_per_round", Integer, nullable=False),
    Column("current_round", Integer, nullable=False),
    Column("profile_name", String(200), nullable=False),
    Column("profile_text", Text, nullable=False),
    Column("card_name", String(500), nullable=False),
    Column("card_text", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("url", String(500), nullable=True),  # the address on the table cards (None: made before 0002)
    Column("finished_at", DateTime(timezone=True), nullable=True),  # the last round closed: the event is over
)

players = Table(
    "players", metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(200), nullable=False, unique=True),
)

seats = Table(
    "seats", metadata,
    Column("round", Integer, primary_key=True),
    Column("table_no", Integer, primary_key=True),
    Column("letter", String(1), primary_key=True),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
)

tokens = Table(
    "tokens", metadata,
    Column("digest", String(64), primary_key=True),  # sha256 of the token: the database never holds a token
    Column("role", String(10), nullable=False),  # "director" or "table"
    Column("table_no", Integer, nullable=True),
    Column("active", Boolean, nullable=False),
    Column("issued_at", DateTime(timezone=True), nullable=False),
    Column("revoked_at", DateTime(timezone=True), nullable=True),
)

reports = Table(
    "reports", metadata,
    Column("id", Integer, primary_key=True),
    Column("round", Integer, nullable=False),
    Column("table_no", Integer, nullable=False),
    Column("game", Integer, nullable=False),
    Column("client_id", String(100), nullable=False),
    Column("digest", String(64), nullable=False),  # sha256 of the canonical result: equal reports agree
    Column("body", Text, nullable=False),  # the canonical result (JSON)
    Column("source", String(20), nullable=False),  # scorer, camera, director
    Column("status", String(20), nullable=False),  # counted, agrees, disputed, superseded, set_aside
    Column("received_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("round", "table_no", "game", "client_id", name="uq_report_key"),
)

results = Table(
    "results", metadata,
    Column("round", Integer, primary_key=True),
    Column("table_no", Integer, primary_key=True),
    Column("game", Integer, primary_key=True),
    Column("report_id", Integer, ForeignKey("reports.id"), nullable=False),
    Column("points", Text, nullable=False),  # {letter: points} (JSON), computed when counted
)

disputes = Table(
    "disputes", metadata,
    Column("id", Integer, primary_key=True),
    Column("round", Integer, nullable=False),
    Column("table_no", Integer, nullable=False),
    Column("game", Integer, nullable=False),
    Column("report_id", Integer, ForeignKey("reports.id"), nullable=False, unique=True),
    Column("opened_at", DateTime(timezone=True), nullable=False),
    Column("resolved_at", DateTime(timezone=True), nullable=True),
    Column("resolution", String(20), nullable=True),  # kept (the counted result stands) or replaced
)

corrections = Table(
    "corrections", metadata,
    Column("id", Integer, primary_key=True),
    Column("round", Integer, nullable=False),
    Column("table_no", Integer, nullable=False),
    Column("game", Integer, nullable=False),
    Column("old_report_id", Integer, ForeignKey("reports.id"), nullable=True),
    Column("new_report_id", Integer, ForeignKey("reports.id"), nullable=False),
    Column("who", String(200), nullable=False),
    Column("why", Text, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)


class DatabaseError(RuntimeError):
    """A database URL that cannot be opened; the message says which and why."""


def normalise_url(url: str) -> str:
    """A bare file name means SQLite; ``postgresql://`` means psycopg 3 (the driver this package installs)."""
    if "://" not in url:
        return f"sqlite:///{Path(url).expanduser()}"
    if url.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def open_engine(url: str) -> Engine:
    """An Engine for ``url`` (a file name, ``sqlite:///FILE`` or ``postgresql+psycopg://...``)."""
    try:
        parsed = make_url(normalise_url(url))
    except ArgumentError as exc:
        raise DatabaseError(f"--db {url!r}: not a database URL ({exc})") from None
    if parsed.get_backend_name() == "sqlite":
        return _sqlite(parsed)
    if parsed.get_backend_name() != "postgresql":
        raise DatabaseError(f"--db {url!r}: use a SQLite file or postgresql+psycopg://USER:PASSWORD@HOST/DB")
    try:
        return create_engine(parsed, pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW)
    except Exception as exc:  # a missing driver names itself in the message
        raise DatabaseError(f"--db {url!r}: {exc}") from None


def _sqlite(url) -> Engine:
    engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False},
                           pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW)

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn, _record) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves (below)
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=FULL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn) -> None:
        # A reader (``reading(engine)``) takes a snapshot and never blocks or waits for the writer (WAL).
        conn.exec_driver_sql("BEGIN" if conn.get_execution_options().get("read_only") else "BEGIN IMMEDIATE")

    return engine


def warm(engine: Engine, n: int = POOL_SIZE) -> None:
    """Open ``n`` pooled connections now, so the first burst of reports after a (re)start does not wait while
    each of its threads logs in to the database."""
    held = [engine.connect() for _ in range(n)]
    for conn in held:
        conn.close()


def reading(engine: Engine) -> Engine:
    """The same database for reads only, each transaction one snapshot (a page's standings and round agree):
    on SQLite a read that does not take the write lock, on PostgreSQL a read-only repeatable-read transaction."""
    if engine.url.get_backend_name() == "postgresql":
        return engine.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
    return engine.execution_options(read_only=True)


def upgrade(engine: Engine) -> None:
    """Create or update the schema to the newest migration (a no-op on an up-to-date database)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def is_initialised(engine: Engine) -> bool:
    from sqlalchemy import inspect

    return inspect(engine).has_table("tournament")
