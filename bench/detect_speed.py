"""How long ``mahj detect`` takes on the product's pictures, on 2 threads (issue 41's speed goals).

    python bench/detect_speed.py [--frames 12] [--models DIR] [--json out.json]

Two kinds of image, each read by ``TileModel.detect`` as ``mahj detect`` reads it:

* whole-table frames of the bundled 1080p recording (1920x1080, tiles about 30 px), goal <= 100 ms median;
* a 12 MP phone photo of a table (4032x3024): the fixture photo scaled up 3.15 x, tiles about 95 px, goal
  <= 400 ms.

Beside each, in the same run and on the same images, the baseline: one detector reading at 512 px and the
classifier over what it found, the least any reading does. Wall time on a shared machine varies with what else
runs; the ratio to the baseline, and the process's CPU time, compare across runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

from vision.recording import frames  # noqa: E402
from vision.tile_model import TileModel  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
VIDEO = ROOT / "datasets" / "video" / "fixtures" / "demo.mp4"
PHOTO = ROOT / "tests" / "fixtures" / "tile_model" / "table.jpg"


def timed(fn: Callable[[], object], runs: int) -> tuple[list[float], list[float], object]:
    """Wall and CPU ms of ``runs`` calls (after one warm-up), and the last result."""
    out = fn()
    wall, cpu = [], []
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    return wall, cpu, out


def measure(model: TileModel, images: list[np.ndarray], runs: int) -> dict:
    """Median wall/CPU ms of ``detect`` and of the baseline over the images, and their ratio."""
    det_wall, det_cpu, base_wall, found = [], [], [], []
    for img in images:
        w, c, dets = timed(lambda img=img: model.detect(img, photo=True), runs)
        bw, _bc, _ = timed(lambda img=img: model.read_faces(img, *model.boxes(img)), runs)
        det_wall += w
        det_cpu += c
        base_wall += bw
        found.append(len(dets))
    return {"images": len(images), "shape": list(images[0].shape[:2]),
            "median_ms": round(statistics.median(det_wall), 1),
            "cpu_ms_median": round(statistics.median(det_cpu), 1),
            "baseline_median_ms": round(statistics.median(base_wall), 1),
            "ratio_to_baseline": round(statistics.median(det_wall) / statistics.median(base_wall), 2),
            "tiles_found_median": statistics.median(found)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frames", type=int, default=12, help="frames of the recording, every 25th from the start")
    ap.add_argument("--runs", type=int, default=3, help="timed reads of each image")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--models", type=Path, default=None, help="model folder (default: the shipped models)")
    a = ap.parse_args()
    model = TileModel.load(a.models, threads=2)
    table = [f for k, (f, _i, _t) in enumerate(frames(VIDEO)) if k % 25 == 0][: a.frames]
    photo = cv2.resize(cv2.imread(str(PHOTO)), (4032, 3024), interpolation=cv2.INTER_CUBIC)
    out = {"whole-table 1080p frames": measure(model, table, a.runs),
           "12 MP photo": measure(model, [photo], a.runs)}
    for name, r in out.items():
        print(f"{name}: {r['median_ms']} ms median ({r['cpu_ms_median']} ms CPU), baseline "
              f"{r['baseline_median_ms']} ms, ratio {r['ratio_to_baseline']}, {r['tiles_found_median']} tiles")
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
