"""A tournament in its database: creating it, its seating round by round, tokens, and what is counted so far.

One database holds one tournament. The card and scoring profile are stored in it as text when the tournament
is created, so every server and command scores on exactly the same rules however its files change later.
Reports (what the tables send) are taken by ``assistant.tournament.reports``, and rounds are closed by
``assistant.tournament.rounds``; neither is imported here (they import the store).
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path

from sqlalchemy import Connection, Engine, Row, bindparam, func, insert, select, update

from assistant.tournament import db
from assistant.tournament.db import is_initialised, open_engine, reading, upgrade
from engine.card import Card, parse_card
from engine.referee import ScoringProfile, parse_profile
from engine.tournament import first_round, penalty_points
from engine.tournament.seating import Seating, SeatingError, check_given
from engine.tournament.standings import ScoredGame, Standing, standings

# What a token's row says, and the current round: what every request with a token reads first.
CALLER_COLUMNS = (db.tokens.c.role, db.tokens.c.table_no, db.tokens.c.active, db.tokens.c.revoked_at,
                  select(db.tournament.c.current_round).scalar_subquery().label("current_round"))
_CALLER = select(*CALLER_COLUMNS).where(db.tokens.c.digest == bindparam("digest"))


class TournamentError(Exception):
    """Something the director or a table asked that cannot be done; nothing was changed. ``status`` is the HTTP
    status (403 for a token, 404 for a table or round that does not exist, 409 for a conflict)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Role:
    """Who a token belongs to: the director (table None) or one table."""

    kind: str
    table: int | None = None

    def may_write(self, table: int) -> bool:
        return self.kind == "director" or self.table == table


def now() -> datetime:
    return datetime.now(UTC)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(16)


