"""The classifier's restyle augmentation: a tile printed as another maker would print it keeps its shape."""

import numpy as np

from datasets.restyle import restyle, warp_strokes

BODY = (205, 225, 235)   # ivory, BGR
INK = (40, 40, 190)      # red


def _tile() -> tuple[np.ndarray, np.ndarray]:
    im = np.full((48, 48, 3), BODY, np.uint8)
    stroke = np.zeros((48, 48), bool)
    stroke[20:28, 14:34] = True
    im[stroke] = INK
    return im, stroke


def test_each_restyle_recolours_the_ink_or_changes_its_weight_or_drops_colour_and_keeps_the_layout():
    im, stroke = _tile()
    far = np.ones_like(stroke)
    far[16:32, 10:38] = False        # body pixels well away from the stroke
    seen = set()
    for seed in range(120):
        out = restyle(im.copy(), np.random.default_rng(seed))
        assert out.shape == im.shape and out.dtype == np.uint8
        if (out[..., 0] == out[..., 1]).all() and (out[..., 1] == out[..., 2]).all():
            seen.add("grey")
            assert out[stroke].mean() < out[far].mean()          # the ink stays darker than the body
            continue
        assert (out[far] == im[far]).all()                        # the body is never touched
        changed = (out != im).any(axis=2)
        if changed[stroke].all() and not changed[~stroke].any():
            seen.add("recoloured")                                # every ink pixel, and only ink
        else:
            inked = (np.abs(out.astype(int) - BODY).sum(axis=2) > 60)
            assert inked.sum() != stroke.sum()                   # bolder or thinner
            seen.add("weight")
    assert seen == {"grey", "recoloured", "weight"}


def test_a_warped_tile_keeps_its_strokes_near_their_place_but_not_their_exact_curve():
    im, stroke = _tile()
    ys, xs = np.nonzero(stroke)
    bent = 0
    for seed in range(40):
        out = warp_strokes(im.copy(), np.random.default_rng(seed))
        assert out.shape == im.shape and out.dtype == np.uint8
        inked = np.abs(out.astype(int) - BODY).sum(axis=2) > 60
        oy, ox = np.nonzero(inked)
        assert abs(oy.mean() - ys.mean()) < 3 and abs(ox.mean() - xs.mean()) < 3   # the stroke stays put
        assert 0.6 < inked.sum() / stroke.sum() < 1.6                               # and keeps its weight
        bent += not np.array_equal(inked, stroke)
    assert bent >= 35                                                                # but is drawn otherwise
