"""What misread tiles cost at the table (issue 30): penalties (must be 0) and questions asked per game.

    python bench/bench_misreads.py [--games 50] [--rates 0.05 0.2] [--json]

The referee's seeded games (engine.referee.scripted, the games the video generator renders) are seen as the table
reader reports them (datasets.misreads.camera_view), with each tile face confidently misread at each rate, and run
through the assistant with nobody at the keyboard. The baseline is the same games read right (rate 0), measured in
the same run: the questions it asks are those the games themselves raise, and the Mah Jonggs it verifies are the
most any rate can.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tqdm import tqdm  # noqa: E402

from assistant.pipeline import Assistant  # noqa: E402
from assistant.profile import Profile  # noqa: E402
from assistant.wiring import load_game_card, load_scoring  # noqa: E402
from datasets.misreads import Misreader, camera_view  # noqa: E402
from engine.referee import Referee  # noqa: E402
from engine.referee.scripted import scripted_game  # noqa: E402

PENALTIES = {"dead_hand", "mahjong_in_error", "discard_at_fault", "redeal", "challenge_upheld"}


def measure(games: list, card: object, scoring: object, players: tuple[str, ...], rate: float) -> dict:
    """Penalties, questions and verified Mah Jonggs over ``games`` misread at ``rate``."""
    penalties = questions = verified = misread = faces = 0
    most = 0
    for game in games:
        a = Assistant(Referee(card, scoring), players)
        a.start_game(0.0)
        misreader = Misreader(rate, game.seed)
        a.observe(camera_view(game.events, misreader))
        asked = sum(r.kind == "question" for r in a.rulings)
        penalties += sum(r.kind in PENALTIES for r in a.rulings) + sum(
            r.kind == "mahjong_verified" and r.data["pays_for_table"] is not None for r in a.rulings)
        questions += asked
        most = max(most, asked)
        verified += sum(r.kind == "mahjong_verified" for r in a.rulings)
        misread += misreader.misread
        faces += misreader.faces
    n = len(games)
    return {"rate": rate, "games": n, "faces": faces, "misread": misread, "penalties": penalties,
            "questions_per_game": questions / n, "most_questions_in_a_game": most, "mahjong_verified": verified}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=50, help="seeded games (seeds 0..N-1)")
    p.add_argument("--rates", type=float, nargs="+", default=[0.05, 0.20], help="shares of faces misread")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    if args.games < 1 or any(not 0 <= r <= 1 for r in args.rates):
        print("error: --games must be >= 1 and every rate 0..1", file=sys.stderr)
        return 2
    profile = Profile(players=("Ada", "Bob", "Cy", "Di"))
    card, scoring = load_game_card(profile), load_scoring(profile)
    start = time.perf_counter()
    games = [scripted_game(card, scoring, seed=s) for s in tqdm(range(args.games), desc="games", disable=args.json)]
    rows = [measure(games, card, scoring, profile.players, rate) for rate in [0.0, *args.rates]]
    if args.json:
        print(json.dumps({"rows": rows, "seconds": time.perf_counter() - start}))
        return 0
    base = rows[0]
    print(f"{args.games} seeded games, nobody at the keyboard ({time.perf_counter() - start:.0f} s)")
    print("misread  faces misread  penalties  questions/game (most)  Mah Jongg verified (vs read right)")
    for r in rows:
        ratio = r["mahjong_verified"] / base["mahjong_verified"] if base["mahjong_verified"] else 0.0
        print(f"{r['rate']:6.0%}  {r['misread']:5d}/{r['faces']:<6d}  {r['penalties']:9d}  "
              f"{r['questions_per_game']:14.2f} ({r['most_questions_in_a_game']})  "
              f"{r['mahjong_verified']:4d} ({ratio:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
