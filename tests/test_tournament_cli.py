"""`mahj tournament` on the command line: new (seating, tokens, table cards), bad players files, round next,
standings, export and tokens, each with --json, on SQLite and PostgreSQL."""

import csv
import json

import pytest
from tournament_kit import BACKENDS, database_url, wall

from assistant.cli import main
from assistant.tournament.reports import submit
from assistant.tournament.store import Role, Store


@pytest.fixture(params=BACKENDS)
def url(request, tmp_path):
    return database_url(request.param, tmp_path, request)


def players(tmp_path, lines):
    path = tmp_path / "players.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run_json(capsys, argv):
    code = main(argv + ["--json"])
    out = capsys.readouterr().out
    return code, json.loads(out.strip().splitlines()[-1])


def new(capsys, tmp_path, url, names=None, extra=()):
    names = names or ["name"] + [f"Zoë {i}" for i in range(1, 12)]
    path = players(tmp_path, names)
    return run_json(capsys, ["tournament", "new", "Spring Open", "--players", str(path), "--tables", "3",
                             "--rounds", "2", "--games-per-round", "2", "--seed", "5", "--db", url,
                             "--cards", str(tmp_path / "cards.pdf"), "--url", "http://td.local:8780", *extra])


def test_new_prints_seating_tokens_and_writes_table_cards(capsys, tmp_path, url):
    code, out = new(capsys, tmp_path, url)
    assert code == 0, out
    assert sorted(len(s) for s in out["seating"].values()) == [3, 4, 4]
    assert set(out["table_tokens"]) == {"1", "2", "3"} and out["director_token"]
    pdf = (tmp_path / "cards.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and pdf.count(b"/Type /Page\n") + pdf.count(b"/Type /Page ") >= 3
    store = Store.open(url)
    assert store.role_of(out["table_tokens"]["2"]) == Role("table", 2)
    store.close()
    code, again = new(capsys, tmp_path, url)
    assert code == 1 and "already holds the tournament 'Spring Open'" in again["error"]


def test_the_same_seed_seats_the_same_way(capsys, tmp_path):
    _, a = new(capsys, tmp_path, str(tmp_path / "a.db"))
    _, b = new(capsys, tmp_path, str(tmp_path / "b.db"))
    assert a["seating"] == b["seating"] and a["director_token"] != b["director_token"]


@pytest.mark.parametrize(("lines", "message"), [
    (["name", "Ann", "Bea", "ann ", "Cy"], "players.csv:4: duplicate name 'ann' (first on line 2)"),
    (["name", "Ann", "Bea", "Cy", "", "  "], None),  # blank lines after the last player are skipped
    (["name,club", "Ann,x", ",y", "Bea,z"], "players.csv:3: missing name"),
    (["name,table", "Ann,1"], "give both 'table' and 'seat'"),
    (["name,table,seat", "Ann,1,A", "Bea,1,E", "Cy,1,C"], "players.csv:3: Bea: table must be a number and seat"),
])
def test_bad_players_files_name_the_line_and_create_nothing(capsys, tmp_path, lines, message):
    db = tmp_path / "t.db"
    path = players(tmp_path, lines)
    code, out = run_json(capsys, ["tournament", "new", "X", "--players", str(path), "--tables", "1", "--rounds", "1",
                                  "--db", str(db), "--cards", str(tmp_path / "c.pdf")])
    if message is None:
        assert code == 0, out
        return
    assert code == 2 and message in out["error"], out
    assert not db.exists() and not (tmp_path / "c.pdf").exists()


def test_seating_as_given_and_a_wrong_room(capsys, tmp_path):
    rows = ["name,table,seat"] + [f"P{i},{1 + i // 4},{'ABCD'[i % 4]}" for i in range(8)]
    path = players(tmp_path, rows)
    code, out = run_json(capsys, ["tournament", "new", "X", "--players", str(path), "--tables", "2", "--rounds", "1",
                                  "--db", str(tmp_path / "g.db"), "--cards", str(tmp_path / "c.pdf")])
    assert code == 0 and out["seating"]["2"] == {"A": "P4", "B": "P5", "C": "P6", "D": "P7"}
    code, out = run_json(capsys, ["tournament", "new", "X", "--players", str(path), "--tables", "3", "--rounds", "1",
                                  "--db", str(tmp_path / "h.db"), "--cards", str(tmp_path / "c.pdf")])
    assert code == 2 and "cannot sit at 3 tables" in out["error"] and not (tmp_path / "h.db").exists()


def test_a_payments_profile_is_refused(capsys, tmp_path):
    code, out = new(capsys, tmp_path, str(tmp_path / "p.db"), extra=("--profile", "nmjl"))
    assert code == 2 and "scores points" in out["error"]


def test_round_next_standings_export_and_tokens(capsys, tmp_path, url):
    _, made = new(capsys, tmp_path, url)
    code, out = run_json(capsys, ["tournament", "round", "next", "--db", url])
    assert code == 1 and "lacks 6 game(s)" in out["error"]
    store = Store.open(url)
    for t in (1, 2, 3):
        for g in (1, 2):
            submit(store, made["director_token"], wall(t, g))
    store.close()
    code, out = run_json(capsys, ["tournament", "round", "next", "--db", url])
    assert code == 0 and out["round"] == 2
    code, out = run_json(capsys, ["tournament", "round", "next", "--db", url])
    assert code == 1 and "round 2 still lacks 6 game(s)" in out["error"]
    code, out = run_json(capsys, ["tournament", "standings", "--db", url])
    assert code == 0 and {r["points"] for r in out["standings"]} == {20} and out["round"] == 2
    assert main(["tournament", "standings", "--csv", "--db", url]) == 0
    rows = list(csv.reader(capsys.readouterr().out.splitlines()))
    assert rows[0] == ["place", "name", "points", "games", "wins", "penalties"] and len(rows) == 12
    code, out = run_json(capsys, ["tournament", "export", "--db", url, "--out", str(tmp_path / "ex")])
    assert code == 0 and sorted(p.rsplit("/", 1)[1] for p in out["files"]) == [
        "results.csv", "score-sheets.pdf", "standings.csv", "standings.pdf"]
    results = list(csv.DictReader(open(tmp_path / "ex" / "results.csv", encoding="utf-8")))
    assert len(results) == 6 * 4 - 2 and all(r["points"] == "10" for r in results)  # one 3-player table
    code, out = run_json(capsys, ["tournament", "token", "--table", "2", "--db", url, "--url", "http://x.local:1"])
    assert code == 0 and out["url"] == f"http://x.local:1/table/2?token={out['token']}"
    store = Store.open(url)
    with pytest.raises(Exception, match="stale token"):
        store.role_of(made["table_tokens"]["2"])
    store.close()
    code, out = run_json(capsys, ["tournament", "round", "next", "--force", "--db", url])  # the last round
    assert code == 0 and (out["closed"], out["round"], out["finished"], out["unfinished"]) == (2, 2, True, 6)
    code, out = run_json(capsys, ["tournament", "round", "next", "--db", url])
    assert code == 1 and "the tournament is over" in out["error"]


def test_commands_without_a_database_say_how_to_make_one(capsys, tmp_path):
    code, out = run_json(capsys, ["tournament", "standings", "--db", str(tmp_path / "none.db")])
    assert code == 2 and "mahj tournament new" in out["error"]
    assert main(["tournament", "standings", "--db", str(tmp_path / "none.db")]) == 2
    assert "error: --db" in capsys.readouterr().err


def test_the_table_card_qr_code_reads_back_as_the_score_page():
    """The squares drawn on the card, rendered and read by OpenCV's QR reader, give the table's address."""
    import cv2
    import numpy as np

    from assistant.qr import qr_matrix
    from assistant.tournament.sheets import scorer_url

    url = scorer_url("http://td.local:8780/", 7, "abc-DEF_123")
    assert url == "http://td.local:8780/table/7?token=abc-DEF_123"
    image = np.pad(np.where(np.array(qr_matrix(url), dtype=bool), 0, 255).astype(np.uint8), 4, constant_values=255)
    image = cv2.resize(image, None, fx=8, fy=8, interpolation=cv2.INTER_NEAREST)
    assert cv2.QRCodeDetector().detectAndDecode(image)[0] == url


def test_a_reissued_card_carries_the_address_given_to_new(capsys, tmp_path, url):
    _, made = new(capsys, tmp_path, url, extra=("--url", "http://127.0.0.1:8780"))
    assert made["url"] == "http://127.0.0.1:8780"
    code, out = run_json(capsys, ["tournament", "token", "--table", "3", "--db", url])
    assert code == 0 and out["url"] == f"http://127.0.0.1:8780/table/3?token={out['token']}"


def test_a_database_made_before_the_address_was_stored_is_upgraded(capsys, tmp_path):
    """A 0001 database (no address column) gains it as empty; a reissued card then uses the default address."""
    from alembic import command
    from alembic.config import Config

    from assistant.commands.tournament import default_url
    from assistant.tournament.db import MIGRATIONS

    db = str(tmp_path / "old.db")
    new(capsys, tmp_path, db)
    store = Store.open(db)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with store.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0001")
    store.close()
    code, out = run_json(capsys, ["tournament", "token", "--table", "1", "--db", db])
    assert code == 0 and out["url"].startswith(default_url() + "/table/1?token=")
    store = Store.open(db)
    assert store.address is None
    store.close()

