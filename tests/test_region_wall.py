"""vision.regions.wall: picks and the wall end they came from."""

import numpy as np
from reader_kit import Boxes, plain_calibration, table_image

from vision.reader import TableReader


def test_picks_name_the_wall_end_as_its_owner_sees_it():
    """``picked.end`` is what a wrong-end pick is judged by; the generated games only ever pick from East's right
    end, so both ends of two walls are checked here, then a tile from the middle and the ends of the two runs
    that leaves. East's right is +x on the table, South's is -y."""
    cal = plain_calibration()
    cal.bands_fitted = True
    east = [(450 + u, 773, "down", None) for u in range(-84, 85, 24)]          # East's wall, 127 mm in
    south = [(773, 450 - u, "down", None) for u in range(-84, 85, 24)]         # South's wall
    det = Boxes(cal, east + south)
    reader = TableReader(cal, det)
    rng = np.random.default_rng(3)
    picks = []
    frame = 0
    taken = [east[-1], south[0], east[0], east[3], east[4]]    # then one from the middle: the wall is in two runs
    for gone in (taken[:k] for k in range(len(taken) + 1)):
        det.tiles = [t for t in east + south if t not in gone]
        for _ in range(20):
            img = table_image(cal, det.tiles)
            noisy = np.clip(img + rng.normal(0, 1.0, img.shape), 0, 255).astype(np.uint8)
            picks += [e for e in reader.process(noisy, frame, frame / 30) if e.type == "picked"]
            frame += 1
    # east[4] is the left end of its run (east[5], east[6]), though right of the wall's middle
    assert [(p.wall_seat, p.end) for p in picks] == [(0, "right"), (1, "left"), (0, "left"), (0, "middle"),
                                                     (0, "left")]


EAST_WALL = [(450 + u, 773, "down", None) for u in range(-84, 85, 24)]      # East's wall, 127 mm in


def wall_events(steps, seed: int, level: int = 120) -> list:
    """What the reader reports of East's wall over ``steps`` of (tiles drawn, tiles the model sees), 30 frames
    each, on a felt of grey ``level``."""
    cal = plain_calibration()
    cal.bands_fitted = True
    det = Boxes(cal, list(EAST_WALL))
    reader = TableReader(cal, det)
    rng = np.random.default_rng(seed)
    events = []
    frame = 0
    for drawn, seen in steps:
        det.tiles = seen
        for _ in range(30):
            img = table_image(cal, drawn, level=level)
            noisy = np.clip(img + rng.normal(0, 1.0, img.shape), 0, 255).astype(np.uint8)
            events += reader.process(noisy, frame, frame / 30)
            frame += 1
    return [(e.type, e.wall_seat, e.end) for e in events]


def test_several_wall_tiles_gone_in_one_reading_are_no_picks():
    """A player picks one tile at a time. Three of East's wall tiles gone in one reading (a sleeve the colour of
    the felt lying still over them while its hand works at a far rack; here felt drawn where they stood) are no
    picks, nor is their coming back; one tile taken after that is a pick."""
    wall = EAST_WALL
    steps = [(tiles, tiles) for tiles in (wall, wall[:2] + wall[5:], wall, wall[:-1])]
    assert wall_events(steps, seed=6) == [("picked", 0, "right")]


def test_among_tiles_gone_at_once_the_one_whose_place_changed_is_the_pick():
    """A dark back on a dark felt can drop out of the model's reading. When East's right-end tile is taken in
    the same reading as the model loses two backs that still stand (drawn where they were), the one whose place
    in the wall's picture changed is the pick; the two lost come back as no move."""
    wall = EAST_WALL
    lost = [wall[0], wall[1], wall[3], wall[5], wall[6]]
    steps = [(wall, wall), (wall[:-1], lost), (wall[:-1], wall[:-1])]
    assert wall_events(steps, seed=9, level=190) == [("picked", 0, "right")]   # a light felt: the backs stand out
