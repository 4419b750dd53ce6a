"""`mahj setup mat`: the printed mat holds one labelled cell per kind (8 for Flowers and Jokers), cells fit a
standard American tile, and a photo of a sheet is found by its markers, at any angle up to the steepest allowed."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from assistant.cli import main
from engine.tiles import FLOWER, JOKER, TILES
from vision.mat import (
    FRAME_MM,
    MARKER_MM,
    MAX_TILT_DEG,
    SHEETS,
    TILE_MM,
    MatError,
    cells,
    check_view,
    find_sheets,
    marker_boxes,
)
from vision.mat_print import sheet_image


def test_every_kind_has_a_cell_in_card_order_and_flowers_and_jokers_have_eight():
    codes = [c.code for s in range(len(SHEETS)) for c in cells(s)]
    assert [c for c in codes if c not in (FLOWER, JOKER)] == list(TILES[:34])
    assert codes.count(FLOWER) == 8 and codes.count(JOKER) == 8
    assert cells(1)[-1].name == "sheet 2, Joker 8" and cells(0)[2].name == "sheet 1, 3 Bam"


@pytest.mark.parametrize("sheet", [0, 1])
def test_cells_hold_a_tile_and_keep_clear_of_each_other_and_the_markers(sheet):
    zones = [c.zone for c in cells(sheet)]
    for x0, y0, x1, y1 in zones:
        assert x1 - x0 >= TILE_MM[0] + 3 and y1 - y0 >= TILE_MM[1] + 3
        assert 0 <= x0 and x1 <= FRAME_MM[0] and y1 <= FRAME_MM[1]
        for mx, my in marker_boxes(sheet).values():          # a quiet zone around every marker
            assert x1 < mx - 3 or x0 > mx + MARKER_MM + 3 or y1 < my - 3 or y0 > my + MARKER_MM + 3
    for i, a in enumerate(zones):
        for b in zones[i + 1:]:
            assert a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1]


def _photo(page: np.ndarray, tilt_deg: float, turn_deg: float) -> np.ndarray:
    """The page as a camera sees it: turned, tilted about its horizontal axis, on a dark table."""
    h, w = page.shape[:2]
    f = 1.5 * w
    rx, rz = np.radians(tilt_deg), np.radians(turn_deg)
    rot = np.array([[np.cos(rz), -np.sin(rz), 0], [np.sin(rz), np.cos(rz), 0], [0, 0, 1]]) @ \
        np.array([[1, 0, 0], [0, np.cos(rx), -np.sin(rx)], [0, np.sin(rx), np.cos(rx)]])
    k = np.array([[f, 0, w], [0, f, h], [0, 0, 1]])
    pts = np.float64([[x - w / 2, y - h / 2, 0] for x, y in ((0, 0), (w, 0), (w, h), (0, h))])
    cam = (rot @ pts.T).T + [0, 0, 2.2 * w]
    img_pts = (k @ cam.T).T
    dst = (img_pts[:, :2] / img_pts[:, 2:]).astype(np.float32)
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), dst)
    out = cv2.warpPerspective(cv2.cvtColor(page, cv2.COLOR_GRAY2BGR), m, (2 * w, 2 * h), borderValue=(40, 70, 30))
    return out


def test_mat_command_writes_a_two_page_pdf_and_a_png_per_sheet_that_read_back(tmp_path, capsys):
    assert main(["setup", "mat", "--paper", "a4", "--out", str(tmp_path / "mat.pdf"), "--dpi", "100", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    pdf = (tmp_path / "mat.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and b"/Count 2" in pdf and doc["cells"] == [27, 23]
    assert b"/MediaBox [0 0 841.89 595.28]" in pdf                                 # A4 landscape, in points
    for s, png in enumerate(doc["png"]):
        page = cv2.imread(png, cv2.IMREAD_GRAYSCALE)
        assert page.shape == (round(210 / 25.4 * 100), round(297 / 25.4 * 100))
        (view,) = find_sheets(cv2.cvtColor(page, cv2.COLOR_GRAY2BGR))
        assert view.sheet == s and view.markers == 4 and abs(view.px_per_mm - 100 / 25.4) < 0.05
        # the printed outline of every cell is where the layout says
        for c in cells(s):
            x0, y0, x1, y1 = view.to_image(np.float64([c.zone[:2], c.zone[2:]])).ravel().round().astype(int)
            assert page[y0 - 1:y0 + 2, x0 + 5:x1 - 5].min() < 128 and page[y0 + 5:y1 - 5, x0 + 5:x1 - 5].min() > 200
    assert main(["setup", "mat", "--out", str(tmp_path / "mat")]) == 0
    text = capsys.readouterr().out
    assert "Print at 100 %" in text and (tmp_path / "mat.pdf").exists() and (tmp_path / "mat-2.png").exists()


def test_a_photographed_sheet_is_found_and_its_angle_measured_a_steep_one_refused():
    page = sheet_image(1, "letter", 60)
    (view,) = find_sheets(_photo(page, 30, 20))
    assert view.sheet == 1 and abs(view.tilt_deg - 30) < 5
    check_view(view, "photo.jpg")
    (steep,) = find_sheets(_photo(page, 60, -15))
    assert steep.tilt_deg > MAX_TILT_DEG
    with pytest.raises(MatError, match=r"photo.jpg: sheet 2 is seen at \d+ degrees .* hold the camera over the mat"):
        check_view(steep, "photo.jpg")
    assert find_sheets(np.full((300, 400, 3), 255, np.uint8)) == []


def test_mat_command_names_a_missing_folder(tmp_path, capsys):
    assert main(["setup", "mat", "--out", str(tmp_path / "nope" / "mat.pdf")]) == 1
    assert "nope: no such folder" in capsys.readouterr().err
