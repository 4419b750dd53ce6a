"""Taking the tables' game reports: idempotent by (round, table, game, client id), disputes, corrections.

A report is answered only after its transaction committed. The same report sent again (same client id, same
result) is answered as before and counts once; another sender's equal report agrees with the counted one; a
different one for a game already counted opens a dispute and changes nothing until the director decides. Two
reports racing for one game are settled by the database's unique keys: the loser retries and then sees the
winner's row.

Once a round is closed (``rounds.close_round``), a table's token reports none of its games: a resend of a
report already taken is still answered as before, anything new is refused (409) and the director corrects the
game instead. Each report holds the tournament's row shared while it takes its place, so a round never closes
between a report's check and its commit (a forced close waits for it, and counts it).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, and_, bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError

from assistant.tournament import db
from assistant.tournament.hands import SOURCES, ReportError, digest, read_report, result_of, stored_body
from assistant.tournament.store import (
    Role,
    Store,
    TournamentError,
    caller,
    need_token,
    now,
    token_digest,
)
from engine.tournament import GameResult, ResultError, game_points

RETRIES = 5


def _place(body: dict) -> tuple[int, int, int, str, str]:
    out = []
    for key in ("round", "table", "game"):
        value = body.get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            raise ReportError(f"{key}: a whole number")
        out.append(value)
    client = body.get("client_id")
    if not isinstance(client, str) or not 1 <= len(client) <= 100:
        raise ReportError("client_id: a text of 1..100 characters that names this report (the same on a resend)")
    source = body.get("source", "scorer")
    if source not in SOURCES:
        raise ReportError(f"source: one of {', '.join(SOURCES)}")
    return out[0], out[1], out[2], client, source


def _not_yours(role: Role, table: int) -> TournamentError:
    return TournamentError(f"this token is table {role.table}'s; it cannot report for table {table}", 403)


def _score(store: Store, conn: Connection, round_no: int, table: int, result: GameResult) -> dict[str, int]:
    letters = list(store.seating(round_no, conn).get(table, {}))
    try:
        return game_points(store.profile, result, letters)
    except ResultError as exc:
        raise TournamentError(str(exc), 422) from None


def submit(store: Store, token: str, body: Any) -> dict[str, Any]:
    """Take one report sent with ``token``; returns the acknowledgement (``status``: counted, agrees, duplicate
    or disputed). The token, the round and the game are read in the report's own transaction."""
    need_token(token)
    place = None
    try:
        if not isinstance(body, dict):
            raise ReportError("a report is a JSON object")
        place = _place(body)
        result, extra = read_report(store.card, body)
    except ReportError as exc:
        role = store.role_of(token)  # a sender without a valid token learns nothing about its report
        if place is not None and not role.may_write(place[1]):
            raise _not_yours(role, place[1]) from None
        raise TournamentError(str(exc), exc.status) from None
    stored = stored_body(result, extra)
    for attempt in range(RETRIES):
        try:
            with store.engine.begin() as conn:
                return _submit(store, conn, token, place, result, stored)
        except IntegrityError:
            if attempt == RETRIES - 1:
                raise
    raise AssertionError("unreachable")


# The statements of the busiest request, built once; each report runs them with its own values.
_R, _RES, _T = db.reports.c, db.results.c, db.tokens.c
# The current round and whether the tournament is over, holding the tournament's row shared until the
# transaction ends: closing a round takes that row for update (PostgreSQL; SQLite has one writer at a time).
_ROUND = select(db.tournament.c.current_round, db.tournament.c.finished_at).with_for_update(read=True)
# Everything a report checks before it is written, in one trip: the sender's token and the current round, and
# each report the game already has, with whether it is the counted one (a game with none: one row, its NULLs).
_CHECK = select(_T.role, _T.table_no, _T.active, _T.revoked_at,
                _ROUND.with_only_columns(db.tournament.c.current_round).scalar_subquery().label("current_round"),
                _ROUND.with_only_columns(db.tournament.c.finished_at.is_not(None)).scalar_subquery()
                .label("finished"), _R.id, _R.client_id, _R.digest.label("report_digest"), _R.status,
                _RES.report_id.is_not(None).label("counted")).select_from(
    db.tokens.outerjoin(db.reports, and_(_R.round == bindparam("round"), _R.table_no == bindparam("table_no"),
                                         _R.game == bindparam("game")))
    .outerjoin(db.results, and_(_RES.round == _R.round, _RES.table_no == _R.table_no, _RES.game == _R.game,
                                _RES.report_id == _R.id))  # by the results' key: no scan of every result
).where(db.tokens.c.digest == bindparam("digest"))
_NEW_REPORT = insert(db.reports)
_NEW_RESULT = insert(db.results)
_NEW_DISPUTE = insert(db.disputes)


