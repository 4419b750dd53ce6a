"""vision.regions.slope: racks (seen, pictured, out of turn, one per pick) and standing-tile counts."""

import numpy as np
import pytest
from reader_kit import Boxes, Table, ViewModel, plain_calibration, table_image

from vision.reader import TableReader


def test_a_row_read_longer_is_a_rack_only_where_its_picture_changed_since_it_last_changed():
    """East's model misses one of her 13 standing tiles. After her arm passes over the rack (a pick) it finds
    it: the row is one longer, but its picture is as it was, so that is no rack. Then she really racks a 14th
    tile, and the first reading after it misses the new tile too (that reading leaves the row as it was, though
    its picture already shows the tile); the next reading finds it, compared with the picture from when the
    row last changed: a rack."""
    cal = plain_calibration()
    cal.bands_fitted = True
    rack = [(450 + k * 24 - 150, 880, "down", None) for k in range(14)]
    det = Boxes(cal, rack[:5] + rack[6:13])                          # the model does not see tile 5
    reader = TableReader(cal, det)
    rng = np.random.default_rng(3)
    events: list = []
    frame = 0

    def run(tiles, frames, arm=None):
        nonlocal frame
        for _ in range(frames):
            img = table_image(cal, tiles, arm=arm, level=80)
            events.extend(reader.process(np.clip(img + rng.normal(0, 1.0, img.shape), 0, 255).astype(np.uint8),
                                         frame, frame / 30))
            frame += 1

    arm = ((350, 640), (360, 500))
    run(rack[:13], 30)
    det.tiles = list(rack[:13])                                       # ... and sees it after the arm passed
    run(rack[:13], 20, arm)
    run(rack[:13], 30)
    assert not events, events
    assert len(reader.tiles("slope0")) == 13
    det.tiles = list(rack[:13])                                       # East racks a 14th, unseen at first
    run(rack, 20, arm)
    run(rack, 30)
    assert not events and len(reader.tiles("slope0")) == 13
    det.tiles = list(rack)                                            # seen after a hand passes again
    run(rack, 20, arm)
    run(rack, 30)
    assert [(e.type, e.seat) for e in events] == [("racked", 0)]


@pytest.mark.parametrize("then", ["racks", "throws it", "racks and shuffles"])
def test_a_rack_the_model_cannot_see_is_read_from_the_picture_of_the_slope(then):
    """East picks. The model sees none of her standing tiles, yet when she racks the tile, the slope's picture
    differs from its picture at the pick in one tile-sized patch: a rack, reported less surely than a rack seen.
    Throwing the picked tile at once leaves the slope as it was: no rack. A tile moved along the row after the
    rack is no second rack."""
    table = Table(seed=4)
    hand, wall = table.RACK[:13], table.WALL
    table.show(hand + wall, 30)
    table.show(hand + wall[:-1], 10, arm=table.ARM)                          # the pick
    table.show(hand + wall[:-1], 30)
    if then == "throws it":
        table.show(hand + wall[:-1] + [(450, 450, "up", "5D")], 10, arm=table.ARM)
        table.show(hand + wall[:-1] + [(450, 450, "up", "5D")], 30)
        assert table.moves() == [("picked", 0), ("discard_down", 0)]
        return
    table.show(table.RACK + wall[:-1], 10, arm=table.ARM)                    # the rack
    table.show(table.RACK + wall[:-1], 30)
    if then == "racks and shuffles":
        shuffled = table.RACK[:3] + table.RACK[4:] + [(450 + 14 * 24 - 150, 880, "down", None)]
        table.show(shuffled + wall[:-1], 10, arm=table.ARM)
        table.show(shuffled + wall[:-1], 30)
    assert table.moves() == [("picked", 0), ("racked", 0)]
    assert table.events[1].confidence < 0.9 and table.events[1].count == 1


@pytest.mark.parametrize("in_turn", [False, True])
def test_a_standing_tile_missed_for_one_reading_is_no_rack_at_a_seat_not_in_turn(in_turn):
    """The model can miss a standing tile in one reading and see it in the next. At a seat not in turn that is
    no rack (only the player in turn racks; a false rack there would pass for a Mah Jongg call). The player in
    turn may really take one tile and rack another where it stood (a joker exchange), so there it is a rack."""
    from vision.calibration import seat_to_table
    from vision.tracker import TileSeen

    cal = plain_calibration()
    reader = TableReader(cal, ViewModel())
    reader.turns.turn = 1 if in_turn else 0
    slope = reader.regions["slope1"]
    row = [TileSeen(*seat_to_table(1, -150 + 24 * k, 12, cal.layout.size_mm), "down") for k in range(13)]
    slope.tracks.commit(row)
    events = []
    for t, reading in ((2.0, row[:6] + row[7:]), (3.0, row)):
        events += reader._observe(slope, slope.tracks.commit(reading), int(t * 30), t, t - 0.2)
    assert [e.type for e in events] == (["racked"] if in_turn else [])


