"""Which of a training run's epochs should ship: each candidate is exported, then judged on what the product needs.

    .venv-train/bin/python bench/select_detector.py runs/detector10 [--cls-run classifier2] [--json out.json]

Validation mAP alone chose badly before (runs 7-9 in models/README.md: better mAP, worse table reading), so each
epoch's weights (``datasets.train detector --save-period 1``) are exported to ``<run>/candidates/<epoch>`` with
their own thresholds, and measured on data kept apart from the figures the model card reports:

- the real *validation* photos (``datasets/real_photos.py``, where ``../shared`` is there): recall and precision
  of face-up tiles at IoU 0.5, read as ``detect`` reads an image; real photos decide (issue 29);
- the table benchmark on the *selection* games (seeds 950-959; the reported figures use 900-919): events missed
  and invented by the real table reader;
- box mAP on the synthetic *validation* split, each frame read the way ``detect`` reads it;
- the same on the rendered close-ups' validation split (``generate --view closeup``), where it exists.

Ranked by table errors, then the real validation photos' F1, then the mean validation mAP50-95 over the two
rendered sets (the synthetic one alone without close-ups). The test splits and the held-out photos are left for
``bench/eval_tile_model.py --models <chosen candidate>``.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.eval_real import evaluate  # noqa: E402
from bench.eval_tile_model import eval_synth  # noqa: E402
from datasets import real_photos  # noqa: E402
from vision.tile_model import MODELS_DIR, TileModel  # noqa: E402


def real_val_f1(model: TileModel) -> float:
    """F1 of recall and precision on the real validation photos (0 where ``../shared`` is missing)."""
    if not real_photos.CHINESE.exists():
        return 0.0
    row = evaluate(model.detect, (1.0,), None, "real val", splits=("val",))["val"].groups["all"].row()
    return 2 * row["recall"] * row["precision"] / max(row["recall"] + row["precision"], 1e-9)


def candidates(run: Path, only: list[str] | None) -> list[Path]:
    """The run's per-epoch weights in epoch order, then its last.pt (the end of the run)."""
    def epoch(p: Path) -> int:
        return int(re.sub(r"\D", "", p.stem))

    found = sorted((run / "weights").glob("epoch*.pt"), key=epoch) + [run / "weights" / "last.pt"]
    return [p for p in found if p.exists() and (only is None or p.stem in only)]


def export(weights: Path, out: Path, cls_run: str) -> None:
    """The candidate's model files, exported again only if the weights are newer than them."""
    done = out / "tile_model.json"
    if done.exists() and done.stat().st_mtime > weights.stat().st_mtime:
        return
    subprocess.run([sys.executable, "-m", "datasets.train", "export", "--weights", str(weights), "--out", str(out),
                    "--cls-run", cls_run], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def table_errors(models: Path, seed: int, games: int) -> dict:
    """Events the real table reader missed or invented on the selection games, with this candidate's files."""
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run([sys.executable, str(ROOT / "bench" / "bench_table.py"), "--parts", "accuracy", "--no-oracle",
                        "--model", str(models), "--model-seed", str(seed), "--model-games", str(games),
                        "--json", f.name], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        acc = json.loads(Path(f.name).read_text())["model"]
    return {"missed": len(acc["misses"]), "invented": len(acc["extras"]),
            "wrong_tile": acc["discards_wrong_tile"], "errors": len(acc["misses"]) + len(acc["extras"])
            + acc["discards_wrong_tile"],
            "what": [f"{how} {m['type']} ({m['game']} {m['t']:.1f} s)"
                     for how, key in (("missed", "misses"), ("invented", "extras")) for m in acc[key]]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", type=Path, help="a detector run folder (runs/detectorN)")
    ap.add_argument("--cls-run", default="classifier2", help="classifier run exported beside each candidate")
    ap.add_argument("--only", nargs="*", help="weights stems to judge (e.g. epoch3 last)")
    ap.add_argument("--table-seed", type=int, default=950)
    ap.add_argument("--table-games", type=int, default=10)
    ap.add_argument("--synth", type=Path, default=ROOT / "datasets" / "rendered" / "synth")
    ap.add_argument("--closeup", type=Path, default=ROOT / "datasets" / "rendered" / "closeup")
    ap.add_argument("--baseline", type=Path, default=MODELS_DIR,
                    help="model files judged beside the candidates (the shipped ones); 'none' to skip")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    a = ap.parse_args(argv)
    judged = [] if str(a.baseline) == "none" else [(a.baseline, None)]
    for weights in candidates(a.run, a.only):
        out = a.run / "candidates" / weights.stem
        print(f"== exporting {weights}", flush=True)
        export(weights, out, a.cls_run)
        judged.append((out, weights))
    rows = []
    for out, weights in judged:
        model = TileModel.load(out)
        val = eval_synth(model, a.synth, None, desc=f"{out.name} synthetic val", split="val")
        row = {"candidate": str(out), "weights": str(weights) if weights else "baseline",
               **{k: val[k] for k in ("mAP50_up", "mAP50_down", "mAP50_95_up", "mAP50_95_down", "mAP50_95")},
               **table_errors(out, a.table_seed, a.table_games)}
        row["rank_mAP50_95"] = row["mAP50_95"]
        row["real_f1"] = real_val_f1(model)
        close = eval_synth(model, a.closeup, None, desc=f"{out.name} close-up val", split="val")
        if "skipped" not in close:
            row.update({f"closeup_{k}": close[k] for k in ("mAP50", "mAP50_95")})
            row["rank_mAP50_95"] = round((row["mAP50_95"] + close["mAP50_95"]) / 2, 4)
        print(json.dumps(row), flush=True)
        rows.append(row)
    rows.sort(key=lambda r: (r["errors"], -r["real_f1"], -r["rank_mAP50_95"]))
    print(f"{'candidate':40} {'errors':>6} {'missed':>6} {'invented':>8} {'real F1':>7} {'mAP50 up/down':>14} "
          f"{'mAP50-95':>8} {'close-up mAP50/50-95':>20}")
    for r in rows:
        close = f"{r['closeup_mAP50']:.3f}/{r['closeup_mAP50_95']:.3f}" if "closeup_mAP50" in r else "-"
        print(f"{r['candidate']:40} {r['errors']:6d} {r['missed']:6d} {r['invented']:8d} {r['real_f1']:7.3f} "
              f"{r['mAP50_up']:6.3f}/{r['mAP50_down']:.3f} {r['mAP50_95']:8.3f} {close:>20}")
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    with real_photos.fixes_checked():
        sys.exit(main())