def _submit(store: Store, conn: Connection, token: str, place: tuple[int, int, int, str, str], result: GameResult,
            stored: str) -> dict[str, Any]:
    round_no, table, game, client, source = place
    game_key = {"round": round_no, "table_no": table, "game": game}
    rows = conn.execute(_CHECK, game_key | {"digest": token_digest(token)}).all()
    role, current = caller(token, rows[0] if rows else None)
    if not role.may_write(table):
        raise _not_yours(role, table)
    if source == "director" and role.kind != "director":
        raise TournamentError("source: only the director's token reports as the director", 403)
    store.check_place(table, round_no, game, current)
    points = _score(store, conn, round_no, table, result)
    mine = digest(result)
    ack = {"round": round_no, "table": table, "game": game, "client_id": client}
    earlier = counted = None
    for row in rows:
        earlier = row if row.client_id == client else earlier
        counted = row if row.counted else counted
    if earlier is not None:
        if earlier.report_digest != mine:
            raise TournamentError(f"client_id {client!r} already reported a different result for table {table} round "
                                  f"{round_no} game {game}; a new report needs a new client_id", 409)
        return ack | {"status": "duplicate", "report": earlier.id, "was": earlier.status}
    if role.kind != "director" and (round_no < current or rows[0].finished):
        raise closed_round(round_no, current, rows[0].finished)
    status = "counted" if counted is None else "agrees" if counted.report_digest == mine else "disputed"
    report_id = conn.execute(_NEW_REPORT, game_key | {
        "client_id": client, "digest": mine, "body": stored, "source": source, "status": status,
        "received_at": now()}).inserted_primary_key[0]
    if status == "counted":
        conn.execute(_NEW_RESULT, game_key | {"report_id": report_id, "points": json.dumps(points, sort_keys=True)})
    elif status == "disputed":
        conn.execute(_NEW_DISPUTE, game_key | {"report_id": report_id, "opened_at": now()})
    return ack | {"status": status, "report": report_id, "points": points}


def closed_round(round_no: int, current: int, finished: bool) -> TournamentError:
    """What a table's token is told when it reports a game of a closed round."""
    why = "the tournament is over" if finished else f"the current round is {current}"
    return TournamentError(f"round {round_no} is closed ({why}): a table's token reports only games of the "
                           "round in play; the director corrects a closed round's games (director's page, or "
                           "POST /api/corrections)", 409)


def missing_games(store: Store, round_no: int, conn: Connection) -> list[tuple[int, int]]:
    """(table, game) of every game of the round with no counted result."""
    done = set(conn.execute(select(db.results.c.table_no, db.results.c.game)
                            .where(db.results.c.round == round_no)).all())
    return [(t, g) for t in range(1, store.tables + 1) for g in range(1, store.games_per_round + 1)
            if (t, g) not in done]


def open_disputes(conn: Connection, round_no: int | None = None) -> list[dict]:
    q = select(db.disputes, db.reports.c.body, db.reports.c.source, db.reports.c.received_at.label("sent_at")).join(
        db.reports, db.reports.c.id == db.disputes.c.report_id).where(db.disputes.c.resolved_at.is_(None))
    if round_no is not None:
        q = q.where(db.disputes.c.round == round_no)
    return [dict(row) for row in conn.execute(q.order_by(db.disputes.c.id)).mappings()]


def _replace(store: Store, conn: Connection, where: tuple[int, int, int], report_id: int, result: GameResult,
             who: str, why: str) -> None:
    """Count ``report_id`` for the game instead of what was counted, with a correction saying who and why."""
    round_no, table, game = where
    points = _score(store, conn, round_no, table, result)
    res = db.results.c
    old = conn.execute(select(res.report_id).where(res.round == round_no, res.table_no == table,
                                                   res.game == game)).scalar()
    if old is None:
        conn.execute(insert(db.results).values(round=round_no, table_no=table, game=game, report_id=report_id,
                                               points=json.dumps(points, sort_keys=True)))
    else:
        conn.execute(update(db.results).where(res.round == round_no, res.table_no == table, res.game == game)
                     .values(report_id=report_id, points=json.dumps(points, sort_keys=True)))
        conn.execute(update(db.reports).where(db.reports.c.id == old).values(status="superseded"))
    conn.execute(update(db.reports).where(db.reports.c.id == report_id).values(status="counted"))
    conn.execute(insert(db.corrections).values(round=round_no, table_no=table, game=game, old_report_id=old,
                                               new_report_id=report_id, who=who, why=why, at=now()))


def _who_why(who: str, why: str) -> tuple[str, str]:
    who, why = (who or "").strip(), (why or "").strip()
    if not who or not why:
        raise TournamentError("a correction says who makes it and why", 400)
    return who[:200], why[:2000]


