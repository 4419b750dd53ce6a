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
    """What the reader reports of East's wall over ``steps`` of (tiles drawn, tiles the model sees[, tiles it
    scores 0.2, under the reader's 0.35[, an arm over the table for the first 10 frames]]), 30 frames each, on a
    felt of grey ``level``."""
    cal = plain_calibration()
    cal.bands_fitted = True
    det = Boxes(cal, list(EAST_WALL))
    reader = TableReader(cal, det)
    rng = np.random.default_rng(seed)
    events = []
    frame = 0
    for drawn, seen, weak, arm in (step + ((), None)[len(step) - 2:] for step in steps):
        det.tiles = seen
        det.scores = {t[:2]: 0.2 for t in weak}
        for k in range(30):
            img = table_image(cal, drawn, arm=arm if k < 10 else None, level=level)
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


def test_a_committed_wall_tile_stays_while_the_model_still_sees_its_back_weakly():
    """On dark backs the model's score for a wall's end tile dips under the reader's threshold now and then: in
    a reading made because a sleeve passed over the wall's other end, it would be a pick. A back committed stays
    while it is boxed at WALL_BACK_KEEP or more; the tile then taken from the other end is the one pick."""
    wall, end, sleeve = EAST_WALL, EAST_WALL[-1:], ((290, 640), (300, 520))
    steps = [(wall, wall), (wall, wall, end, sleeve), (wall, wall), (wall[1:], wall[1:])]
    assert wall_events(steps, seed=4) == [("picked", 0, "left")]


def test_a_weak_back_where_no_tile_was_committed_is_no_tile():
    """A box under the reader's threshold where the wall had no tile (a shadow past its end) is not taken into
    the wall: taking the true end tile then is a pick from the right end, not from the middle."""
    wall = EAST_WALL
    shadow = [(wall[-1][0] + 24, wall[-1][1], "down", None)]
    steps = [(wall, wall + shadow, shadow), (wall[:-1], wall[:-1] + shadow, shadow)]
    assert wall_events(steps, seed=5) == [("picked", 0, "right")]


def test_a_weak_back_where_a_hand_took_the_tile_keeps_nothing():
    """Where the backs are the felt's colour, the model boxes the felt a picked tile left as weakly as a dark
    back standing. A hand moved over that spot since the wall was last read, so the weak box keeps nothing: the
    tile taken is a pick."""
    wall, end, reach = EAST_WALL, EAST_WALL[-1:], ((400, 640), (406, 530))
    steps = [(wall, wall), (wall[:-1], wall, end, reach)]
    assert wall_events(steps, seed=7) == [("picked", 0, "right")]


def test_a_reading_with_wall_backs_turned_face_up_is_no_pick():
    """A wall's tiles stand face down. A sleeve lying over its middle shows the model "faces" where two backs
    stood, and it loses the back beside them: something lies over the wall, so that reading is no pick; the
    tile taken after the sleeve left is."""
    wall, sleeve = EAST_WALL, ((345, 640), (350, 530))
    covered = wall[:3] + [(*wall[3][:2], "up", "5D"), (*wall[4][:2], "up", "WD")] + wall[6:]
    steps = [(wall, wall), (wall, covered, (), sleeve), (wall, wall), (wall[:-1], wall[:-1])]
    assert wall_events(steps, seed=8) == [("picked", 0, "right")]


def test_a_back_read_as_a_soap_far_from_the_tile_taken_leaves_the_pick():
    """Backs like blank Soaps are read as Soaps now and then, anywhere on a wall. One so read at the far end, in
    the reading where the right-end tile was taken, covers nothing near it: that tile is a pick."""
    wall, reach = EAST_WALL, ((400, 640), (406, 530))
    soap_end = [(*wall[0][:2], "up", "WD")] + wall[1:-1]
    steps = [(wall, wall), (wall[:-1], soap_end, (), reach)]
    assert wall_events(steps, seed=10) == [("picked", 0, "right")]
