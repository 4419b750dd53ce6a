"""Reading the table from video: accuracy, latency, throughput and memory, on generated games with known truth.

    python bench/bench_table.py [--games 20] [--turns 3] [--out runs/bench_table] [--json FILE]
                                [--model PATH|none] [--memory-hours 2] [--skip-throughput] [--events DIR]

1. Generates (once; cached under --out) ``--games`` short seeded games at 640x360 from the referee's scripted
   games, plus ``--own-games`` from the own script (calls made after the next player picked), with every
   disturbance the generator knows (resting arms, a camera bump, a light change, dropped frames).
2. Reads each with the ORACLE detector (the renderer's true boxes: reading errors only) and, when a tile model is
   in models/, ``--model-games`` games at ``--model-size`` (1920x1080) with the oracle and the real model
   (reading + model errors; at 640x360 a tile is ~8 px wide, too small for any model); precision/recall per
   event type against the truth, discards with the right tile, events invented inside disturbance windows,
   event latency (true moment -> observation confirmed), and window-close latency through the referee when
   engine.referee is available.
3. Throughput on a 1280x720 game with 2 threads: median and p95 per-frame cost with change-driven work, and the
   full-frame cost (every region read every frame) for comparison, with the oracle and with the model.
4. Memory over a long recording (default 2 hours of table time at 30 fps, generated on the fly by looping a
   game; nothing saved): RSS sampled every 10 minutes of table time.
5. Tracker matching: greedy vs Hungarian on dense jittered layouts (identity accuracy, microseconds per match).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from datasets.video.generate import generate_game  # noqa: E402
from vision.calibration import calibrate_frame  # noqa: E402
from vision.events import read_log  # noqa: E402
from vision.oracle import OracleDetector  # noqa: E402
from vision.reader import TableReader  # noqa: E402
from vision.recording import frames as video_frames  # noqa: E402
from vision.recording import meta_for  # noqa: E402
from vision.replay import read_frames  # noqa: E402
from vision.scoring import Score, score  # noqa: E402
from vision.tracker import TileSeen, match  # noqa: E402


def ensure_games(out: Path, seeds: Sequence[int], turns: int, size: tuple[int, int], own: bool = False
                 ) -> list[Path]:
    """Generate (once) and list the games; ``own``: the own script, whose calls come after the next pick."""
    from tqdm import tqdm

    videos = []
    for seed in tqdm(seeds, desc=f"games {size[0]}x{size[1]}", unit="game"):
        base = out / f"{'own' if own else 'game'}{seed:04d}_{size[0]}x{size[1]}"
        if not base.with_suffix(".truth.jsonl").exists():
            generate_game(base, seed, turns=turns, size=size, progress=False, own=own)
        videos.append(base.with_suffix(".mp4"))
    return videos


def oracle_for(video: Path) -> OracleDetector:
    return OracleDetector.load(video.with_suffix(".boxes.npz"), (meta_for(video) or {}).get("frames"))


def load_model(spec: str | None):
    """The real tile model, or None (with the reason) when it has not landed or was switched off."""
    if spec == "none":
        return None, "switched off (--model none)"
    try:
        from vision.tile_model import TileModel
    except ImportError as exc:
        return None, f"vision.tile_model not available ({exc})"
    try:
        return TileModel.load(spec), None
    except Exception as exc:  # noqa: BLE001 -- report any load failure as "no model" with its reason
        return None, f"model did not load: {exc}"


def accuracy(videos: list[Path], detector_for, events_dir: Path | None = None) -> dict:
    """Precision and recall per event type over ``videos``; with ``events_dir``, each game's events are also
    written there as ``<game>.jsonl`` (one JSON object a line), so that two runs can be compared game by game."""
    from tqdm import tqdm

    total = Score()
    frames = 0
    asked: Counter[str] = Counter()     # what a person is asked or warned about: noise if the table was fine
    for v in tqdm(videos, desc="reading", unit="game"):
        res = read_frames(video_frames(v), detector_for(v))
        if events_dir is not None:
            events_dir.mkdir(parents=True, exist_ok=True)
            (events_dir / f"{v.stem}.jsonl").write_text(
                "".join(json.dumps(e.to_json()) + "\n" for e in res.events), encoding="utf-8")
        frames += len(res.frame_ms)
        asked.update(e.type for e in res.events if e.type in ("ask_human", "tile_count"))
        truth = [e.to_json() for e in read_log(v.with_suffix(".truth.jsonl"))]
        game = score([e.to_json() for e in res.events], truth, (meta_for(v) or {}).get("disturbances", []))
        for e in game.misses + game.extras:     # so that a person can open the game and look
            e["game"] = v.stem
        total.add(game)
    table = total.table()
    return {"frames": frames, "per_type": table, "discards_wrong_tile": total.discard_seen_wrong_tile,
            "invented_in_disturbance": [e.get("type") for e in total.invented_in_disturbance],
            "questions_per_game": {k: round(n / max(1, len(videos)), 2) for k, n in sorted(asked.items())},
            "misses": total.misses[:20], "extras": total.extras[:20]}


def throughput(video: Path, detector, label: str) -> dict:
    cv2.setNumThreads(2)
    out = {}
    for mode, kw in (("change_driven", {}), ("full_frame", {"change_driven": False})):
        res = read_frames(video_frames(video), detector, **kw)
        ms = sorted(res.frame_ms)
        out[mode] = {"median_ms": statistics.median(ms), "p95_ms": ms[int(0.95 * (len(ms) - 1))],
                     "frames": len(ms), "detector_calls": res.stats["detector_calls"]}
    out["full_over_change_driven"] = out["full_frame"]["median_ms"] / max(out["change_driven"]["median_ms"], 1e-9)
    out["detector"] = label
    return out


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def memory(video: Path, hours: float) -> dict:
    """Loop one game's frames for ``hours`` of table time through one reader; RSS every 10 table minutes. The
    frames go to ``TableReader.process`` one by one as the live pipeline sends them, and nothing per frame is
    kept here: ``read_frames`` keeps every event and a cost per frame (7 MB over 2 h), which would be measured
    as the reader's growth."""
    meta = meta_for(video) or {}
    fps = meta.get("fps", 30.0)
    base = oracle_for(video)
    clip = [f for f, _, _ in video_frames(video)]
    n = len(clip)
    positions = meta.get("frames") or list(range(n))

    class Looped:
        def detect_at(self, frame_index: int, rect):
            return base.detect_at(positions[frame_index % n], rect)

    total = int(hours * 3600 * fps)
    samples: list[tuple[float, float]] = []

    def frames():
        for i in range(total):
            if i % int(600 * fps) == 0:
                samples.append((i / fps / 60, rss_mb()))
            yield clip[i % n], i, i / fps

    from tqdm import tqdm

    t0 = time.perf_counter()
    reader = TableReader(calibrate_frame(clip[0]), Looped())
    for frame, idx, t in tqdm(frames(), total=total, desc="long recording", unit="frame", mininterval=5):
        reader.process(frame, idx, t)
    samples.append((total / fps / 60, rss_mb()))
    after_first = [m for t, m in samples if t >= 10]
    return {"table_hours": hours, "frames": total, "wall_s": time.perf_counter() - t0,
            "rss_mb_by_table_minute": [[round(t), round(m, 1)] for t, m in samples],
            "growth_after_10min_mb": round(max(after_first) - min(after_first), 1) if after_first else None}


