"""Sheets for checking a real split's labels by eye: every box cut out, grouped by the code its source gives.

    python -m datasets.label_audit --split unseen --out runs/audit

A sheet per code (``CODE.png``; ``unknown.png`` for boxes whose face is not known) shows each box of that label
numbered; a box that does not look like its neighbours is a label to check. ``index.tsv`` maps each number to its
photo and label line, the columns ``datasets/splits/label-fixes.tsv`` needs. The sheets show the labels with
those fixes applied (a box fixed to ``none`` is on none of them). Needs ``../shared``.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import cv2
import numpy as np

from datasets.real import SHARED
from datasets.real_photos import fixes_checked, photos

CELL = 72           # each crop fits a CELL x CELL square, its number drawn beneath
COLUMNS = 16


def cell(img: np.ndarray, box: np.ndarray, number: int) -> np.ndarray:
    """One box cut from its photo, scaled to fit the cell whole, its number under it."""
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    crop = img[max(y1, 0):max(y2, y1 + 1), max(x1, 0):max(x2, x1 + 1)]
    out = np.full((CELL + 14, CELL, 3), 255, np.uint8)
    if crop.size:
        s = CELL / max(crop.shape[:2])
        crop = cv2.resize(crop, (max(1, round(crop.shape[1] * s)), max(1, round(crop.shape[0] * s))))
        out[:crop.shape[0], :crop.shape[1]] = crop
    cv2.putText(out, str(number), (2, CELL + 11), cv2.FONT_HERSHEY_SIMPLEX, 0.38, (0, 0, 200), 1, cv2.LINE_AA)
    return out


def sheet(cells: list[np.ndarray]) -> np.ndarray:
    """The cells in rows of COLUMNS."""
    blank = np.full_like(cells[0], 255)
    cells = cells + [blank] * (-len(cells) % COLUMNS)
    return np.vstack([np.hstack(cells[i:i + COLUMNS]) for i in range(0, len(cells), COLUMNS)])


def main() -> None:
    ap = argparse.ArgumentParser(description="sheets of a real split's boxes by label, to check them by eye")
    ap.add_argument("--split", default="unseen", choices=("train", "val", "test", "unseen"))
    ap.add_argument("--source", action="append", help="only these sources (default: all with face labels)")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    by_code: dict[str, list[np.ndarray]] = {}
    index = []
    for ph in photos((a.split,), tuple(a.source or ("chinese", "leomiura"))):
        img = ph.load()
        for box, code, line in zip(ph.boxes, ph.codes, ph.lines, strict=True):
            number = len(index)
            index.append((number, ph.path.relative_to(SHARED).as_posix(), line, code or "?"))
            by_code.setdefault(code or "?", []).append(cell(img, box, number))
    for code, cells in sorted(by_code.items()):
        cv2.imwrite(str(a.out / f"{'unknown' if code == '?' else code}.png"), sheet(cells))
    with (a.out / "index.tsv").open("w", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(("number", "path", "line", "code"))
        w.writerows(index)
    print(f"{len(index)} boxes in {len(by_code)} sheets -> {a.out}")


if __name__ == "__main__":
    with fixes_checked():
        main()
