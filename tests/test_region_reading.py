"""vision.region_reading: the model's view of the regions, backs read again, twin boxes merged."""

import cv2
import numpy as np
import pytest
from reader_kit import Boxes, ViewModel, plain_calibration

from vision.reader import TableReader


def test_the_model_sees_the_regions_top_down_at_the_readers_scale():
    """The window around the regions being read is warped onto the table plane at READER_PX_PER_MM: a tile drawn
    at known table mm lands at the matching view pixels, whatever the camera's own scale, that many px a mm."""
    from vision.region_reading import READER_PX_PER_MM as S

    cal = plain_calibration()
    frame = np.zeros((640, 700, 3), np.uint8)
    tile_mm = np.float32([[400, 420], [423, 420], [423, 451], [400, 451]])   # a 23 x 31 mm tile on the floor
    cv2.fillConvexPoly(frame, np.round(cal.to_image(tile_mm)).astype(np.int32), (255, 255, 255))
    model = ViewModel()
    reader = TableReader(cal, model)
    floor = cal.band("floor").polygon(cal.layout.size_mm)
    reader.reading.detect(frame, 0, floor)
    view, view_to_frame = model.views[-1]
    lo = floor.min(axis=0) - 1.5 * cal.layout.tile_h_mm
    assert view.shape[:2] == pytest.approx(
        S * (floor.max(axis=0)[::-1] - floor.min(axis=0)[::-1] + 3 * cal.layout.tile_h_mm), abs=1)
    ys, xs = np.nonzero(view[..., 0] > 128)
    assert (xs.max() - xs.min() + 1, ys.max() - ys.min() + 1) == (pytest.approx(23 * S, abs=2 * S),
                                                                  pytest.approx(31 * S, abs=2 * S))
    assert (xs.min() / S + lo[0], ys.min() / S + lo[1]) == (pytest.approx(400, abs=2), pytest.approx(420, abs=2))
    back = cv2.perspectiveTransform(np.float64([[[xs.min(), ys.min()]]]), view_to_frame)[0, 0]
    assert back == pytest.approx(cal.to_image(tile_mm[:1])[0], abs=2)


class _BlankSoapModel:
    """A tile model that boxes two tiles as face down, one on the floor and one in East's wall, and whose
    classifier reads any crop as ``read`` (a Soap unless told)."""

    def __init__(self, cal, spots, read=("WD", 0.9)):
        self.cal, self.spots, self.classified, self.read = cal, spots, 0, read

    reader_conf = (0.35, 0.35)

    def detect_view(self, view, frame, view_to_frame, conf=None):
        from vision.tile_model import Detection

        out = []
        for x, y in self.spots:
            (u, v), = self.cal.to_image(np.array([[x, y]]))
            out.append(Detection((u - 7, v - 10, u + 7, v + 10), "down", None, 0.8))
        return out

    def classify(self, crops):
        self.classified += len(crops)
        return [self.read] * len(crops)


@pytest.mark.parametrize("read, floor", [(("WD", 0.9), ("up", "WD")), (("WD", 0.6), ("up", "WD")),
                                         (("WD", 0.45), ("down", None)), (("none", 0.9), ("down", None)),
                                         (("back", 0.95), ("down", None))])
def test_a_blank_soap_boxed_as_a_tile_back_on_the_floor_is_read_face_up(read, floor):
    """Only face-up tiles lie on the floor: a "face-down" box there is read by the classifier (a blank Soap
    looks like a plain back to the detector), and a read likelier than all else together makes it face up; one
    the classifier doubts, or reads as a back or as no tile, stays a back. Backs in a wall stay backs."""
    cal = plain_calibration()
    floor_spot, wall_spot = (450.0, 450.0), (450.0, 773.0)
    model = _BlankSoapModel(cal, [floor_spot, wall_spot], read)
    reader = TableReader(cal, model)
    frame = np.full((640, 700, 3), 120, np.uint8)
    seen = reader.reading.read(frame, [reader.regions["floor"], reader.regions["wall0"]], 0, 0.0)
    assert [(s.face, s.tile) for s in seen["floor"]] == [floor]
    assert [(s.face, s.tile) for s in seen["wall0"]] == [("down", None)]
    assert model.classified == 1


@pytest.mark.parametrize("apart_mm, tiles", [(8.0, 1), (23.0, 2)])
def test_two_boxes_closer_than_a_tile_on_the_floor_are_one_tile(apart_mm, tiles):
    """Two tiles lying flat cannot have their centres closer than a tile's width: two boxes that close are one
    tile boxed twice (left in, the twin is tracked as a second tile and its coming back later is taken for a
    discard). Touching tiles, a width apart, stay two."""
    cal = plain_calibration()
    reader = TableReader(cal, Boxes(cal, [(450.0, 450.0, "up", "5D"), (450.0 + apart_mm, 450.0, "up", "5D")]))
    seen = reader.reading.read(np.full((640, 700, 3), 120, np.uint8), [reader.regions["floor"]], 0, 0.0)
    assert len(seen["floor"]) == tiles


