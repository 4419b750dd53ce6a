"""Copy the CC0 fluffystuff tile faces into the repo at training resolution, renamed to our tile codes.

Why a copy: users and CI have no ``../shared``, yet the renderer (and issue 7's video maker, and the tests) must
run anywhere. The art is CC0, and tiles in a camera frame are 20-60 px wide, so 150x200 px faces lose nothing the
model could see. Run once by a developer::

    python -m datasets.synth.import_art ../shared/art/fluffystuff-cc0
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import cv2

ART_DIR = Path(__file__).with_name("art")
SIZE = (150, 200)  # width, height; the source PNGs are 600x800

#: fluffystuff file stem -> our tile code (Man = Crak, Pin = Dot, Sou = Bam). Haku (white dragon) is blank in
#: this art and American Soaps look different anyway, so Soap faces are drawn by faces.py.
SOURCE_NAMES: dict[str, str] = (
    {f"Man{n}": f"{n}C" for n in range(1, 10)}
    | {f"Pin{n}": f"{n}D" for n in range(1, 10)}
    | {f"Sou{n}": f"{n}B" for n in range(1, 10)}
    | {"Ton": "E", "Nan": "S", "Shaa": "W", "Pei": "N", "Hatsu": "GD", "Chun": "RD"}
)


def import_art(source: Path, dest: Path = ART_DIR) -> int:
    """Write ``dest/<code>.png`` (RGBA) for every mapped face; returns how many were written."""
    regular = source / "Export" / "Regular"
    if not regular.is_dir():
        raise SystemExit(f"error: {regular}: no such folder (expected the fluffystuff-cc0 art)")
    dest.mkdir(parents=True, exist_ok=True)
    for stem, code in SOURCE_NAMES.items():
        img = cv2.imread(str(regular / f"{stem}.png"), cv2.IMREAD_UNCHANGED)
        if img is None or img.shape[2] != 4:
            raise SystemExit(f"error: {regular / stem}.png: unreadable or without alpha")
        small = cv2.resize(img, SIZE, interpolation=cv2.INTER_AREA)
        cv2.imwrite(str(dest / f"{code}.png"), small, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    shutil.copy(source / "LICENSE.md", dest / "LICENSE.md")
    return len(SOURCE_NAMES)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source", type=Path, help="the fluffystuff-cc0 folder")
    n = import_art(ap.parse_args().source)
    print(f"wrote {n} faces to {ART_DIR}")


if __name__ == "__main__":
    main()
