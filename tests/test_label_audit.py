"""The label audit's sheets: every box of a split, grouped by its label and numbered, with an index back to its
photo and label line (the columns of datasets/splits/label-fixes.tsv)."""

from __future__ import annotations

import csv
import sys

import cv2
import numpy as np

from datasets import label_audit
from datasets.real_photos import RealPhoto


def test_sheets_group_boxes_by_label_and_the_index_points_back_to_photo_and_line(tmp_path, monkeypatch):
    img = np.full((100, 200, 3), 200, np.uint8)
    img[10:50, 10:40] = (0, 0, 255)             # the 1D box is red
    photo = tmp_path / "photos" / "a.jpg"
    photo.parent.mkdir()
    cv2.imwrite(str(photo), img)
    boxes = np.array([[10, 10, 40, 50], [50, 10, 80, 50], [90, 10, 120, 50]], np.float32)
    ph = RealPhoto("chinese", photo, "unseen", boxes, ("1D", "6C", None), lines=(1, 3, 4))
    monkeypatch.setattr(label_audit, "photos", lambda splits, sources: iter([ph]))
    monkeypatch.setattr(label_audit, "SHARED", tmp_path)
    monkeypatch.setattr(sys, "argv", ["label_audit", "--out", str(tmp_path / "out")])
    label_audit.main()
    assert sorted(p.name for p in (tmp_path / "out").glob("*.png")) == ["1D.png", "6C.png", "unknown.png"]
    sheet = cv2.imread(str(tmp_path / "out" / "1D.png"))
    assert sheet.shape[1] == label_audit.CELL * label_audit.COLUMNS
    cell = label_audit.CELL
    assert _red(sheet[:cell, :cell]) > 0.5 * cell * cell * 30 / 40       # the 30 x 40 box, fitted to its cell
    assert _red(cv2.imread(str(tmp_path / "out" / "6C.png"))[:cell]) == 0
    with (tmp_path / "out" / "index.tsv").open() as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    assert [(r["number"], r["path"], r["line"], r["code"]) for r in rows] == [
        ("0", "photos/a.jpg", "1", "1D"), ("1", "photos/a.jpg", "3", "6C"), ("2", "photos/a.jpg", "4", "?")]


def _red(img: np.ndarray) -> int:
    """Pixels of the red painted into the 1D box (the photo is a JPEG: near red)."""
    return int(((img[..., 2] > 200) & (img[..., :2].max(axis=2) < 60)).sum())