def _largest_view_px(model):
    return max(v.shape[0] * v.shape[1] for v, _ in model.views)


def _floor_only_reader(tiles):
    from vision.reader import TableReader

    cal = plain_calibration()
    cal.bands_fitted = True
    model = ViewModel(cal, tiles)
    reader = TableReader(cal, model, heal_every_s=1000.0)
    return cal, model, reader


def _show(reader, cal, tiles, frames, start):
    from reader_kit import table_image

    rng = np.random.default_rng(start)
    for k in range(frames):
        img = table_image(cal, tiles)
        reader.process(np.clip(img + rng.normal(0, 1.0, img.shape), 0, 255).astype(np.uint8), start + k,
                       (start + k) / 30)


FLOOR = [(200.0 + 250 * i, 200.0 + 500 * j, "up", code) for i, j, code in
         [(0, 0, "3B"), (1, 0, "5D"), (2, 0, "N"), (0, 1, "RD"), (1, 1, "7C"), (2, 1, "F")]]


def _whole_floor_px(cal):
    """Pixels of the view of the whole floor alone (its band and the reader's margin of 1.5 tile lengths)."""
    from vision.region_reading import READER_PX_PER_MM as S

    floor = cal.band("floor").polygon(cal.layout.size_mm)
    h, w = np.round(S * (floor.max(axis=0) - floor.min(axis=0) + 3 * cal.layout.tile_h_mm))
    return h * w


def test_a_discard_is_read_where_the_floor_changed_and_the_floors_other_tiles_stand():
    """After a discard the floor is read over the part that changed (and a tile length around it), not the
    whole floor: a read of the whole floor at READER_PX_PER_MM was most of a change-driven frame's time. The
    floor's tiles elsewhere keep their committed reading, even where the model would now miss one."""
    cal, model, reader = _floor_only_reader(FLOOR)
    _show(reader, cal, FLOOR, 40, 0)
    assert sorted(t.tile for t in reader.tiles("floor")) == sorted(c for *_, c in FLOOR)
    model.views.clear()
    model.blind = {(700.0, 700.0)}            # far from the discard: a full read would lose the Flower
    thrown = (450.0, 450.0, "up", "WD")
    model.tiles = FLOOR + [thrown]
    _show(reader, cal, FLOOR + [thrown], 30, 40)
    assert sorted(t.tile for t in reader.tiles("floor")) == sorted([c for *_, c in FLOOR] + ["WD"])
    assert model.views and _largest_view_px(model) < 0.2 * _whole_floor_px(cal)


def test_a_change_over_most_of_the_floor_reads_all_of_it():
    """Tiles pushed about all over the floor (or a sleeve dragged across it) are no discard to look around:
    the whole floor is read, and a tile the model no longer sees there is gone."""
    cal, model, reader = _floor_only_reader(FLOOR)
    _show(reader, cal, FLOOR, 40, 0)
    model.views.clear()
    moved = [(x + 15, y + 20, face, code) for x, y, face, code in FLOOR]
    model.tiles = moved
    model.blind = {(moved[-1][0], moved[-1][1])}
    _show(reader, cal, moved, 30, 40)
    assert model.views and _largest_view_px(model) == pytest.approx(_whole_floor_px(cal), rel=0.01)
    assert sorted(t.tile for t in reader.tiles("floor")) == sorted(c for *_, c in moved[:-1])


def test_an_arm_that_leaves_the_floor_as_it_was_reads_none_of_it():
    """An arm reaching over the floor marks it to be read; once the arm is gone and the floor looks as it did
    when its tiles were committed, none of it is read again (the heal timer re-reads it in its turn)."""
    from reader_kit import table_image

    cal, model, reader = _floor_only_reader(FLOOR)
    _show(reader, cal, FLOOR, 40, 0)
    model.views.clear()
    model.blind = {(450.0, 200.0)}
    rng = np.random.default_rng(3)
    for k in range(40, 80):
        img = table_image(cal, FLOOR, arm=((330, 639), (340, 330)) if k < 50 else None)
        reader.process(np.clip(img + rng.normal(0, 1.0, img.shape), 0, 255).astype(np.uint8), k, k / 30)
    assert reader.regions["floor"].needs_read is False
    assert sorted(t.tile for t in reader.tiles("floor")) == sorted(c for *_, c in FLOOR)
    assert not model.views or _largest_view_px(model) < 0.5 * _whole_floor_px(cal)
