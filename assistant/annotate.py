"""The annotated video ``mahj demo`` writes: each frame with the tile boxes and codes the model read, the window
state as a coloured banner, the board's LEDs and the latest ruling, so a person can see why the assistant ruled
as it did.

Boxes are the table reader's committed tiles projected back into the image (``reader_tiles``), so the video shows
what the rulings rest on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

WINDOW_BGR = {"open": (0, 200, 0), "claim": (0, 190, 255), "closed": (0, 0, 200), "none": (60, 60, 60),
              "over": (143, 61, 27)}
LED_BGR = {"green": (0, 220, 0), "red": (0, 0, 230), "amber": (0, 190, 255), "blue": (230, 0, 0), "off": (40, 40, 40)}


def reader_tiles(reader: Any, calibration: Any) -> list[tuple[np.ndarray, str, bool]]:
    """The tiles the table reader has committed, as image polygons with their codes: what the assistant
    *believes* is on the table (not one frame's raw detections), which is what its rulings rest on."""
    half = calibration.layout.tile_w_mm / 2
    out = []
    for name in reader.regions:
        for t in reader.tiles(name):
            square = np.array([[t.x - half, t.y - half], [t.x + half, t.y - half], [t.x + half, t.y + half],
                               [t.x - half, t.y + half]], dtype=np.float64)
            up = t.face == "up"
            out.append((calibration.to_image(square).astype(np.int32), (t.tile or "?") if up else "down", up))
    return out


#: Seconds each ruling stays on screen (a person reads a line in about that), and how many lines at most.
HOLD_S = 3.0
MAX_LINES = 4
#: Rulings the video leaves out: bookkeeping that would push a Mah Jongg off the screen in the same frame.
UNSHOWN = frozenset({"turn", "picked", "east_rotates", "game_over"})
#: Seconds the final result (Mah Jongg or wall game, and the payments) is held at the end of the video.
RESULT_S = 4.0


def result_lines(rulings: list[Any], name: Any) -> list[str]:
    """The end card: who won, for how much and on which card line, and what everyone pays (or "Wall game")."""
    lines: list[str] = []
    for r in rulings:
        d = r.data or {}
        if r.kind == "mahjong_verified":
            how = "self-picked" if d.get("self_picked") else f"on {name(d.get('discarder'))}'s discard"
            lines.append(f"MAH JONGG: {name(r.seat)}, {d.get('value')} points")
            lines.append(how + (", jokerless" if d.get("jokerless") else ""))
            lines += [f"{x.get('section')} #{x.get('line', x.get('number'))}: {x.get('text')}"
                      for x in (d.get("lines") or [])[:1]]
        elif r.kind == "wall_game":
            lines.append("WALL GAME: nobody pays")
        elif r.kind == "settlement":
            lines.append(", ".join(f"{name(int(s))} {v:+g}" for s, v in (d.get("payments") or {}).items()))
    return lines


class AnnotatedWriter:
    """Writes frames with overlays to an MP4 (OpenCV's mp4v codec: plays in browsers and VLC).

    Rulings stay up at least ``HOLD_S`` (several in one frame are stacked, newest on top) and the video ends on the
    result held for ``RESULT_S``: a Mah Jongg and its settlement happen within a frame or two, far too fast to read
    at the speed they are ruled."""

    def __init__(self, path: Path, fps: float, size: tuple[int, int]) -> None:
        self.path = path
        self.fps = fps
        self.writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
        if not self.writer.isOpened():
            raise OSError(f"{path}: cannot write video")
        self.frames = 0
        self._lines: list[tuple[str, int]] = []  # (text, frame it first showed), newest last
        self._last: np.ndarray | None = None

    def note(self, text: str) -> None:
        """A ruling to show from the next frame on."""
        self._lines.append((text[:110], self.frames))

    def _shown(self) -> list[str]:
        """The lines still within their hold time, newest first; the latest one stays even when it is old."""
        hold = HOLD_S * self.fps
        young = [text for text, since in reversed(self._lines) if self.frames - since < hold][:MAX_LINES]
        return young or [self._lines[-1][0]] if self._lines else []

    def write(self, frame: np.ndarray, tiles: list[tuple[np.ndarray, str, bool]], window: str, board_state: Any,
              t: float) -> None:
        img = frame.copy()
        h, w = img.shape[:2]
        for poly, label, up in tiles:
            colour = (0, 255, 255) if up else (160, 160, 160)
            cv2.polylines(img, [poly], True, colour, 2 if up else 1)
            if not up:  # face-down tiles (walls, racks) only get a thin box: their labels would bury the rest
                continue
            x, y = int(poly[:, 0].min()), int(poly[:, 1].min())
            cv2.putText(img, label, (x, max(12, y - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3)
            cv2.putText(img, label, (x, max(12, y - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1)
        bar = max(28, h // 18)
        cv2.rectangle(img, (0, 0), (w, bar), WINDOW_BGR.get(window, (60, 60, 60)), -1)
        text = {"open": "WINDOW OPEN", "claim": "CLAIM PENDING", "closed": "WINDOW CLOSED", "none": "NO DISCARD",
                "over": "HAND OVER"}
        cv2.putText(img, f"{text.get(window, window)}   t={t:6.2f}s", (10, int(bar * 0.72)),
                    cv2.FONT_HERSHEY_SIMPLEX, bar / 40, (255, 255, 255), 2)
        if board_state is not None:
            cx = w - bar * 6
            cv2.circle(img, (cx, bar // 2), bar // 3, LED_BGR.get(board_state.window, (40, 40, 40)), -1)
            for i, mode in enumerate(board_state.seats):
                lit = mode != "0"
                cv2.circle(img, (cx + bar * (i + 1), bar // 2), bar // 4,
                           (0, 220, 255) if lit else (40, 40, 40), -1)
                cv2.putText(img, "ESWN"[i], (cx + bar * (i + 1) - 5, bar - 2), cv2.FONT_HERSHEY_SIMPLEX, 0.35,
                            (255, 255, 255), 1)
        lines = self._shown()
        if lines:
            cv2.rectangle(img, (0, h - bar * len(lines)), (w, h), (0, 0, 0), -1)
            for i, line in enumerate(lines):  # newest at the bottom edge, older ones above it
                cv2.putText(img, line, (10, h - bar * i - int(bar * 0.3)), cv2.FONT_HERSHEY_SIMPLEX, bar / 55,
                            (255, 255, 255) if i == 0 else (200, 200, 200), 1)
        self._last = img
        self.writer.write(img)
        self.frames += 1

    def hold_result(self, lines: list[str]) -> int:
        """End on the result: the last frame, darkened, with ``lines`` large in the middle, for ``RESULT_S``.
        Returns the frames added (none when nothing was written or there is no result)."""
        if self._last is None or not lines:
            return 0
        img = (self._last * 0.35).astype(np.uint8)
        h, w = img.shape[:2]
        scale = max(0.6, h / 900)
        for i, line in enumerate(lines):
            y = int(h * 0.4 + i * 60 * scale)
            cv2.putText(img, line[:80], (int(w * 0.05), y), cv2.FONT_HERSHEY_SIMPLEX, scale * (1.3 if i == 0 else 0.9),
                        (255, 255, 255), 2 if i == 0 else 1)
        added = round(RESULT_S * self.fps)
        for _ in range(added):
            self.writer.write(img)
        self.frames += added
        return added

    def close(self) -> None:
        self.writer.release()
