"""Whether a box shows the table rather than a tile: the colour of its middle against the photo's table.

The detector boxes the felt between two tiles stood apart as a tile seen from behind, and the rack page then
tells the player to turn a tile that is not there. What a gap shows is the table: its middle has the colour of
the photo outside every box. On the real player's-eye rack photos, of those false backs beside her tiles, 17 of
leomiura's 22 and 6 of the Hong Kong racks' 10 lie within TABLE_COLOUR_WITHIN of the table, and every one of the
483 face-down boxes scored 0.6 or more on the chinese-mahjong and haitaks training photos that lies that near
was a gap too, looked at one by one (docs/hand.md). A tile's back the very colour of the felt it stands on would
be taken for the table; the hand's count then says a tile is missing.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

#: Distance in OpenCV's 8-bit Lab (L scaled to 0-255) under which a box's middle is the table's own colour.
#: The gaps measured lie under 15 (most under 10), the true backs at 28 or more, green backs on green felt
#: among them (32-35; docs/hand.md).
TABLE_COLOUR_WITHIN = 15.0
#: The table's colour is the median of every STEP-th pixel each way outside the boxes: a phone photo has
#: millions, and a median needs far fewer.
STEP = 4

Box = tuple[float, float, float, float]


def table_colour(image: np.ndarray, boxes: Sequence[Box]) -> np.ndarray | None:
    """The median Lab colour of ``image`` (BGR) outside every box, or None where the boxes cover it all."""
    lab = cv2.cvtColor(np.ascontiguousarray(image[::STEP, ::STEP]), cv2.COLOR_BGR2LAB)
    outside = np.ones(lab.shape[:2], bool)
    for x0, y0, x1, y1 in boxes:
        rows = slice(max(0, int(y0) // STEP), int(np.ceil(y1 / STEP)))
        outside[rows, max(0, int(x0) // STEP):int(np.ceil(x1 / STEP))] = False
    if not outside.any():
        return None
    return np.median(lab[outside], axis=0)


def shows_table(image: np.ndarray, box: Box, table: np.ndarray | None) -> bool:
    """Whether the middle half of ``box`` (each way) has the ``table``'s colour (``table_colour``)."""
    if table is None:
        return False
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    mid = image[max(0, int(y0 + h / 4)):int(np.ceil(y1 - h / 4)), max(0, int(x0 + w / 4)):int(np.ceil(x1 - w / 4))]
    if not mid.size:
        return False
    lab = cv2.cvtColor(np.ascontiguousarray(mid), cv2.COLOR_BGR2LAB).reshape(-1, 3)
    return float(np.linalg.norm(np.median(lab, axis=0) - table)) < TABLE_COLOUR_WITHIN