class Store:
    """One tournament's database. Static facts (size, card, profile) are read once; everything that changes is
    read in the transaction that needs it."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.reader = reading(engine)
        self._seated: dict[int, dict[int, dict[str, str]]] = {}  # a round's seating never changes once made
        with self.reader.connect() as conn:
            row = conn.execute(select(db.tournament)).mappings().first()
        if row is None:
            raise TournamentError("this database holds no tournament yet (create one: mahj tournament new)", 404)
        self.row = dict(row)

    @classmethod
    def open(cls, url: str) -> Store:
        """Open the tournament at ``url``, bringing its schema up to date first. A database without a tournament
        is left as it was (no empty file or schema made by a mistyped --db)."""
        engine = open_engine(url)
        if engine.url.get_backend_name() == "sqlite" and not Path(engine.url.database or "").exists():
            raise TournamentError(f"--db {url}: no such tournament database (create one with mahj tournament "
                                  "new, or give --db)", 400)
        try:
            initialised = is_initialised(engine)
            if initialised:
                upgrade(engine)
        except Exception as exc:
            engine.dispose()
            raise TournamentError(f"--db {url}: cannot open the database ({_first_line(exc)})", 400) from None
        if not initialised:
            engine.dispose()
            raise TournamentError(f"--db {url} holds no tournament yet (create one: mahj tournament new)", 404)
        return cls(engine)

    @classmethod
    def create(cls, url: str, name: str, names: Sequence[str], tables: int, rounds: int, games_per_round: int,
               profile: tuple[str, str], card: tuple[str, str], seating: Mapping[str, tuple[int, str]] | None = None,
               seed: int | None = None, address: str | None = None) -> tuple[Store, dict[str, str]]:
        """Create the tournament and seat round 1 (``seating`` as given, else drawn with ``seed``); ``address``
        is the URL on the table cards. Returns the store and the tokens {"director": ..., "1": ..., ...}; only
        their digests are kept."""
        if rounds < 1 or games_per_round < 1:
            raise TournamentError("--rounds and --games-per-round must be at least 1")
        try:
            if seating is not None:
                check_given(seating, tables)
            else:
                seating = first_round(names, tables, seed)
        except SeatingError as exc:
            raise TournamentError(str(exc)) from None
        engine = open_engine(url)
        try:
            upgrade(engine)
        except Exception as exc:
            raise TournamentError(f"--db {url}: cannot open the database ({_first_line(exc)})", 400) from None
        tokens = {"director": new_token()} | {str(t): new_token() for t in range(1, tables + 1)}
        stamp = now()
        with engine.begin() as conn:
            if conn.execute(select(func.count()).select_from(db.tournament)).scalar_one():
                existing = conn.execute(select(db.tournament.c.name)).scalar_one()
                raise TournamentError(f"--db {url} already holds the tournament {existing!r}; give another --db", 409)
            conn.execute(insert(db.tournament).values(
                id=1, name=name, tables=tables, rounds=rounds, games_per_round=games_per_round, current_round=1,
                profile_name=profile[1], profile_text=profile[0], card_name=card[1], card_text=card[0],
                created_at=stamp, url=address))
            ids = {n: conn.execute(insert(db.players).values(name=n)).inserted_primary_key[0] for n in names}
            save_seating(conn, 1, seating, ids)
            for key, token in tokens.items():
                conn.execute(insert(db.tokens).values(
                    digest=token_digest(token), role="director" if key == "director" else "table",
                    table_no=None if key == "director" else int(key), active=True, issued_at=stamp))
        return cls(engine), tokens

    def close(self) -> None:
        self.engine.dispose()

    # --- static facts -----------------------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.row["name"]

    @property
    def tables(self) -> int:
        return self.row["tables"]

    @property
    def rounds(self) -> int:
        return self.row["rounds"]

    @property
    def games_per_round(self) -> int:
        return self.row["games_per_round"]

    @property
    def address(self) -> str | None:
        """The address the table cards carry (None for a tournament made before it was stored)."""
        return self.row["url"]

    @cached_property
    def profile(self) -> ScoringProfile:
        return parse_profile(self.row["profile_text"], self.row["profile_name"])

    @cached_property
    def card(self) -> Card:
        return parse_card(self.row["card_text"], self.row["card_name"])

    # --- what changes -----------------------------------------------------------------------------------------

    @property
    def event(self) -> str:
        """This tournament's identity, which a table's queue records with each report so that a report is only
        ever sent to the event it was made for: from its name and the moment it was created (the same in every
        process and after a restart; another event, even of the same name on the same server, differs)."""
        made = self.row["created_at"]
        made = made.replace(tzinfo=UTC) if made.tzinfo is None else made.astimezone(UTC)
        return hashlib.sha256(f"{self.name}\n{made.isoformat()}".encode()).hexdigest()[:16]

    def finished(self, conn: Connection | None = None) -> bool:
        """Whether the last round was closed (the tournament is over)."""
        if conn is None:
            with self.reader.connect() as c:
                return self.finished(c)
        return conn.execute(select(db.tournament.c.finished_at)).scalar_one() is not None

    def current_round(self, conn: Connection | None = None) -> int:
        if conn is None:
            with self.reader.connect() as c:
                return self.current_round(c)
        return conn.execute(select(db.tournament.c.current_round)).scalar_one()

    def seating(self, round_no: int, conn: Connection | None = None) -> dict[int, dict[str, str]]:
        """{table: {letter: name}} for a round that has been seated (empty for one that has not)."""
        if round_no in self._seated:
            return self._seated[round_no]
        if conn is None:
            with self.reader.connect() as c:
                return self.seating(round_no, c)
        rows = conn.execute(select(db.seats.c.table_no, db.seats.c.letter, db.players.c.name)
                            .join(db.players, db.players.c.id == db.seats.c.player_id)
                            .where(db.seats.c.round == round_no)).all()
        out: dict[int, dict[str, str]] = {t: {} for t in range(1, self.tables + 1)} if rows else {}
        for table, letter, name in rows:
            out[table][letter] = name
        seating = {t: dict(sorted(s.items())) for t, s in out.items()}
        if seating:
            self._seated[round_no] = seating
        return seating

    def players(self, conn: Connection | None = None) -> list[str]:
        if conn is None:
            with self.reader.connect() as c:
                return self.players(c)
        return list(conn.execute(select(db.players.c.name).order_by(db.players.c.id)).scalars())

    def check_place(self, table: int, round_no: int, game: int, current: int) -> None:
        """A report's table, round and game exist and the round has started (``current`` is the current round)."""
        if not 1 <= table <= self.tables:
            raise TournamentError(f"table {table}: this tournament has tables 1..{self.tables}", 404)
        if not 1 <= round_no <= self.rounds:
            raise TournamentError(f"round {round_no}: this tournament has rounds 1..{self.rounds}", 404)
        if round_no > current:
            raise TournamentError(f"round {round_no} has not started (the current round is {current})", 409)
        if not 1 <= game <= self.games_per_round:
            raise TournamentError(f"game {game}: a round has games 1..{self.games_per_round}", 404)

    # --- tokens -----------------------------------------------------------------------------------------------

    def role_of(self, token: str) -> Role:
        """Whose token this is; a TournamentError (403) for an unknown or a replaced (stale) token."""
        with self.reader.connect() as conn:
            row = conn.execute(_CALLER, {"digest": token_digest(token)}).first()
        return caller(token, row)[0]

    def renew_token(self, table: int | None) -> str:
        """A new token for ``table`` (None: the director); the old one stops working at once."""
        if table is not None and not 1 <= table <= self.tables:
            raise TournamentError(f"table {table}: this tournament has tables 1..{self.tables}", 404)
        token, stamp = new_token(), now()
        with self.engine.begin() as conn:
            conn.execute(update(db.tokens).where(db.tokens.c.table_no.is_(None) if table is None else
                                                 db.tokens.c.table_no == table, db.tokens.c.active)
                         .values(active=False, revoked_at=stamp))
            conn.execute(insert(db.tokens).values(digest=token_digest(token), role="table" if table else "director",
                                                  table_no=table, active=True, issued_at=stamp))
        return token

    # --- rounds and standings ---------------------------------------------------------------------------------

    def scored_games(self, conn: Connection) -> list[tuple[dict, ScoredGame]]:
        """Every counted game, in order, with who sat where."""
        from assistant.tournament.hands import result_of

        seat_rows = conn.execute(select(db.seats.c.round, db.seats.c.table_no, db.seats.c.letter, db.players.c.name)
                                 .join(db.players, db.players.c.id == db.seats.c.player_id)).all()
        names: dict[tuple[int, int], dict[str, str]] = {}
        for r, t, x, n in seat_rows:
            names.setdefault((r, t), {})[x] = n
        rows = conn.execute(select(db.results, db.reports.c.body)
                            .join(db.reports, db.reports.c.id == db.results.c.report_id)
                            .order_by(db.results.c.round, db.results.c.table_no, db.results.c.game)).mappings()
        out = []
        for row in rows:
            points = json.loads(row["points"])
            result = result_of(row["body"])
            seated = names[row["round"], row["table_no"]]
            game = ScoredGame(seated, points, result.winner, penalty_points(self.profile, result, list(seated)))
            out.append((dict(row) | {"result": result}, game))
        return out

    def standings(self, conn: Connection | None = None) -> list[Standing]:
        """The standings from one snapshot (``conn``, or a reading connection of its own)."""
        if conn is None:
            with self.reader.connect() as c:
                return self.standings(c)
        return standings(self.players(conn), [g for _, g in self.scored_games(conn)])


def need_token(token: str) -> None:
    """A request with no token at all is refused before any database work."""
    if not token:
        raise TournamentError("a token is needed (the director's, or the one on the table card)", 403)


def caller(token: str, row: Row | None) -> tuple[Role, int]:
    """Whose ``token`` is and the current round, from its row of CALLER_COLUMNS (None: no such token); a
    TournamentError (403) for a missing, unknown or replaced (stale) token."""
    need_token(token)
    if row is None:
        raise TournamentError("this token is not one of this tournament's (check the table card)", 403)
    if not row.active:
        where = f"table {row.table_no}" if row.table_no else "the director"
        raise TournamentError(f"stale token: {where}'s token was replaced at {row.revoked_at:%H:%M}; use the "
                              "new table card", 403)
    return Role(row.role, row.table_no), row.current_round


def save_seating(conn: Connection, round_no: int, seating: Seating, ids: Mapping[str, int]) -> None:
    """Seat ``round_no``: ``seating`` {name: (table, letter)}, ``ids`` {name: player id}."""
    conn.execute(insert(db.seats), [{"round": round_no, "table_no": t, "letter": x, "player_id": ids[name]}
                                    for name, (t, x) in seating.items()])


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
