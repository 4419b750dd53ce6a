"""``mahj tournament export``: every counted game and the standings, as CSV for spreadsheets and PDF to print."""

from __future__ import annotations

from pathlib import Path

from assistant.tournament.sheets import (
    RESULTS_HEADER,
    STANDINGS_HEADER,
    score_sheets_pdf,
    standings_pdf,
    standings_rows,
    write_csv,
)
from assistant.tournament.store import Store
from engine.tournament.standings import standings


def export(store: Store, out: Path) -> list[Path]:
    with store.reader.connect() as conn:       # a read: no write lock held while the sheets are drawn
        games = store.scored_games(conn)
        current = store.current_round(conn)
        seatings = {r: store.seating(r, conn) for r in range(1, current + 1)}
        names = store.players(conn)
    rows = standings(names, [g for _, g in games])
    results = []
    per_sheet: dict[tuple[int, int], dict[int, dict[str, int]]] = {}
    for row, game in games:
        result = row["result"]
        for letter, name in game.names.items():
            results.append([row["round"], row["table_no"], row["game"], letter, name, game.points.get(letter, 0),
                            result.outcome, result.winner or "", result.value or ""])
        per_sheet.setdefault((row["round"], row["table_no"]), {})[row["game"]] = dict(game.points)
    sheets = [(r, t, names, per_sheet.get((r, t), {})) for r, seating in seatings.items()
              for t, names in seating.items()]
    round_text = f"after {len(games)} counted games; current round {current} of {store.rounds}"
    return [
        write_csv(out / "standings.csv", STANDINGS_HEADER, standings_rows(rows)),
        write_csv(out / "results.csv", RESULTS_HEADER, results),
        standings_pdf(out / "standings.pdf", store.name, round_text, rows),
        score_sheets_pdf(out / "score-sheets.pdf", store.name, store.games_per_round, sheets),
    ]
