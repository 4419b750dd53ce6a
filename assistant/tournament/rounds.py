"""Closing a round: the director's ``round next`` (``POST /api/round``).

Closing the current round seats the next by the rotation; closing the last round ends the tournament. It is
refused while a dispute of the round is open, and while a game is unreported unless forced, when each
unreported game is recorded as not finished in time. A forced close never replaces a result that was
acknowledged: it takes the tournament's row for update, so it waits for every report already taking its
place (each report holds that row shared, ``reports._ROUND``) and every report after it reads the round as
closed. Here, not in ``store``, because it needs the reports' queries and ``reports`` needs the store.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select, update

from assistant.tournament import db
from assistant.tournament.reports import missing_games, open_disputes, record_unfinished
from assistant.tournament.store import Store, TournamentError, now, save_seating
from engine.referee.rotation import rotate


@dataclass(frozen=True)
class Closed:
    """What closing did: ``closed`` the round closed, ``round`` the current round now (the last round once the
    tournament is over), ``unfinished`` how many games were recorded as not finished in time."""

    closed: int
    round: int
    finished: bool
    unfinished: int

    def to_json(self) -> dict:
        return {"closed": self.closed, "round": self.round, "finished": self.finished,
                "unfinished": self.unfinished}


def close_round(store: Store, force: bool = False, who: str = "director") -> Closed:
    """Close the current round (see the module's docstring); a TournamentError (409) says why it cannot."""
    t = db.tournament.c
    with store.engine.begin() as conn:
        current, finished_at = conn.execute(select(t.current_round, t.finished_at).with_for_update()).one()
        if finished_at is not None:
            raise TournamentError(f"the tournament is over: its last round ({current}) was closed at "
                                  f"{finished_at:%H:%M}", 409)
        disputed = open_disputes(conn, current)
        if disputed:
            raise TournamentError(f"round {current} has {len(disputed)} open dispute(s) (table/game: "
                                  + ", ".join(f"{d['table_no']}/{d['game']}" for d in disputed)
                                  + "); resolve them on the director's page first", 409)
        missing = missing_games(store, current, conn)
        if missing and not force:
            raise TournamentError(f"round {current} still lacks {len(missing)} game(s) (table/game: "
                                  + ", ".join(f"{t}/{g}" for t, g in missing[:12])
                                  + (", ..." if len(missing) > 12 else "")
                                  + "); or --force to score them as not finished in time", 409)
        for table, game in missing:
            record_unfinished(store, conn, current, table, game, who)
        if current >= store.rounds:
            conn.execute(update(db.tournament).values(finished_at=now()))
            return Closed(current, current, True, len(missing))
        prev = {name: (tb, x) for tb, seat in store.seating(current, conn).items() for x, name in seat.items()}
        ids = dict(conn.execute(select(db.players.c.name, db.players.c.id)).all())
        save_seating(conn, current + 1, rotate(prev, store.tables), ids)
        conn.execute(update(db.tournament).values(current_round=current + 1))
    return Closed(current, current + 1, False, len(missing))