def tracker_matching(trials: int = 300, seed: int = 7) -> dict:
    """Dense layouts (racks at 24 mm pitch, a crowded floor) with 3 mm jitter, a few tiles gone and new."""
    out = {}
    match([TileSeen(0, 0, "up")], [TileSeen(0, 0, "up")], 1.0, "hungarian")    # import scipy before timing
    for method in ("greedy", "hungarian"):
        right = total = 0
        spent = 0.0
        r2 = random.Random(seed)
        for _ in range(trials):
            n = r2.randint(10, 60)
            if r2.random() < 0.5:
                pts = [(i * 24.0, 0.0) for i in range(n)]
            else:
                pts = [(r2.uniform(0, 400), r2.uniform(0, 400)) for _ in range(n)]
            a = [TileSeen(x, y, "up") for x, y in pts]
            keep = [i for i in range(n) if r2.random() > 0.05]
            b = [TileSeen(pts[i][0] + r2.gauss(0, 3), pts[i][1] + r2.gauss(0, 3), "up") for i in keep]
            t = time.perf_counter()
            pairs = match(a, b, 0.6 * 23, method)
            spent += time.perf_counter() - t
            truth = {keep[j]: j for j in range(len(keep))}
            right += sum(1 for i, j in pairs if truth.get(i) == j)
            total += len(keep)
        out[method] = {"identity_accuracy": right / total, "us_per_match": 1e6 * spent / trials}
    return out


