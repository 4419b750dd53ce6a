"""Calibration: markers -> homography recovered from a rendered table; page/PDF; JSON round trip; bump check."""

import json

import cv2
import numpy as np
import pytest

from datasets.video.render import Look, Renderer, true_homography
from datasets.video.script import own_moves
from datasets.video.world import FrameState, World
from vision.calibration import (
    Calibration,
    CalibrationError,
    calibrate_frame,
    detect_markers,
    fit_bands,
    marker_page,
    parse_corners,
    seat_to_table,
    table_to_seat,
    write_pdf,
)
from vision.events import CameraProblem
from vision.reader import TableReader


class _NoTiles:
    """A tile model that sees nothing, so only the camera checks can produce events."""

    def detect(self, frame):
        return []


def _calibration_error_px(reader, renderer, fs) -> float:
    """How far (px) the reader's homography puts table points from where the shifted camera really sees them."""
    truth = true_homography(renderer.camera(fs))
    pts = np.array([[300.0, 300.0], [600.0, 600.0]])
    want = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), truth).reshape(-1, 2)
    return float(np.abs(reader.cal.to_image(pts) - want).max())


def _still_frames(world: World, renderer: Renderer, n: int, shift=(0.0, 0.0, 0.0), light: float = 1.0, start=0):
    tiles = world._tiles()
    for i in range(n):
        fs = FrameState(start + i, (start + i) / 30, tiles, [], light, shift)
        yield renderer.frame(fs)[0], fs


@pytest.fixture(scope="module")
def table():
    world = World(own_moves(5, turns=2), seed=5, disturb=False)
    look = Look.random(5, 640, 360)
    return world, look, Renderer(world, look)


def test_homography_recovered_from_rendered_markers(table):
    world, look, renderer = table
    frame, _ = next(_still_frames(world, renderer, 1))
    cal = calibrate_frame(frame)
    truth = true_homography(look.camera)
    pts = np.array([[x, y] for x in (150, 450, 750) for y in (150, 450, 750)], float)
    got = cal.to_image(pts)
    want = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), truth).reshape(-1, 2)
    # Lens distortion is not modelled, so allow a couple of pixels at 640x360 (about 3 mm on the table).
    assert np.abs(got - want).max() < 2.5, np.abs(got - want).max()


def test_missing_marker_is_named():
    blank = np.full((360, 640, 3), 90, np.uint8)
    with pytest.raises(CalibrationError, match=r"\[0, 1, 2, 3\]"):
        calibrate_frame(blank)


def test_marker_page_detects_and_pdf_is_wellformed(tmp_path):
    page = marker_page(dpi=100)
    assert sorted(detect_markers(page)) == [0, 1, 2, 3]
    write_pdf(page, tmp_path / "m.pdf", 100)
    data = (tmp_path / "m.pdf").read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    # The xref offsets point at the objects (a reader relies on them).
    xref = int(data[data.rindex(b"startxref") + 9:].split()[0])
    offsets = [int(line.split()[0]) for line in data[xref:].split(b"\n")[3:8]]
    for n, off in enumerate(offsets, 1):
        assert data[off:].startswith(f"{n} 0 obj".encode())
    # Letter page at true size: 612 x 792 points.
    assert b"/MediaBox [0 0 612.00 792.00]" in data


def test_manual_corners_and_json_round_trip(tmp_path):
    corners = parse_corners("600,340 600,20 40,20 40,340")
    from vision.calibration import calibrate_from_points

    cal = calibrate_from_points(corners, (640, 360), source="manual")
    cal.save(tmp_path / "c.json")
    back = Calibration.load(tmp_path / "c.json")
    assert back.source == "manual" and back.image_size == (640, 360)
    assert np.allclose(back.H, cal.H)
    assert [b.name for b in back.bands] == [b.name for b in cal.bands]
    with pytest.raises(CalibrationError, match="8 numbers"):
        parse_corners("1,2 3,4")
    bad = tmp_path / "bad.json"
    bad.write_text('{"image_size": [1, 2],\n "table_to_image": }')
    with pytest.raises(CalibrationError, match=r"bad.json:2:"):
        Calibration.load(bad)
    assert json.loads((tmp_path / "c.json").read_text())["seats"]["0"] == "East"


def test_seat_frames_are_inverse_and_turn_counterclockwise():
    for seat in range(4):
        x, y = seat_to_table(seat, 37.0, 81.0, 900)
        assert np.allclose(table_to_seat(seat, x, y, 900), (37.0, 81.0))
    # East sits at the bottom (y = 900), South to East's right (x = 900), West at the top, North on the left.
    assert seat_to_table(0, 0, 0, 900) == (450, 900)
    assert seat_to_table(1, 0, 0, 900) == (900, 450)
    assert seat_to_table(2, 0, 0, 900) == (450, 0)
    assert seat_to_table(3, 0, 0, 900) == (0, 450)


def test_fit_bands_recentres_on_tiles():
    from vision.calibration import TableLayout, default_bands

    bands = default_bands(TableLayout())
    wall0 = next(b for b in bands if b.name == "wall0")
    tiles = [(*seat_to_table(0, u, 150.0, 900), "down") for u in range(-150, 150, 24)]
    fitted = {b.name: b for b in fit_bands(bands, tiles, 900)}
    lo, hi = fitted["wall0"].v
    assert hi > wall0.v[1] and lo < 150 - 15 and hi > 150 + 15      # moved out, holds the tiles with margin
    assert lo == fitted["rack_top0"].v[1]                            # no gap, no overlap with the rack top
    assert fitted["wall1"].v == next(b for b in bands if b.name == "wall1").v   # no tiles: unchanged


