"""The real-photo yardstick (issue 29) without the photos: class names map to our codes, scenes stay on one side
of the split, and the evaluation counts recall, precision, faces and calibration as its docstring says."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from datasets import real_photos
from datasets.real_photos import RealPhoto, chinese_code, chinese_scene, chinese_split, leomiura_code
from vision.tile_model import Detection

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from eval_real import Report, band_of, match  # noqa: E402


@pytest.mark.parametrize("name, code", [("sb1", "1B"), ("sc9", "9C"), ("sd5", "5D"), ("hwn", "N"), ("hdw", "WD"),
                                        ("hdg", "GD"), ("bf3", "F"), ("bs1", "F")])
def test_chinese_classes_become_our_codes(name, code):
    assert chinese_code(name) == code


def test_leomiura_classes_become_our_codes_and_its_junk_class_none():
    assert [leomiura_code(n) for n in ("1_sou", "9_man", "5_pin", "pe-", "sya-", "chun", "haku", "0")] == [
        "1B", "9C", "5D", "N", "W", "RD", "WD", None]
    with pytest.raises(KeyError):
        leomiura_code("1_foo")


def test_a_scene_held_out_keeps_its_augmented_training_copies_out():
    day = chinese_scene("IMG_20231217_175935_jpg.rf.40fd", "test")
    assert day == chinese_scene("IMG_20231217_101010_jpg.rf.aaaa", "train") == "ivory-20231217"
    assert chinese_split(day, "test") == "test" and chinese_split(day, "train") is None
    assert chinese_split("ivory-20231030", "valid") == "train"          # a training day's photo trains
    riichi = chinese_scene("IMG_2701_jpg.rf.1", "valid")
    assert chinese_split(riichi, "valid") == "unseen"
    # nearby Facebook photo ids are one post: one scene, one side
    a, b = chinese_scene("384491542_1_2_n_jpg.rf.1", "test"), chinese_scene("384495523_3_4_n_jpg.rf.2", "valid")
    assert a == b and chinese_split(a, "test") == chinese_split(b, "valid")


def test_a_photo_stretched_by_its_export_is_told_from_an_ordinary_one():
    ordinary = RealPhoto("x", Path("x.jpg"), "test", np.array([[0, 0, 30, 40], [40, 0, 70, 40]], np.float32),
                         ("1B", "2B"))
    strip = RealPhoto("x", Path("y.jpg"), "test", np.array([[0, 0, 10, 90], [12, 0, 22, 90]], np.float32),
                      (None, None))
    assert not ordinary.stretched and strip.stretched


def _det(box, face="up", tile="1B", score=0.9, tile_score=0.9) -> Detection:
    return Detection(tuple(float(v) for v in box), face, tile if face == "up" else None, score,
                     tile_score if face == "up" else None)


def test_the_report_counts_recall_precision_faces_and_sizes():
    truth = np.array([[0, 0, 30, 40], [100, 0, 130, 40], [200, 0, 210, 14]], np.float32)
    dets = [_det((1, 1, 30, 40)),                       # right
            _det((100, 0, 130, 40), tile="2B"),         # found, read wrong
            _det((300, 0, 330, 40)),                    # on no tile: a false face-up box
            _det((500, 0, 530, 40), face="down")]       # a back: not judged (the photos label no backs)
    rep = Report()
    rep.add("chinese", dets, truth, ("1B", "1B", "5D"))
    r = rep.groups["all"].row()
    assert r["tiles"] == 3 and r["recall"] == pytest.approx(2 / 3) and r["precision"] == pytest.approx(2 / 3)
    assert r["face_acc"] == pytest.approx(1 / 3)
    assert rep.groups["band <20"].row()["tiles"] == 1 and rep.groups["band 20-40"].row()["tiles"] == 2
    assert dict(((t, p), n) for t, p, n in rep.to_json()["confusions"]) == {("1B", "2B"): 1, ("5D", "missed"): 1}
    assert band_of(19.9) == "<20" and band_of(20) == "20-40" and band_of(100) == ">100"


def test_matching_is_one_to_one_surest_first():
    truth = np.array([[0, 0, 10, 10]], np.float32)
    pred = np.array([[0, 0, 10, 10], [0, 0, 10, 9]], np.float32)
    assert match(pred, np.array([0.2, 0.9]), truth).tolist() == [1]
    assert match(pred[:0], np.zeros(0), truth).tolist() == [-1]


def test_calibration_error_is_zero_when_scores_say_how_often_reads_are_right_and_large_when_they_lie():
    honest, liar = Report(), Report()
    honest.calib = [(0.75, k < 3) for k in range(4)] * 10      # 75 % sure, right 3 times in 4
    liar.calib = [(0.95, k < 1) for k in range(2)] * 10        # 95 % sure, right half the time
    assert honest.ece() == pytest.approx(0.0) and liar.ece() == pytest.approx(0.45)
    assert Report().ece() is None


def _label_file(tmp_path: Path) -> Path:
    label = tmp_path / "photo.txt"
    # chinese classes: 2 = sd1 (1D), 27 = sd6 (6D)
    label.write_text("2 0.1 0.1 0.1 0.1\n27 0.3 0.1 0.1 0.1\n\n2 0.5 0.1 0.1 0.1\n")
    return label


CLASSES = [{2: "sd1", 26: "sc6", 27: "sd6"}.get(i, f"c{i}") for i in range(42)]


def _fixes(**by_line: tuple[str, str]) -> dict[str, real_photos.LabelFix]:
    return {("*" if at == "every" else at.lstrip("_")): real_photos.LabelFix(said, code, row)
            for row, (at, (said, code)) in enumerate(by_line.items(), start=5)}


def test_a_label_fix_changes_the_code_forgets_an_unknown_face_and_drops_a_box_on_no_tile(tmp_path):
    label = _label_file(tmp_path)
    boxes, codes, lines = real_photos._labelled(label, CLASSES, chinese_code, {})
    assert codes == ["1D", "6D", "1D"] and lines == [1, 2, 4] and len(boxes) == 3
    _, codes, lines = real_photos._labelled(label, CLASSES, chinese_code, _fixes(_2=("6D", "6C"), _4=("1D", "none")))
    assert codes == ["1D", "6C"] and lines == [1, 2]
    _, codes, _ = real_photos._labelled(label, CLASSES, chinese_code, _fixes(every=("1D", "?"), _2=("6D", "6C")))
    assert codes == [None, "6C", None]


@pytest.mark.parametrize("fixes, message", [
    (_fixes(_2=("5D", "6C")), r"fixes.tsv:5: expects a 5D label at .*photo\.txt:2, which says 6D"),
    (_fixes(_3=("1D", "2D")), r"fixes.tsv:5: .*photo\.txt has no tile label at line 3"),
    (_fixes(_9=("1D", "2D")), r"fixes.tsv:5: .*photo\.txt has no tile label at line 9"),
    (_fixes(every=("1D", "?")), r"fixes.tsv:5: expects a 1D label at .*photo\.txt:2, which says 6D"),
])
def test_a_label_fix_the_labels_do_not_bear_out_stops_the_run_naming_its_row(tmp_path, fixes, message):
    with pytest.raises(real_photos.LabelFixError, match=message):
        real_photos._labelled(_label_file(tmp_path), CLASSES, chinese_code, fixes)


@pytest.mark.parametrize("rows, message", [
    ("p.jpg\t2\t6D\n", r"my-fixes\.tsv:5: expected path, line, source_code and code"),
    ("p.jpg\t02\t6D\t6C\n", r"my-fixes\.tsv:5: line '02' is neither"),
    ("p.jpg\t\u00b2\t6D\t6C\n", r"my-fixes\.tsv:5: line '\u00b2' is neither"),
    ("p.jpg\t2\t6D\t6X\n", r"my-fixes\.tsv:5: 6D -> 6X is not a fix"),
    ("p.jpg\t2\t6D\t6D\n", r"my-fixes\.tsv:5: 6D -> 6D is not a fix"),
    ("p.jpg\t2\t6D\t6C\n  # an indented comment\np.jpg\t2\t6D\t?\n", r"my-fixes\.tsv:7: .*fixed already at row 5"),
])
def test_a_fixes_file_row_that_is_no_fix_is_named_by_its_line(tmp_path, rows, message):
    path = tmp_path / "my-fixes.tsv"          # messages name this file, not the committed one
    path.write_text("# why\n\n# more\npath\tline\tsource_code\tcode\tnote\n" + rows)
    with pytest.raises(real_photos.LabelFixError, match=message):
        real_photos.label_fixes(path)


def test_the_commands_that_read_the_photos_end_a_wrong_fix_with_its_message_not_a_traceback(capsys):
    with pytest.raises(SystemExit) as stop, real_photos.fixes_checked():
        raise real_photos.LabelFixError("label-fixes.tsv:7: wrong")
    assert stop.value.code == 2 and capsys.readouterr().err == "error: label-fixes.tsv:7: wrong\n"


def test_the_committed_label_fixes_name_real_codes():
    fixes = real_photos.label_fixes()
    assert fixes, "datasets/splits/label-fixes.tsv is committed"
    for path, by_line in fixes.items():
        assert path.split("/")[0] in ("chinese-mahjong-detection-photos", "leomiura-riichi-table")
        assert all(at == "*" or int(at) >= 1 for at in by_line)


def test_pseudo_labels_take_only_what_the_model_is_sure_of(monkeypatch):
    """The export's boxes for tiles the photos leave unlabelled: face-up ones only where the box and the face are
    both sure, backs only from the detector's own face-down boxes."""
    boxes = np.array([[0, 0, 10, 14], [20, 0, 30, 14], [40, 0, 50, 14], [60, 0, 70, 14], [80, 0, 90, 14],
                      [100, 0, 110, 14]], np.float32)
    cls = np.array([0, 0, 0, 0, 1, 1])
    scores = np.array([0.9, 0.9, 0.5, 0.9, 0.7, 0.4], np.float32)

    asked = []

    class Model:
        def frame_boxes(self, img, conf=None):
            """Cut at ``conf`` (face up, face down) as ``TileModel.frame_boxes`` cuts."""
            asked.append(conf)
            keep = scores >= np.where(cls == 0, conf[0], conf[1])
            return boxes[keep], cls[keep], scores[keep]

        def read_faces(self, img, b, c, s):
            faces = {0: ("3B", 0.95), 20: ("3B", 0.6), 40: ("3B", 0.99), 60: (None, 0.99)}   # by the box's x
            return [Detection(tuple(bb), "down" if faces[int(bb[0])][0] is None else "up", *faces[int(bb[0])][:1],
                              float(sc), faces[int(bb[0])][1]) for bb, sc in zip(b, s, strict=True)]

    import vision.tile_model as tm

    monkeypatch.setattr(tm.TileModel, "load", classmethod(lambda c, *a, **k: Model()))
    ups, backs = real_photos.pseudo_tiles()(np.zeros((20, 120, 3), np.uint8))
    # Box 0: sure box, sure face. Box 1: the face unsure. Box 2: the box unsure. Box 3: read as a back.
    assert ups.tolist() == [[0, 0, 10, 14]]
    assert backs.tolist() == [[80, 0, 90, 14]]
    # Read down to a lower box score and face (the heaps' tumbled tiles): boxes 1 and 2 come in; backs as before.
    ups, backs = real_photos.pseudo_tiles(0.2, 0.5)(np.zeros((20, 120, 3), np.uint8))
    assert ups.tolist() == [[0, 0, 10, 14], [20, 0, 30, 14], [40, 0, 50, 14]]
    assert backs.tolist() == [[80, 0, 90, 14]]
    assert asked == [(0.6, 0.6), (0.2, 0.6)]
