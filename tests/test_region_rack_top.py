"""vision.regions.rack_top: exposures, a hand shown for Mah Jongg and its winning tile."""

import numpy as np
import pytest
from reader_kit import Boxes, Table, ViewModel, plain_calibration, table_image

from vision.reader import TableReader


@pytest.mark.parametrize("rack_seen", [False, True])
def test_winning_tile_racked_under_the_hand_that_lays_it_down_is_reported(rack_seen):
    """East racks the winning tile and lays the hand face up on the rack top. With the arm over the rack from the
    rack to the display the slope never shows 14 standing tiles, yet the rack happened: it is reported with the
    hand. When the slope was read with the tile racked, it is reported once, not again with the hand."""
    cal = plain_calibration()
    cal.bands_fitted = True
    rack = [(450 + k * 24 - 150, 880, "down", None) for k in range(13)]        # East's standing tiles
    racked = rack + [(450 + 13 * 24 - 150, 880, "down", None)]
    codes = ["1B", "1B", "1B", "2C", "2C", "2C", "3D", "3D", "3D", "N", "N", "N", "F", "J"]
    shown = [(450 + k * 24 - 170, 830, "up", code) for k, code in enumerate(codes)]   # on East's rack top
    det = Boxes(cal, list(rack))
    reader = TableReader(cal, det)
    rng = np.random.default_rng(2)
    events = []
    frame = 0
    arm = ((350, 640), (360, 500))

    def step(tiles, n, over_rack=False):
        nonlocal frame
        det.tiles = tiles
        for _ in range(n):
            img = table_image(cal, tiles, arm=arm if over_rack else None)
            noisy = np.clip(img + rng.normal(0, 1.0, img.shape), 0, 255).astype(np.uint8)
            events.extend(reader.process(noisy, frame, frame / 30))
            frame += 1

    step(rack, 30)
    step(racked, 20, over_rack=True)
    if rack_seen:
        step(racked, 30)                       # the arm leaves: the rack is read
        step(racked, 10, over_rack=True)       # and comes back to lay the hand down
    step(shown, 15, over_rack=True)
    step(shown, 40)
    assert [(e.type, e.seat) for e in events] == [("racked", 0), ("hand_displayed", 0)], events
    assert sorted(events[1].tiles) == sorted(codes)


@pytest.mark.parametrize("got_it", ["picked", "off the floor"])
def test_a_winning_tile_racked_unseen_joins_the_hand_laid_down(got_it):
    """East gets her winning tile (a pick, or the discard she calls for Mah Jongg), racks it under the arm that
    then lays her hand face up. The model sees none of her standing tiles, so no count of them tells a tile
    joined the hand; what she did does: she got a tile, racked none that was seen, and shows 14."""
    table = Table(seed=5)
    hand, wall, discard = table.RACK[:13], table.WALL, [(450, 450, "up", "5D")]
    codes = ["1B", "1B", "1B", "2C", "2C", "2C", "3D", "3D", "3D", "N", "N", "N", "5D", "J"]
    shown = [(450 + k * 24 - 170, 830, "up", code) for k, code in enumerate(codes)]    # on East's rack top
    table.show(hand + wall + discard, 30)
    reach = ((350, 640), (350, 300)) if got_it == "off the floor" else table.ARM
    left = wall[:-1] + discard if got_it == "picked" else wall
    table.show(hand + left, 10, arm=reach)
    table.show(hand + left, 30)
    table.show(table.RACK + left, 20, arm=table.ARM)                          # racked under the arm ...
    table.show(shown + left, 15, arm=table.ARM)                               # ... that lays the hand down
    table.show(shown + left, 40)
    got = [("picked", 0)] if got_it == "picked" else []
    assert table.moves() == got + [("racked", 0), ("hand_displayed", 0)], table.events


@pytest.mark.parametrize("read", [3, 4, 11])
def test_a_run_of_face_up_tiles_longer_than_any_exposure_is_a_hand_asked_about(read):
    """A pung or a kong laid on the rack top is an exposure. A row of 11 face-up tiles is not (no exposure is
    longer than a sextet): it is a hand laid down of which the model read only 11 tiles, and a person is asked
    rather than an 11-tile exposure being put to the referee."""
    from vision.calibration import seat_to_table
    from vision.tracker import TileSeen

    cal = plain_calibration()
    reader = TableReader(cal, ViewModel())
    top = reader.regions["rack_top0"]
    v = (cal.band("rack_top0").v[0] + cal.band("rack_top0").v[1]) / 2
    row = [TileSeen(*seat_to_table(0, -150 + 24 * k, v, cal.layout.size_mm), "up", "E", tile_score=0.9)
           for k in range(read)]
    out = reader._observe(top, top.tracks.commit(row), 90, 3.0, 2.8)
    if read <= 4:
        assert [(e.type, e.seat, len(e.tiles)) for e in out] == [("exposure_placed", 0, read)]
    else:
        assert [(e.type, e.seat) for e in out] == [("ask_human", 0)]
        assert out[0].question == "Is East showing a Mah Jongg hand? I can read 11 of its tiles."