def resolve(store: Store, dispute_id: int, keep: bool, who: str, why: str) -> dict[str, Any]:
    """Decide a dispute: ``keep`` the counted result, or count the disputing report instead."""
    who, why = _who_why(who, why)
    resolution = "kept" if keep else "replaced"
    with store.engine.begin() as conn:
        # Marked decided first, and only if still open: a second station deciding at the same moment waits for
        # this row, then finds it decided (PostgreSQL re-reads it after the wait) and gets 409, changing nothing.
        taken = conn.execute(update(db.disputes).where(db.disputes.c.id == dispute_id,
                                                       db.disputes.c.resolved_at.is_(None))
                             .values(resolved_at=now(), resolution=resolution)).rowcount
        row = conn.execute(select(db.disputes, db.reports.c.body).join(
            db.reports, db.reports.c.id == db.disputes.c.report_id).where(db.disputes.c.id == dispute_id)
        ).mappings().first()
        if row is None:
            raise TournamentError(f"no dispute {dispute_id}", 404)
        if not taken:
            raise TournamentError(f"dispute {dispute_id} was already resolved ({row['resolution']} at "
                                  f"{row['resolved_at']:%H:%M:%S}); reload the director's page", 409)
        where = (row["round"], row["table_no"], row["game"])
        if keep:
            conn.execute(update(db.reports).where(db.reports.c.id == row["report_id"]).values(status="set_aside"))
            counted = conn.execute(select(db.results.c.report_id).where(
                db.results.c.round == where[0], db.results.c.table_no == where[1], db.results.c.game == where[2])
            ).scalar_one()
            conn.execute(insert(db.corrections).values(round=where[0], table_no=where[1], game=where[2],
                                                       old_report_id=row["report_id"], new_report_id=counted,
                                                       who=who, why=why, at=now()))
        else:
            _replace(store, conn, where, row["report_id"], result_of(row["body"]), who, why)
    return {"dispute": dispute_id, "resolution": resolution}


def correct(store: Store, body: Any, who: str, why: str) -> dict[str, Any]:
    """The director sets a game's result (a report body with round, table, game and client_id)."""
    who, why = _who_why(who, why)
    try:
        round_no, table, game, client, _ = _place(body)
        result, extra = read_report(store.card, body)
    except ReportError as exc:
        raise TournamentError(str(exc), exc.status) from None
    with store.engine.begin() as conn:
        store.check_place(table, round_no, game, conn.execute(_ROUND).one().current_round)
        report_id = conn.execute(insert(db.reports).values(
            round=round_no, table_no=table, game=game, client_id=client, digest=digest(result),
            body=stored_body(result, extra), source="director",
            status="counted", received_at=now())).inserted_primary_key[0]
        _replace(store, conn, (round_no, table, game), report_id, result, who, why)
    return {"round": round_no, "table": table, "game": game, "report": report_id, "status": "corrected"}


def record_unfinished(store: Store, conn: Connection, round_no: int, table: int, game: int, who: str) -> None:
    """A game nobody reported when the round was closed: not finished in time, so nobody scores (003). Only
    ever a game with no counted result: it is inserted, never put in another's place (a result a table was told
    is counted stays counted; a result there already fails the close, changing nothing)."""
    result = GameResult("time")
    report_id = conn.execute(insert(db.reports).values(
        round=round_no, table_no=table, game=game, client_id=f"round-closed-{round_no}-{table}-{game}",
        digest=digest(result), body=stored_body(result, {"east": None}),
        source="director", status="counted", received_at=now())).inserted_primary_key[0]
    points = _score(store, conn, round_no, table, result)
    conn.execute(_NEW_RESULT, {"round": round_no, "table_no": table, "game": game, "report_id": report_id,
                               "points": json.dumps(points, sort_keys=True)})
    conn.execute(insert(db.corrections).values(round=round_no, table_no=table, game=game, old_report_id=None,
                                               new_report_id=report_id, who=who,
                                               why="round closed without a report", at=now()))


def corrections_log(store: Store) -> list[dict]:
    with store.reader.connect() as conn:
        return [dict(r) for r in conn.execute(select(db.corrections).order_by(db.corrections.c.id)).mappings()]


def table_status(store: Store, round_no: int) -> list[dict[str, Any]]:
    """Per table of a round: who sits there, which games are counted, and open disputes."""
    with store.reader.connect() as conn:
        seating = store.seating(round_no, conn)
        done: dict[int, list[int]] = {}
        for t, g in conn.execute(select(db.results.c.table_no, db.results.c.game)
                                 .where(db.results.c.round == round_no)).all():
            done.setdefault(t, []).append(g)
        disputed: dict[int, int] = {}
        for d in open_disputes(conn, round_no):
            disputed[d["table_no"]] = disputed.get(d["table_no"], 0) + 1
    return [{"table": t, "seats": seating.get(t, {}), "games_counted": sorted(done.get(t, [])),
             "open_disputes": disputed.get(t, 0),
             "complete": len(done.get(t, [])) == store.games_per_round} for t in range(1, store.tables + 1)]