def test_one_pick_one_rack():
    """South picks and racks. Her row then found a tile longer again before she moves (the model finding a
    standing tile it lost under the hand that racked) is no second rack; after her discard and her next pick,
    a row grown longer is her rack again."""
    from vision.calibration import seat_to_table
    from vision.tracker import TileSeen, vote

    cal = plain_calibration()
    reader = TableReader(cal, ViewModel())
    reader.turns.turn = 1
    slope = reader.regions["slope1"]
    row = [TileSeen(*seat_to_table(1, -160 + 24 * k, 12, cal.layout.size_mm), "down") for k in range(15)]
    slope.tracks.commit(row[:12])

    def racks(reading, t):
        return [(e.type, e.seat) for e in reader._observe(slope, slope.tracks.commit(reading), int(t * 30), t, t - 0.2)]

    assert racks(row[:13], 2.0) == [("racked", 1)]
    assert racks(row[:14], 4.0) == []                     # no move of South's since: the model catching up
    floor = reader.regions["floor"]
    floor.touched = True
    reader.turns.arm_seen[1] = 5.0
    out = reader._observe(floor, floor.tracks.commit(vote([[TileSeen(450, 450, "up", "5D", tile_score=0.95)]] * 2,
                                                          5.0)), 150, 5.0, 4.9)
    assert [(e.type, e.seat) for e in out] == [("discard_down", 1)]
    reader.turns.turn = 1
    assert racks(row[:15], 8.0) == [("racked", 1)]


@pytest.mark.parametrize("taker", [None, 1, 2])
def test_a_row_grown_at_a_seat_not_in_turn_is_a_rack_only_after_that_seat_took_a_tile_off_the_floor(taker):
    """South is not in turn. A standing tile the model never saw before showing up in South's row (typically on
    the re-read after a bump) is no rack; right after South's arm took a tile off the floor it is (Mah Jongg on
    that discard: the winner racks it before laying the hand down), but not after West's did."""
    from vision.calibration import seat_to_table
    from vision.tracker import TileSeen, vote

    cal = plain_calibration()
    reader = TableReader(cal, ViewModel())
    reader.turns.turn = 0
    if taker is not None:
        reader.turns.arm_seen[taker] = 1.95
        floor = reader.regions["floor"]
        floor.tracks.commit(vote([[TileSeen(450, 450, "up", "6C", tile_score=0.9)]] * 2, 5.0))
        assert reader._observe(floor, floor.tracks.commit([]), 60, 2.0, 1.9) == []
    slope = reader.regions["slope1"]
    row = [TileSeen(*seat_to_table(1, -150 + 24 * k, 12, cal.layout.size_mm), "down") for k in range(13)]
    slope.tracks.commit(row[:12])
    out = reader._observe(slope, slope.tracks.commit(row), 90, 3.0, 2.8)
    assert [(e.type, e.seat) for e in out] == ([("racked", 1)] if taker == 1 else [])


def test_a_miscounted_rack_is_reported_once_until_its_count_agrees_or_turns_the_other_way():
    """The referee expects 14 standing tiles at East. The model, which keeps losing and finding tiles on that rack,
    counts 12, then 11, then 12 again: one report, not one per count. Counting 15 (more than expected: a
    different problem) is reported; so is counting 12 again after the counts agreed."""
    from vision.calibration import seat_to_table
    from vision.tracker import TileSeen

    cal = plain_calibration()
    reader = TableReader(cal, ViewModel())
    slope = reader.regions["slope0"]
    slope.needs_read = slope.silent = False
    row = [TileSeen(*seat_to_table(0, -170 + 24 * k, 12, cal.layout.size_mm), "down") for k in range(15)]
    reports = []
    t = 0.0
    for seen in (12, 11, 12, 15, 14, 12):
        slope.tracks.commit(row[:seen])
        for _ in range(5 * 30):                                   # 5 s at 30 fps
            out = reader.rack_counts.check({0: 14}, int(t * 30), t)
            reports += [(e.seen, e.expected) for e in out]
            t += 1 / 30
    assert reports == [(12, 14), (15, 14), (12, 14)]