def test_bumped_camera_is_reported_and_recalibrated(table):
    world, look, renderer = table
    frame0, _ = next(_still_frames(world, renderer, 1))
    cal = calibrate_frame(frame0)

    reader = TableReader(cal, _NoTiles(), marker_check_s=0.2)
    events = []
    for img, fs in _still_frames(world, renderer, 12):
        events += reader.process(img, fs.index, fs.t)
    assert not events
    for img, fs in _still_frames(world, renderer, 30, shift=(14.0, -9.0, 0.8), start=12):
        events += reader.process(img, fs.index, fs.t)
    bumps = [e for e in events if isinstance(e, CameraProblem) and e.problem == "bumped"]
    assert len(bumps) == 1, events
    assert _calibration_error_px(reader, renderer, fs) < 2.5


def test_bump_without_markers_is_measured_by_phase_correlation(table):
    world, look, renderer = table
    frame0, _ = next(_still_frames(world, renderer, 1))
    marked = calibrate_frame(frame0)
    from vision.calibration import calibrate_from_points

    cal = calibrate_from_points(marked.marker_image, marked.image_size, source="manual")

    reader = TableReader(cal, _NoTiles())
    events = []
    for img, fs in _still_frames(world, renderer, 30):
        events += reader.process(img, fs.index, fs.t)
    assert not events
    for img, fs in _still_frames(world, renderer, 25, shift=(12.0, 8.0, 0.0), start=30):
        events += reader.process(img, fs.index, fs.t)
    bumps = [e for e in events if isinstance(e, CameraProblem) and e.problem == "bumped"]
    assert len(bumps) == 1, events
    assert _calibration_error_px(reader, renderer, fs) < 3.0


def test_a_returned_pick_goes_back_to_its_place_in_the_wall():
    """The generator's own script has picks given back when a call beats them: the tile must return to the
    wall where it was taken (the held tile moves with the hand, so its old place has to be remembered)."""
    moves = own_moves(1, turns=4)
    assert any(m.get("returned") for m in moves.moves), "the own script should give a pick back"
    world = World(moves, seed=1, disturb=False)
    start = {id(t): (t.x, t.y) for row in world.wall for t in row}
    for fs in world.play():
        moved = [t for row in world.wall for t in row if (t.x, t.y) != pytest.approx(start[id(t)])]
        assert not moved, f"frame {fs.index}: a tile lies in the wall away from its place"


def test_calibrate_table_reads_a_video_through_the_camera_opener(tmp_path, capsys):
    """`mahj calibrate table --video` finds the four markers in the recording and saves a calibration; a video
    that cannot be opened is named, exit 2."""
    from pathlib import Path

    from assistant.cli import main
    from vision.calibration import Calibration

    video = Path(__file__).resolve().parents[1] / "datasets" / "video" / "fixtures" / "camera.mp4"
    out = tmp_path / "cal.json"
    assert main(["calibrate", "table", "--video", str(video), "--out", str(out)]) == 0
    cal = Calibration.load(out)
    assert cal.source == "markers" and len(cal.marker_image) == 4
    assert main(["calibrate", "table", "--video", str(tmp_path / "none.mp4"), "--out", str(out)]) == 2
    assert "none.mp4: cannot open" in capsys.readouterr().err


def test_corners_are_the_tables_own_corners_and_at_markers_keeps_the_old_meaning(tmp_path, capsys):
    """What a person clicks is the table's edge: `--corners` maps the four points to the table's corners (the one
    to the right of East first), so the table's middle and edges land where they are in the picture. Before, the
    points were taken for the markers' centres, 50 mm inside: a table clicked at its corners came out 100 mm
    larger than typed. `--at-markers` keeps that meaning for points taken the old way."""
    from assistant.cli import main

    image = tmp_path / "table.png"
    cv2.imwrite(str(image), np.full((720, 1280, 3), 60, np.uint8))
    clicked = "1100,650 1000,60 200,80 120,680"      # the table's corners right of East, South, West, North
    out = tmp_path / "cal.json"
    assert main(["calibrate", "table", "--image", str(image), "--corners", clicked, "--table-mm", "800",
                 "--out", str(out)]) == 0
    cal = Calibration.load(out)
    assert cal.source == "manual"
    points = parse_corners(clicked)
    corners = np.float64([[800, 800], [800, 0], [0, 0], [0, 800]])
    assert np.allclose(cal.to_image(corners), [points[i] for i in range(4)], atol=0.01)
    assert np.allclose(cal.to_table(np.float64([points[2]])), [[0, 0]], atol=0.01)
    # the markers' places (for the bump check) are 50 mm in from the clicked corners
    assert np.allclose(cal.to_table(np.float64([cal.marker_image[2]])), [[50, 50]], atol=0.01)

    assert main(["calibrate", "table", "--image", str(image), "--corners", clicked, "--table-mm", "800",
                 "--at-markers", "--out", str(out)]) == 0
    old = Calibration.load(out)
    assert np.allclose(old.to_table(np.float64([points[2]])), [[50, 50]], atol=0.01)
    assert main(["calibrate", "table", "--image", str(image), "--at-markers", "--out", str(out)]) == 2
    assert "give --corners too" in capsys.readouterr().err
