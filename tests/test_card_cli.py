"""The card commands as a user runs them: mahj card lint|show, mahj verify (and --batch), mahj suggest."""

import io
import json
import subprocess
import sys

import pytest

from assistant.cli import main
from engine.card import SAMPLE_CARD

WIN = "F F F 2B WD 2B 6B 2C 2C 2C 2D 2D 2D 2D".split()  # 2026 #1, no jokers


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_lint_ok_and_json(capsys):
    code, out, _ = run(capsys, "card", "lint", str(SAMPLE_CARD))
    assert code == 0 and "ok, 61 lines" in out and "concrete variations" in out
    code, out, _ = run(capsys, "card", "lint", "--json", str(SAMPLE_CARD))
    data = json.loads(out)
    assert code == 0 and data["ok"] and data["errors"] == [] and data["lines"] == 61 and data["variations"] > 61


def test_lint_reports_every_error_with_position(capsys, tmp_path):
    path = tmp_path / "typo.card"
    path.write_text("card: Mine\n[A]\nFF 2026a 2222b 222x X25\nNNNN EEEE WWWW SS\n", encoding="utf-8")
    code, out, err = run(capsys, "card", "lint", str(path))
    assert code == 1
    assert out.splitlines() == [
        f"{path}:3:19: unknown symbol 'x' (expected 1-9, 0, F, N, E, W, S, D, then a tag a/b/c)",
        f"{path}:4:18: missing X<value> (exposed hand) or C<value> (concealed hand)",
    ]
    assert "2 errors" in err
    code, out, _ = run(capsys, "card", "lint", "--json", str(path))
    data = json.loads(out)
    assert code == 1 and not data["ok"] and data["lines"] is None
    assert data["errors"][0] == {"file": str(path), "line": 3, "col": 19,
                                 "message": "unknown symbol 'x' (expected 1-9, 0, F, N, E, W, S, D, then a tag a/b/c)"}


def test_lint_missing_file(capsys, tmp_path):
    code, _, err = run(capsys, "card", "lint", str(tmp_path / "nope.card"))
    assert code == 2 and "nope.card" in err


def test_show_plain_and_coloured(capsys):
    code, out, _ = run(capsys, "card", "show", str(SAMPLE_CARD))
    assert code == 0 and "\033[" not in out
    assert "FFF 2026a 222b 2222c" in out and "CONSECUTIVE RUN" in out
    assert out.rstrip().splitlines()[-1].startswith("61 lines, ")
    code, out, _ = run(capsys, "card", "show", "--color", "always", str(SAMPLE_CARD))
    assert "\033[32m2\033[0m" in out and "2026a" not in out  # inks replace the tags


def test_show_json(capsys):
    code, out, _ = run(capsys, "card", "show", "--json")
    data = json.loads(out)
    assert data["line_count"] == len(data["lines"]) == 61
    assert data["variation_count"] == sum(ln["variations"] for ln in data["lines"])
    first = data["lines"][0]
    assert first["section"] == "2026" and first["line"] == 1 and first["groups"] == ["FFF", "2026a", "222b", "2222c"]
    assert data["cheapest_value"] == 25


def test_verify_text_json_and_exit_codes(capsys):
    code, out, _ = run(capsys, "verify", *WIN)
    assert code == 0 and out.startswith("Mah Jongg: 2026 #1, value 25 (jokerless)")
    code, out, _ = run(capsys, "verify", "--json", "--exposed", "F F J", *WIN[3:])
    data = json.loads(out)
    assert code == 0 and data["mahjong"] and data["value"] == 25 and not data["jokerless"]
    assert data["lines"] == [{"section": "2026", "line": 1, "text": 'FFF 2026a 222b 2222c X25 "Any 3 suits, pung and '
                              'kong of twos"', "value": 25, "concealed": False}]
    code, out, _ = run(capsys, "verify", *WIN[:-1], "N")
    assert code == 1 and out.startswith("Not Mah Jongg. Nearest lines:") and "2026 #1" in out


def test_verify_accepts_spoken_names_and_rejects_bad_tiles(capsys):
    code, out, _ = run(capsys, "verify", "--json", "flower", "flower", "flower", "2", "bam", "soap", *WIN[5:])
    assert code == 0 and json.loads(out)["mahjong"]
    code, _, err = run(capsys, "verify", "F", "Q")
    assert code == 2 and "not a tile: 'Q'" in err


