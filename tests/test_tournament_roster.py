"""The players file at its edges (issue 42 item 12): each problem is one `players.csv:LINE: ...` message, exit 2,
and nothing is created (no database, no cards), on SQLite and PostgreSQL."""

import json

import pytest
from tournament_kit import BACKENDS, database_url

from assistant.cli import main
from assistant.tournament.roster import read_roster

SEATED = "name,table,seat\nAnn,1,A\nBea,1,B\nCy,1,C\n"


@pytest.mark.parametrize(("text", "message"), [
    (SEATED + "Di,²,D\n", "players.csv:5: Di: table must be a number"),
    ("name\nAnn\n" + "x" * 131_073 + "\nBea\n", "players.csv:3: a cell longer than 131,072 characters"),
    ("name\nAnn\nB\x00ea\nCy\n", "players.csv:3: 'B\\x00ea' holds U+0000 (a control character)"),
    ('name\nAnn\n"Bea\nCy\nDi\n', 'players.csv:3: a quote (") opened on this line is never closed'),
    ('name\nAnn\n"Bea\nCy"\nDi\n', "players.csv:3: a line break inside a name"),
    ("name,club\nAnn,x\n,\nBea,y\nCy,z\n", "players.csv:3: blank row between players"),
    ("name\nAnn\n\nBea\nCy\n", "players.csv:3: blank row between players"),
    ("name\nJos\u00e9\nBea\nJose\u0301\n", "players.csv:4: duplicate name 'José' (its accent typed as a separate "
                                            "mark) (first on line 2)"),
    ("name\nAnn\nA\u200bnn\nBea\n", "players.csv:3: 'A\\u200bnn' holds U+200B ZERO WIDTH SPACE"),
    ("name\nAnn\n\u200fBea\nCy\n", "players.csv:3: '\\u200fBea' holds U+200F RIGHT-TO-LEFT MARK"),
    ("name\nAnn\nＡＮＮ\nBea\n", "players.csv:3: duplicate name 'ＡＮＮ' (first on line 2)"),
    ("name\nAnn\n" + "y" * 201 + "\nBea\n", "players.csv:3: a name of 201 characters: at most 200"),
    ('name\nAnn\n"Bea"x\nCy\n', "players.csv:3: not valid CSV"),
], ids=["superscript-table", "huge-cell", "nul", "open-quote", "quote-spanning-lines", "blank-cells-row",
        "empty-line", "jose-two-ways", "zero-width-space", "bidi-mark", "full-width", "long-name", "stray-quote"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_bad_players_file_names_its_line_and_creates_nothing(capsys, tmp_path, request, backend, text, message):
    url = database_url(backend, tmp_path, request)
    path = tmp_path / "players.csv"
    path.write_text(text, encoding="utf-8")
    code = main(["tournament", "new", "X", "--players", str(path), "--tables", "1", "--rounds", "1", "--db", url,
                 "--cards", str(tmp_path / "c.pdf"), "--url", "http://127.0.0.1:8780", "--json"])
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 2 and message in out["error"] and "Traceback" not in out["error"], out
    assert not (tmp_path / "c.pdf").exists()
    if backend == "sqlite":
        assert not (tmp_path / "tournament.db").exists()
    else:
        from sqlalchemy import inspect

        from assistant.tournament.db import open_engine

        engine = open_engine(url)
        assert not inspect(engine).has_table("tournament")
        engine.dispose()


def test_names_in_any_script_are_kept_composed(tmp_path):
    path = tmp_path / "players.csv"
    path.write_text("name\n山田 花子\nΑλέξης\nשרה לוי\nJose\u0301 🀄\n👩\u200d👩\u200d👧 Family\n\n\n",
                    encoding="utf-8")
    assert read_roster(path).names == ["山田 花子", "Αλέξης", "שרה לוי", "Jos\u00e9 🀄", "👩\u200d👩\u200d👧 Family"]
