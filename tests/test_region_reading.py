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

    def detect_view(self, view, frame, view_to_frame):
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
