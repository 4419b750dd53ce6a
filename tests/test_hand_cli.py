"""``mahj hand`` and ``mahj verify --photo`` (issue 44): a rack photo read as ``mahj detect`` reads it, the tiles
in rack order and sorted, doubt and impossible counts said, the advice, the verdict; bad photos get a sentence."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

import assistant.session
from assistant.cli import main
from vision.tile_model import Detection

FIXTURES = Path(__file__).parent / "fixtures"
#: Rendered by datasets/synth/rack_photo.py from these tiles, left to right: 2026 #6 (FF 2026a 2026b 6666c),
#: Mah Jongg with a Joker in the kong.
MAHJONG_RACK = FIXTURES / "hand" / "mahjong_rack.jpg"
MAHJONG_TILES = "F F 2B WD 2B 6B 2D WD 2D 6D 6C 6C 6C J".split()


class FakeModel:
    """Reads every photo as the given tiles (code, calibrated score, alternatives), left to right."""

    def __init__(self, reads: list[tuple[str, float, tuple[str, ...]]]) -> None:
        self.reads = reads

    def detect(self, image: np.ndarray, photo: bool = False) -> list[Detection]:
        return [Detection((40.0 * i, 10.0, 40.0 * i + 36, 60.0), "up", code, 0.9, score, (code, *alts))
                for i, (code, score, alts) in enumerate(self.reads)]

    def kind_probability(self, image: np.ndarray, boxes: list, code: str) -> np.ndarray:
        return np.zeros(len(boxes))


@pytest.fixture
def photo(tmp_path) -> Path:
    path = tmp_path / "rack.png"
    cv2.imwrite(str(path), np.full((120, 640, 3), 90, np.uint8))
    return path


def fake(monkeypatch, reads) -> None:
    monkeypatch.setattr(assistant.session, "open_model", lambda tile_set="": FakeModel(reads))


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_a_real_rack_photo_is_read_in_rack_order_and_found_mah_jongg(capsys):
    code, out, _ = run(capsys, "hand", str(MAHJONG_RACK))
    assert code == 0
    assert "rack order: " + " ".join(MAHJONG_TILES) in out
    assert "sorted:     2B 2B 6B 6C 6C 6C 2D 2D 6D WD WD F F J" in out
    assert "in words:   2 x Two Bam, Six Bam, 3 x Six Crak, 2 x Two Dot, Six Dot, 2 x Soap, 2 x Flower, Joker" in out
    assert "Verdict: Mah Jongg: 2026 #6, value 35" in out
    code, out, _ = run(capsys, "verify", "--photo", str(MAHJONG_RACK), "--json")
    v = json.loads(out)
    assert code == 0 and v["mahjong"] and v["sure"] and v["value"] == 35 and v["tiles"] == MAHJONG_TILES


def test_tiles_as_text_give_lines_passes_and_no_verdict_before_fourteen(capsys):
    code, out, _ = run(capsys, "hand", "--tiles", "F F 2B WD 2B 6B 2D WD 6C 6C 6C J 9D", "--json")
    a = json.loads(out)
    assert code == 0 and a["read"] is None and a["total"] == 13 and a["verdict"] is None
    first = a["nearest"][0]
    assert (first["section"], first["line"], first["missing"]) == ("2026", 6, 2)
    assert first["joker_groups"] == [["6C", "6C", "6C", "6C"]] and first["jokers_used"] == 1
    assert [p["pass"] for p in a["passes"]] == ["first-right", "first-left", "courtesy"]
    assert a["passes"][1]["tiles"] == ["9D"] and a["passes"][1]["blind"] == 2
    assert all("J" not in p["tiles"] for p in a["passes"])
    for extra in (("--pass", "courtesy", "--courtesy", "2"), ("--courtesy", "2")):
        code, out, _ = run(capsys, "hand", "--tiles", "F F 2B WD 2B 6B 2D WD 6C 6C 6C J 9D", *extra)
        assert "Charleston, courtesy: Pass 2D 9D: " in out and out.count("Charleston") == 1
    assert "Verdict: 13 tiles; Mah Jongg needs 14." in out


def test_after_an_exposure_no_pass_and_a_dead_hand_is_said(capsys):
    code, out, _ = run(capsys, "hand", "--tiles", "F F 2B WD 2B 6B 2D", "--exposed", "6C 6C J 6C; 9B 9B 9B")
    assert code == 0 and "this hand is dead" in out and "Charleston" not in out
    code, _, err = run(capsys, "hand", "--tiles", "F F 2B", "--exposed", "6C 6C 6C", "--pass", "first-right")
    assert code == 2 and "Charleston is over" in err


def test_doubtful_tiles_are_marked_with_their_alternatives_never_silently_taken(capsys, monkeypatch, photo):
    reads = [(t, 0.99, ()) for t in MAHJONG_TILES]
    reads[5] = ("6B", 0.41, ("8B", "6D"))
    fake(monkeypatch, reads)
    code, out, _ = run(capsys, "hand", str(photo))
    assert code == 0
    assert "1 doubtful (marked ?)" in out and "2B 6B? 2D" in out
    assert "tile 6: read as 6B (41% sure), or perhaps 8B / 6D" in out
    assert "(if the doubtful tiles are as read)" in out
    code, out, _ = run(capsys, "hand", str(photo), "--json")
    read = json.loads(out)["read"]
    assert read["doubtful"] == [6] and read["rack_order"][5]["alts"][0]["tile"] == "8B"
    # verify --photo: Mah Jongg that rests on a doubtful tile is not a sure Mah Jongg
    code, out, _ = run(capsys, "verify", "--photo", str(photo))
    assert code == 1 and "Mah Jongg: 2026 #6" in out and "Mah Jongg only if it is read right" in out


def test_impossible_counts_are_pointed_out(capsys, monkeypatch, photo):
    fake(monkeypatch, [("3B", 0.99, ())] * 5 + [("J", 0.99, ())] * 10)
    code, out, _ = run(capsys, "hand", str(photo))
    assert code == 0
    assert "IMPOSSIBLE: 15 tiles: a hand holds at most 14" in out
    assert "IMPOSSIBLE: 5 x 3B, but a set has only 4" in out
    assert "IMPOSSIBLE: 10 Jokers, but a set has only 8" in out
    assert "missed" not in out           # one tile too many: nothing is missing


def test_a_photo_of_another_set_or_of_no_tiles_is_refused_with_a_sentence(capsys, monkeypatch, photo):
    fake(monkeypatch, [("3B", 0.3, ("5B",))] * 10 + [("N", 0.95, ())] * 3)
    code, out, err = run(capsys, "hand", str(photo))
    assert code == 1 and "10 of 13 tiles are unclear" in err and "3B? 3B?" in out
    code, out, _ = run(capsys, "hand", str(photo), "--json")
    assert code == 1 and "unclear" in json.loads(out)["error"]
    fake(monkeypatch, [])
    code, _, err = run(capsys, "verify", "--photo", str(photo))
    assert code == 1 and f"{photo}: No tiles found in the photo" in err      # the photo named


def test_a_real_photo_without_tiles_is_refused(capsys, tmp_path):
    rng = np.random.default_rng(0)
    felt = np.clip(np.full((480, 640, 3), (40, 110, 40), np.float32) + rng.normal(0, 6, (480, 640, 3)), 0, 255)
    path = tmp_path / "felt.png"
    cv2.imwrite(str(path), felt.astype(np.uint8))
    code, _, err = run(capsys, "hand", str(path))
    assert code == 1 and "No tiles found" in err


def _png_header(width: int, height: int) -> bytes:
    """A small PNG file whose header declares ``width`` x ``height`` pixels (its data is not even there)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes(999))) + chunk(b"IEND", b""))


