"""How near the speaker's estimate of a sentence's length (assistant.speech_timing) is to real espeak-ng.

    python bench/speech_durations.py [--rates 120 165 250 350] [--fit] [--json]

Synthesises the sentences the speaker says (discards for unnamed and named seats, calls, results, payments,
answers, questions, notices) with the speaker's own command line, takes each WAV's length and compares it with
``spoken_seconds``. ``--fit`` also prints the least-squares coefficients of the model over all the rates: what
speech_timing's constants are, to be refitted if espeak-ng or the sentences change.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace as R

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.display.answers import seat_winds, tiles_out, whose_turn  # noqa: E402
from assistant.profile import Profile  # noqa: E402
from assistant.questions import question_text  # noqa: E402
from assistant.speech import announcement_for, payments_sentence, spoken_seat, synth_command  # noqa: E402
from assistant.speech_timing import spoken_seconds  # noqa: E402
from engine.tiles import TILES  # noqa: E402

RULINGS = [("claim_pending", {"purpose": "mahjong"}), ("claim_pending", {}), ("claim_awarded", {"tile": "6D"}),
           ("exposure_accepted", {"tiles": ["5D", "5D", "J"]}), ("dead_hand", {}), ("turn", {}),
           ("mahjong_in_error", {})]


def sentences() -> list[str]:
    """What the speaker says, over three tables: no names, short names, longer names."""
    out = ["Window closed", "Wall game", "Please check: the camera is dropping frames (8 frame(s) missing)",
           "Please check: the camera view is blocked", "Correction left undone."]
    for players in ((), ("Ada", "Bob", "Cy", "Di"), ("Margaret", "Bob", "Evelyn", "Jo")):
        profile = Profile(players=players) if players else Profile()
        name = spoken_seat(profile.player)
        seats = [{"name": profile.player(i), "wind": w, "in_play": True, "exposures": []}
                 for i, w in enumerate(("East", "South", "West", "North"))]
        for seat in range(4):
            out += [announcement_for(R(kind="window_opened", seat=seat, data={"tile": t}), name).text
                    for i, t in enumerate(TILES) if (i + seat) % 3 == 0]
            out += [announcement_for(R(kind=kind, seat=seat, data=data), name).text for kind, data in RULINGS]
            out.append(announcement_for(R(kind="mahjong_verified", seat=seat, data={
                "value": (25, 30, 50, 75)[seat], "self_picked": seat % 2 == 0, "jokerless": seat == 3}), name).text)
            out.append(question_text({"seat": seat, "reason": "a tile was picked before the call was settled",
                                      "penalty": "dead"}, name))
            out.append(whose_turn(R(turn=seat, seats=seats, window="open")))
        out.append(seat_winds(R(seats=seats)))
        out.append(payments_sentence({"0": -50, "1": -25, "2": -25, "3": 100}, name))
        out.append(payments_sentence({"0": -60, "1": -60, "2": 180, "3": -60}, name))
    floor = R(floor={"3B": 1, "J": 2}, seats=[{"exposures": [[{"tile": "3B"}]]}])
    out += [tiles_out(floor, t) for t in ("3B", "J", "RD")]
    return list(dict.fromkeys(out))


def real_seconds(text: str, rate: int) -> float:
    """The length of espeak-ng's audio for ``text``, run as the speaker runs it (to a pipe)."""
    command = synth_command("espeak-ng", text, rate=rate)
    audio = subprocess.run([command[0], "--stdout", *command[1:]], capture_output=True, check=True).stdout
    return (len(audio) - 44) / 2 / 22050


def features(text: str, rate: int) -> list[float]:
    """speech_timing's model as a row: letters, digits, numbers, one (x 165/rate); commas, stops (x its square)."""
    words = re.findall(r"[A-Za-z']+|\d+", text)
    body = text.rstrip(" .?!")
    r = 165 / rate
    said = [sum(len(w) for w in words if not w.isdigit()), sum(len(w) for w in words if w.isdigit()),
            sum(1 for w in words if w.isdigit()), 1]
    paused = [len(re.findall(r"[,:;]", body)), len(re.findall(r"[.?!](?=\s)", body))]
    return [x * r for x in said] + [x * r * r for x in paused]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rates", type=int, nargs="+", default=[120, 165, 250, 350])
    ap.add_argument("--fit", action="store_true", help="print the least-squares coefficients as well")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    texts = sentences()
    rows, real, out = [], [], {"sentences": len(texts), "rates": {}}
    for rate in args.rates:
        measured = [real_seconds(t, rate) for t in texts]
        rel = np.array([(spoken_seconds(t, rate) - m) / m for t, m in zip(texts, measured, strict=True)])
        out["rates"][rate] = {"relative_error_p5": round(float(np.percentile(rel, 5)), 3),
                              "relative_error_p95": round(float(np.percentile(rel, 95)), 3),
                              "within_15_percent": round(float(np.mean(np.abs(rel) <= 0.15)), 3)}
        rows += [features(t, rate) for t in texts]
        real += measured
    if args.fit:
        coef, *_ = np.linalg.lstsq(np.array(rows), np.array(real), rcond=None)
        out["fit"] = dict(zip(("letter", "digit", "number", "sentence", "comma", "stop"),
                              (round(float(c), 4) for c in coef), strict=True))
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{len(texts)} sentences")
        for rate, r in out["rates"].items():
            print(f"  {rate} wpm: estimate - real, relative: p5 {r['relative_error_p5']:+.2f}, p95 "
                  f"{r['relative_error_p95']:+.2f}; within 15 %: {r['within_15_percent']:.0%}")
        if args.fit:
            print("  fit (seconds at 165 wpm):", out["fit"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