def test_verify_batch_keeps_order_and_reports_bad_lines(capsys, monkeypatch):
    lines = [
        json.dumps({"tiles": " ".join(WIN)}),
        "not json",
        json.dumps({"tiles": " ".join(WIN[3:]), "exposed": ["F F J"]}),
        json.dumps({"tiles": " ".join(WIN[:-1] + ["N"])}),
    ]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    code, out, _ = run(capsys, "verify", "--batch")
    results = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and len(results) == 4
    assert results[0]["mahjong"] and results[0]["jokerless"]
    assert results[1]["error"].startswith("stdin:2:")
    assert results[2]["mahjong"] and not results[2]["jokerless"]
    assert not results[3]["mahjong"] and results[3]["nearest"][0]["line"] == 1


def test_verify_batch_rejects_non_tile_values_per_line(capsys, monkeypatch):
    lines = [json.dumps({"tiles": 5}), json.dumps({"tiles": WIN[3:], "exposed": [["F", "F", "J"]]}),
             json.dumps({"tiles": " ".join(WIN[3:]), "exposed": [7]})]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    code, out, _ = run(capsys, "verify", "--batch")
    results = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and len(results) == 3
    assert results[0]["error"].startswith('stdin:1: "tiles" must be a string of tiles')
    assert results[1]["mahjong"]  # lists of codes are read too
    assert results[2]["error"].startswith('stdin:3: "exposed" group 1 must be')
    code, _, err = run(capsys, "verify", "--batch", *WIN)
    assert code == 2 and "--batch reads every hand from stdin" in err


def test_verify_says_when_no_line_allows_the_exposures(capsys):
    # no exposed line of the sample card has a pung of 2 Bam beside a kong of 8 Bam
    code, out, _ = run(capsys, "verify", "--exposed", "2B 2B J; 8B 8B 8B 8B", "F", "F", "4B", "4B", "6B", "6B", "2B")
    assert code == 1 and out.strip() == "Not Mah Jongg: no exposed (X) line on the card allows these exposures"
    code, out, _ = run(capsys, "verify", "--json", "1B")
    assert json.loads(out)["reason"] == "1 tile; Mah Jongg needs 14"


def test_suggest_json_and_text(capsys):
    hand = "F F 2B 2B 2B 2B 4B 4B 6B 6B 8B 8B 8B".split()
    code, out, _ = run(capsys, "suggest", "--json", "--seen", "8B 8B", "--seen", "8B", *hand)
    data = json.loads(out)
    assert code == 0 and data["live"] + data["dead"] == 61
    top = data["suggestions"][0]
    assert (top["section"], top["line"], top["missing"]) == ("2468", 2, 1)
    assert top["need"] == [{"tile": "8B", "count": 1, "joker_ok": True, "unseen": 0}]
    code, out, _ = run(capsys, "suggest", "--top", "2", *hand)
    assert out.startswith(" 1. 2468 #2 (25) missing 1: 1x 8B (joker ok, 1 unseen)")
    assert "more live lines" in out


def test_suggest_needs_13_or_14_tiles(capsys):
    code, _, err = run(capsys, "suggest", "F", "F")
    assert code == 2 and "2 tiles" in err


def test_suggest_refuses_a_malformed_exposure_and_a_negative_top(capsys):
    hand = "F F 2B 2B 2B 2B 4B 4B 6B 6B 8B".split()
    code, _, err = run(capsys, "suggest", "--exposed", "2B 3B 4B", *hand)
    assert code == 2 and "--exposed: exposure 1 mixes tiles (2B 3B 4B)" in err
    code, _, err = run(capsys, "suggest", "--top", "-1", *hand, "8B", "8B")
    assert code == 2 and "--top must be 0 (all) or more" in err


def test_lint_and_show_count_in_the_singular(capsys, tmp_path):
    path = tmp_path / "one.card"
    path.write_text("card: One\n[A]\nNNNN EEEE WWWW SS X25\n", encoding="utf-8")
    assert run(capsys, "card", "lint", str(path))[1].strip() == f"{path}: ok, 1 line, 1 concrete variation"
    assert run(capsys, "card", "show", "--color", "never", str(path))[1].rstrip().endswith(
        "1 line, 1 concrete variation, cheapest hand 25")


@pytest.mark.parametrize("args", [["card", "show", "--help"], ["verify", "--help"]])
def test_entry_point_runs_as_a_program(args):
    result = subprocess.run([sys.executable, "-m", "assistant.cli", *args], capture_output=True, text=True)
    assert result.returncode == 0 and "--json" in result.stdout
