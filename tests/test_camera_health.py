"""vision.camera_health: dark and frozen pictures, bumps corrected, the first frames of a disturbance."""

import numpy as np
from reader_kit import Boxes, ViewModel, plain_calibration, table_image

from vision.events import CameraProblem
from vision.reader import TableReader


def test_dark_and_frozen_camera_are_reported():
    cal = plain_calibration()
    cal.bands_fitted = True
    reader = TableReader(cal, Boxes(cal, []))
    img = table_image(cal, [])
    events = []
    for i in range(45):                            # bit-identical frames: a stuck driver
        events += reader.process(img, i, i / 30)
    assert [e.problem for e in events if isinstance(e, CameraProblem)] == ["frozen"]
    dark = np.full_like(img, 5)
    events = []
    for i in range(45, 50):
        events += reader.process(dark, i, i / 30)
    assert [(e.problem, e.resolved) for e in events] == [("dark", False)]


def test_a_recalibration_keeps_the_floor_picture_of_its_tiles():
    """Moving the calibration with a bumped camera rebuilds the change watcher, which drops every region's
    reference picture. The picture of the floor from when its tiles last changed stays, so a tile found on the
    floor after the bump is compared with the floor as it was (in table coordinates, which the recalibration
    keeps lined up)."""
    cal = plain_calibration()
    reader = TableReader(cal, ViewModel())
    frame = table_image(cal, [(450.0, 450.0, "up", "5D"), (300.0, 600.0, "up", "E")])
    assert not reader.health.check_shift(frame, 0, 0.0, [])                 # the picture to measure shifts from
    picture = np.full((10, 10), 77, np.uint8)
    reader.watch.views["floor"].ref = reader.regions["floor"].pictured = picture
    shifted = np.roll(frame, (12, 16), axis=(0, 1))
    out: list = []
    assert reader.health.check_shift(shifted, 5, 0.2, out)
    assert [o.problem for o in out] == ["bumped"]
    assert reader.watch.views["floor"].ref is None and reader.regions["floor"].pictured is picture


def test_the_first_frames_of_a_bump_are_no_touch_of_the_floor():
    """A bump shakes the picture for a frame or two before it can be told from an arm, and those frames count as
    motion over every region. Once the disturbance is seen, they are forgotten: a floor tile re-read as another
    kind after the bump would otherwise pass for a tile thrown onto it. An arm seen earlier still counts."""
    reader = TableReader(plain_calibration(), ViewModel())
    floor = reader.regions["floor"]
    for f in (100, 416, 417):
        floor.last_touch = f
        floor.touches.append(f)
    reader.health.freeze(418)
    assert floor.last_touch == 100 and reader.health.disturbed_since == 418


def test_a_camera_that_changes_resolution_still_measures_shifts():
    """The picture shifts are measured from and its window change size together: a camera that comes back at
    another resolution is measured against a picture of the new size (phaseCorrelate needs one shape)."""
    cal = plain_calibration()
    cal.source = "manual"                                               # no markers: shifts are measured
    reader = TableReader(cal, ViewModel())
    frame = table_image(cal, [(450.0, 450.0, "up", "5D"), (300.0, 600.0, "up", "E")])
    reader.process(frame, 0, 0.0)                                       # takes the picture and its window
    smaller = frame[: frame.shape[0] * 3 // 4, : frame.shape[1] * 3 // 4].copy()
    assert not reader.health.check_shift(smaller, 1, 0.1, [])          # the new size becomes the reference
    out: list = []
    assert reader.health.check_shift(np.roll(smaller, (12, 16), axis=(0, 1)), 2, 0.2, out)
    assert [o.problem for o in out] == ["bumped"]
