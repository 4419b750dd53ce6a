"""The scene composer (datasets/scenes.py): what it labels is what a camera would see of each tile."""

import numpy as np
import pytest

from datasets import scenes


def _canvas(h: int = 200, w: int = 300) -> scenes.Canvas:
    return scenes.Canvas(np.full((h, w, 3), 90, np.uint8))


def _tile(h: int = 40, w: int = 30) -> np.ndarray:
    t = np.full((h, w, 3), 230, np.uint8)
    t[10:30, 8:22] = (20, 20, 200)
    return t


def test_a_pasted_tile_is_labelled_by_the_box_of_its_pixels() -> None:
    cv = _canvas()
    assert cv.paste(_tile(), 100, 80, side=15, angle=0, cls=0)
    [(cls, box)] = cv.labels()
    assert cls == 0
    w, h = box[2] - box[0], box[3] - box[1]
    assert w == pytest.approx(15, abs=1) and h == pytest.approx(20, abs=1)
    assert box[0] == pytest.approx(100 - 7.5, abs=1) and box[1] == pytest.approx(80 - 10, abs=1)
    # Turned a quarter, the box turns with it.
    cv2_ = _canvas()
    assert cv2_.paste(_tile(), 100, 80, side=15, angle=90, cls=1)
    [(cls, box)] = cv2_.labels()
    assert cls == 1 and box[2] - box[0] == pytest.approx(20, abs=1.5) and box[3] - box[1] == pytest.approx(15, abs=1.5)


def test_a_tile_that_would_leave_the_canvas_is_not_drawn() -> None:
    cv = _canvas()
    before = cv.img.copy()
    assert not cv.paste(_tile(), 2, 2, side=20, angle=0, cls=0)
    assert cv.labels() == [] and np.array_equal(cv.img, before)


def test_a_tile_mostly_covered_loses_its_label_and_one_barely_covered_keeps_it() -> None:
    cv = _canvas()
    cv.paste(_tile(), 60, 60, side=20, angle=0, cls=0)
    cv.paste(_tile(), 200, 60, side=20, angle=0, cls=0)
    hand = np.zeros(cv.owner.shape, bool)
    hand[40:80, 40:75] = True          # most of the first tile
    hand[40:80, 185:189] = True        # a sliver of the second
    cv.cover(hand, np.array([140, 170, 220]))
    [(_, box)] = cv.labels()
    assert box[0] > 150


def test_a_tile_laid_over_another_hides_it() -> None:
    cv = _canvas()
    cv.paste(_tile(), 100, 100, side=20, angle=0, cls=0)
    cv.paste(_tile(), 101, 102, side=20, angle=0, cls=1)
    assert [cls for cls, _ in cv.labels()] == [1]


def test_things_that_are_not_tiles_are_never_labelled() -> None:
    rng = np.random.default_rng(3)
    for _ in range(30):
        cv = _canvas(300, 400)
        scenes.clutter(cv, rng, side=float(rng.uniform(10, 50)))
        assert cv.labels() == []


def test_composed_scenes_label_only_boxes_inside_the_picture() -> None:
    rng = np.random.default_rng(5)
    pool = scenes.rendered_crops(rng, n_styles=2)
    seen_down = seen_up = 0
    for _ in range(12):
        img, labels = scenes.compose(pool, None, rng)
        h, w = img.shape[:2]
        assert max(h, w) == scenes.CANVAS
        for cls, (x1, y1, x2, y2) in labels:
            assert cls in (0, 1)
            assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
            assert min(x2 - x1, y2 - y1) >= scenes.TILE_PX[0] * 0.8
        seen_up += sum(c == 0 for c, _ in labels)
        seen_down += sum(c == 1 for c, _ in labels)
    assert seen_up > 50 and seen_down > 5


def test_the_held_out_set_is_never_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    from datasets.synth import faces

    used: list[int] = []

    def spy(style_id: int) -> faces.Style:
        used.append(style_id)
        return faces.style_for(style_id)

    monkeypatch.setattr(scenes, "style_for", spy)
    scenes.rendered_crops(np.random.default_rng(0), n_styles=3)
    assert used and faces.HOLDOUT_STYLE not in used


def test_a_face_up_tile_is_never_drawn_from_a_back() -> None:
    up, down = np.full((8, 6, 3), 200, np.uint8), np.full((8, 6, 3), 40, np.uint8)
    pool = scenes.Pool([up], [down])
    rng = np.random.default_rng(1)
    assert all(pool.pick(False, rng) is up for _ in range(50))
    assert all(pool.pick(True, rng) is down for _ in range(50))


def test_print_boxes_are_tile_sized_and_sit_on_printed_characters() -> None:
    """The classifier's "not a tile" print examples: a tile-shaped box (20-60 px, a tile's 3:4 either way) whose
    centre is on a character's stroke, not on the bare table or a blank spine, where any model says "no tile"."""
    rng = np.random.default_rng(3)
    found = scenes.print_boxes(12, rng)
    assert len(found) == 12
    for img, (x1, y1, x2, y2) in found:
        w, h = x2 - x1, y2 - y1
        assert 15 <= min(w, h) <= 60 and max(w, h) / min(w, h) == pytest.approx(4 / 3, rel=0.01)
        cx, cy = int((x1 + x2) / 2), int((y1 + y2) / 2)
        patch = img[max(0, cy - 3):cy + 4, max(0, cx - 3):cx + 4].astype(float)
        assert patch.std() > 12      # strokes of ink under the centre, not a flat colour
