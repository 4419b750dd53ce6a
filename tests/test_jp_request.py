"""The request contract: bad input names its field, the command keeps JSON Lines order, mpsz is read right."""

import io
import json
import sys
from types import SimpleNamespace

import pytest

from assistant.cli import main
from engine.japanese import score_request
from engine.japanese.tiles import KIND_NAMES, MpszError, american_code, dora_after, parse_mpsz

GOOD = {"hand": "123m456p789s22255s", "win": "2s", "tsumo": True, "seat_wind": "S", "round_wind": "E"}


def test_mpsz_reading_and_red_fives():
    kinds, red = parse_mpsz("123m406p789s1122z")
    assert kinds[:6] == (0, 1, 2, 12, 13, 14) and red == 1 and kinds[-1] == 28
    assert [KIND_NAMES[k] for k in kinds[3:6]] == ["4p", "5p", "6p"] and KIND_NAMES[33] == "7z"
    assert american_code(0) == "1C" and american_code(13) == "5D" and american_code(22) == "5B"
    assert american_code(27) == "E" and american_code(31) == "WD"
    assert dora_after(8) == 0 and dora_after(30) == 27 and dora_after(33) == 31
    for bad in ("123", "8z", "12x", "m"):
        with pytest.raises(MpszError):
            parse_mpsz(bad)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"hand": "123m456p789s2225s"}, "hand"),
        ({"hand": "123m456p789s22255q"}, "hand"),
        ({"hand": "11111m2m456p789s55s", "win": "1m"}, "hand"),  # five of one tile
        ({"win": "3s"}, "win"),
        ({"win": "2s3s"}, "win"),
        ({"tsumo": "yes"}, "tsumo"),
        ({"seat_wind": "X"}, "seat_wind"),
        ({"seat_wind": {"a": 1}}, "seat_wind"),  # unhashable values are answered, not raised
        ({"rules": ["tenhou"]}, "rules"),
        ({"melds": [{"type": ["chi"], "tiles": "123m"}]}, "melds[0].type"),
        ({"melds": [{"type": "chi", "tiles": ["123m"]}]}, "melds[0].tiles"),
        ({"round_wind": None}, "round_wind"),
        ({"rules": "ema"}, "rules"),
        ({"riichii": True}, "riichii"),
        ({"ippatsu": True}, "ippatsu"),
        ({"haitei": True, "tsumo": False}, "haitei"),
        ({"houtei": True}, "houtei"),
        ({"rinshan": True}, "rinshan"),
        ({"chankan": True}, "chankan"),
        ({"tenhou": True}, "tenhou"),
        ({"renhou": True}, "renhou"),
        ({"dora_indicators": "1m2m3m4m5m6m"}, "dora_indicators"),
        ({"melds": "123m"}, "melds"),
        ({"melds": [{"type": "pung", "tiles": "111m"}]}, "melds[0].type"),
        ({"melds": [{"type": "chi", "tiles": "135m"}]}, "melds[0].tiles"),
        ({"melds": [{"type": "pon", "tiles": "111m"}], "hand": "123m456p789s22255s"}, "hand"),
        ({"melds": [{"type": "chi", "tiles": "123m", "from": 2}]}, "melds[0].from"),
    ],
)
def test_bad_input_names_the_field(change, field):
    result = score_request(GOOD | change)
    assert result["ok"] is False and result["field"] == field, result
    assert result["error"].startswith(field + ":")


def test_riichi_needs_a_concealed_hand():
    req = GOOD | {"hand": "456p789s22255s", "melds": [{"type": "chi", "tiles": "123m"}], "riichi": True}
    assert score_request(req)["field"] == "riichi"
    # a concealed kong keeps the hand concealed
    req = GOOD | {"hand": "456p789s22255s", "melds": [{"type": "ankan", "tiles": "1111m"}], "riichi": True}
    assert score_request(req)["win"]


def test_id_is_echoed():
    assert score_request(GOOD | {"id": 7})["id"] == 7
    assert score_request(GOOD | {"id": "x", "win": "9s"})["id"] == "x"


def _cli(*args: str, stdin: str, monkeypatch, capsys) -> SimpleNamespace:
    """Run ``mahj jp score ARGS`` in this process (through the real command-line entry point)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(["jp", "score", *args])
    return SimpleNamespace(returncode=code, stdout=capsys.readouterr().out)


def test_command_answers_each_line_in_order(monkeypatch, capsys):
    lines = [
        json.dumps(GOOD | {"id": 1}),
        "{not json",
        json.dumps(GOOD | {"hand": "123m456p789s22256s", "win": "6s"}),
        json.dumps({"hand": "222s111p11z", "win": "1z", "tsumo": False, "seat_wind": "N", "round_wind": "S",
                    "melds": [{"type": "pon", "tiles": "555m"}, {"type": "minkan", "tiles": "7777z"}]}),
    ]
    run = _cli(stdin="\n".join(lines) + "\n", monkeypatch=monkeypatch, capsys=capsys)
    out = [json.loads(x) for x in run.stdout.splitlines()]
    assert len(out) == 4
    assert out[0]["id"] == 1 and out[0]["win"] and out[0]["han"] == 1
    assert out[1] == {"ok": False, "field": "request", "error": out[1]["error"]}
    assert out[2]["ok"] and not out[2]["win"]
    assert out[3]["basic_points"] == 1920
    assert run.returncode == 1  # one line was bad input


def test_command_text_summary_and_default_rules(monkeypatch, capsys):
    req = GOOD | {"hand": "123m406p789s22255s", "riichi": True}
    run = _cli("--text", "--rules", "tenhou", stdin=json.dumps(req) + "\n", monkeypatch=monkeypatch, capsys=capsys)
    assert run.returncode == 0
    assert "3 han" in run.stdout and "Red five" in run.stdout and "dealer pays" in run.stdout
    run = _cli("--json", stdin=json.dumps(req) + "\n", monkeypatch=monkeypatch, capsys=capsys)
    assert json.loads(run.stdout)["han"] == 2  # reference: red fives are plain fives (riichi + self-draw)