def referee_latency(videos: list[Path], detector_for) -> dict:
    """True moment -> ``window_closed`` ruling. The recording's true events and the reader's observations each go
    through the assistant's converter (assistant.observations.convert) into a referee primed with the scripted
    game up to where the video starts; the k-th window close of one is paired with the k-th of the other when
    both close for the same reason. Latency = when the reader confirmed the closing observation (its frame
    time ``t``) minus when the closing action truly happened."""
    try:
        from assistant.observations import convert
        from engine.referee import Referee
        from engine.referee.rulings import Ruling
    except ImportError as exc:
        return {"skipped": f"referee or the assistant's observation converter not available: {exc}"}
    from datasets.video.script import referee_game
    from vision.events import from_json

    def closes(observations, game, start) -> list[tuple[float, str]]:
        ref = Referee(game_card, game_profile)
        for e in game.events[:start]:
            ref.apply(e)
        out = []
        for o in sorted(observations, key=lambda o: o.t):
            for e in convert(o, ref):
                if isinstance(e, Ruling):
                    continue
                out += [(o.t, r.data.get("reason", "")) for r in ref.apply(e) if r.kind == "window_closed"]
        return out

    from importlib import resources

    import engine.profiles
    from engine.card import SAMPLE_CARD, load_card
    from engine.referee.profile import parse_profile

    game_card = load_card(SAMPLE_CARD)
    game_profile = parse_profile((resources.files(engine.profiles) / "nmjl.toml").read_text(), "nmjl.toml")
    lat: list[float] = []
    unpaired = 0
    for v in videos:
        meta = meta_for(v) or {}
        src = meta.get("source") or {}
        if "referee_seed" not in src:
            continue
        game = referee_game(src["referee_seed"])
        truth = [from_json(d) for d in (e.to_json() for e in read_log(v.with_suffix(".truth.jsonl")))]
        seen = read_frames(video_frames(v), detector_for(v)).events
        want, got = closes(truth, game, src["start_event"]), closes(seen, game, src["start_event"])
        for (tw, rw), (tg, rg) in zip(want, got, strict=False):
            if rw == rg:
                lat.append(tg - tw)
            else:
                unpaired += 1
        unpaired += abs(len(want) - len(got))
    if not lat:
        return {"skipped": "no window closed in these games"}
    lat.sort()
    return {"closes": len(lat), "unpaired": unpaired, "p50_ms": 1000 * lat[len(lat) // 2],
            "p95_ms": 1000 * lat[min(len(lat) - 1, int(0.95 * len(lat)))], "max_ms": 1000 * lat[-1]}


PARTS = ("tracker", "accuracy", "latency", "throughput", "memory")
#: Own-script seeds whose few turns include a call made after the next player picked (and a joker exchange).
OWN_SEEDS = (203, 208)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--turns", type=int, default=4)
    p.add_argument("--out", type=Path, default=ROOT / "runs" / "bench_table")
    p.add_argument("--model", default=None, help="tile model path; 'none' to skip the real model")
    p.add_argument("--memory-hours", type=float, default=2.0)
    p.add_argument("--own-games", type=int, default=len(OWN_SEEDS),
                   help="extra games from the own script (calls after a pick)")
    p.add_argument("--model-games", type=int, default=3,
                   help="games for the real model at --model-size (at 640x360 a tile is ~8 px: no model reads that)")
    p.add_argument("--model-seed", type=int, default=900,
                   help="first seed of the real model's games (another range: games no reader rule was tuned on)")
    p.add_argument("--model-size", default="1920x1080",
                   help="frame size of the real model's games: a whole-table camera needs 1080p for ~25 px tiles")
    p.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated subset of {','.join(PARTS)}")
    p.add_argument("--generate-only", action="store_true")
    p.add_argument("--no-oracle", action="store_true",
                   help="only the real model's passes (the true-box figures do not change with the model)")
    p.add_argument("--json", type=Path, help="also write the results here")
    p.add_argument("--events", type=Path,
                   help="also write each game's events here, as oracle/, oracle_hd/ and model/<game>.jsonl")
    args = p.parse_args()
    parts = set(args.parts.split(","))
    args.out.mkdir(parents=True, exist_ok=True)

    videos = ensure_games(args.out, range(100, 100 + args.games), args.turns, (640, 360))
    videos += ensure_games(args.out, OWN_SEEDS[:args.own_games], args.turns, (640, 360), own=True)
    hd: list[Path] = []
    big = None
    model_size = tuple(int(v) for v in args.model_size.split("x"))
    if (parts & {"accuracy", "latency"} and args.model != "none") or args.generate_only:
        hd = ensure_games(args.out, range(args.model_seed, args.model_seed + max(1, args.model_games)), args.turns,
                          model_size)
    if "throughput" in parts or args.generate_only:
        big = ensure_games(args.out, [900], args.turns, (1280, 720))[0]
    if args.generate_only:
        return 0
    results: dict = {"games": len(videos), "turns": args.turns}
    model, why = load_model(args.model) if parts & {"accuracy", "latency", "throughput"} else (None, "not asked")
    if "tracker" in parts:
        print("== tracker matching (greedy vs Hungarian)")
        results["tracker"] = tracker_matching()
        print(json.dumps(results["tracker"], indent=1))
    if "accuracy" in parts:
        if not args.no_oracle:
            print("== accuracy, ORACLE detector (reading errors only)")
            results["oracle"] = accuracy(videos, oracle_for, _sub(args.events, "oracle"))
            _print_table(results["oracle"])
        if model is not None:
            if not args.no_oracle:
                print(f"== accuracy on {len(hd)} games at {args.model_size}: ORACLE, then the real tile model")
                results["oracle_hd"] = accuracy(hd, oracle_for, _sub(args.events, "oracle_hd"))
                _print_table(results["oracle_hd"])
            results["model"] = accuracy(hd, lambda _v: model, _sub(args.events, "model"))
            _print_table(results["model"])
        else:
            results["model"] = {"skipped": why}
            print(f"== real tile model skipped: {why}")
    if "latency" in parts:
        if not args.no_oracle:
            results["window_close"] = referee_latency(videos, oracle_for)
            print("== window-close latency (oracle):", json.dumps(results["window_close"]))
        if model is not None:
            results["window_close_model"] = referee_latency(hd, lambda _v: model)
            print("== window-close latency (model):", json.dumps(results["window_close_model"]))
    if "throughput" in parts:
        print("== throughput, 1280x720, 2 threads")
        if not args.no_oracle:
            results["throughput_oracle"] = throughput(big, oracle_for(big), "oracle")
            print(json.dumps(results["throughput_oracle"], indent=1))
        if model is not None:
            results["throughput_model"] = throughput(big, model, "model")
            print(json.dumps(results["throughput_model"], indent=1))
    if "memory" in parts and args.memory_hours > 0:
        print(f"== memory over {args.memory_hours} h of table time")
        results["memory"] = memory(videos[0], args.memory_hours)
        print(json.dumps(results["memory"], indent=1))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


def _sub(folder: Path | None, name: str) -> Path | None:
    return None if folder is None else folder / name


def _print_table(acc: dict) -> None:
    print(f"{'event':28} {'true':>5} {'seen':>5} {'prec':>7} {'recall':>7} {'p50 ms':>7} {'p95 ms':>7}")
    for kind, row in acc["per_type"].items():
        def pct(x):
            return "    -  " if x is None else f"{100 * x:6.2f}%"

        def ms(x):
            return "-" if x is None else f"{x:.0f}"
        print(f"{kind:28} {row['true']:5d} {row['seen']:5d} {pct(row['precision'])} {pct(row['recall'])} "
              f"{ms(row['latency_p50_ms']):>7} {ms(row['latency_p95_ms']):>7}")
    print(f"discards seen with a wrong tile: {acc['discards_wrong_tile']}; "
          f"invented during occlusion/light/bump: {len(acc['invented_in_disturbance'])}; frames: {acc['frames']}; "
          f"questions per game: {acc['questions_per_game'] or 0}")


if __name__ == "__main__":
    sys.exit(main())