def test_bad_files_get_a_sentence_and_exit_1(capsys, tmp_path):
    text = tmp_path / "notes.jpg"
    text.write_text("my hand: 3 bam, 4 bam\n")
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(_png_header(32000, 32000))
    big = tmp_path / "big.jpg"
    with open(big, "wb") as f:
        f.truncate(26 * 2**20)
    for path, words in ((text, "not an image"), (bomb, "32000 x 32000 pixels"), (big, "more than a rack photo may "
                                                                                      "be (25 MB)"),
                        (tmp_path / "none.jpg", "no such file")):
        code, _, err = run(capsys, "hand", str(path))
        assert code == 1 and f"{path}: " in err and words in err
        code, out, _ = run(capsys, "verify", "--photo", str(path), "--json")
        assert code == 1 and words in json.loads(out)["error"]


def test_usage_mistakes_exit_2(capsys, photo):
    assert run(capsys, "hand")[0] == 2
    code, _, err = run(capsys, "hand", str(photo), "--tiles", "1B")
    assert code == 2 and "not both" in err
    code, _, err = run(capsys, "hand", "--tiles", "1B 3X")
    assert code == 2 and "--tiles" in err
    code, _, err = run(capsys, "verify", "1B", "--photo", str(photo))
    assert code == 2 and "not both" in err
    code, _, err = run(capsys, "hand", "--tiles", "1B 2B 3B", "--pass", "first-right", "--courtesy", "2")
    assert code == 2 and "--courtesy goes with --pass courtesy" in err
    code, out, _ = run(capsys, "hand", "--tiles", "1B 2B 3B", "--exposed", "3B 3B", "--json")
    assert code == 2 and "an exposure is a pung or larger" in json.loads(out)["error"]
