"""Card lint cost on hostile and large card files: time per 1,000 lines and peak memory, against the sample card.

Each case is linted (parsed and compiled, as `mahj card lint` does) in a fresh process, so its peak resident
memory is its own; the sample card, linted the same way in the same run, is the baseline. The cases: cards of
10,000 and 20,000 ordinary lines (their time ratio shows whether lint is linear: 2.0 is), cards of many and of
few lines that reach the card's limit of concrete hands, and the lines of alternatives that used to explode (a
205-byte and a 256-byte one). Goals (issue 31): under 1 s per 1,000 lines, at most 200 MB.
Run: ``python bench/bench_card_lint.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from engine.card import SAMPLE_CARD

CHILD = """
import json, resource, sys, time
t0 = time.perf_counter()
from engine.card import compile_card
text = open(sys.argv[1], encoding="utf-8").read()
start = time.perf_counter()
card, errors = compile_card(text, sys.argv[1])
print(json.dumps({"seconds": time.perf_counter() - start, "errors": len(errors),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def cases(folder: Path) -> dict[str, tuple[Path, int]]:
    """name -> (card file, hand lines)."""
    header = "card: bench\n"

    def card(name: str, lines: list[str]) -> tuple[Path, int]:
        path = folder / f"{name}.card"
        body = [f"[s{i // 50}]\n{line}" if i % 50 == 0 else line for i, line in enumerate(lines)]
        path.write_text(header + "\n".join(body) + "\n", encoding="utf-8")
        return path, len(lines)

    plain = "FF 2222a 44a 66b 8888c X25"
    return {
        "sample card (baseline)": (SAMPLE_CARD, 61),
        "10,000 ordinary lines": card("plain10k", [plain] * 10_000),
        "20,000 ordinary lines": card("plain20k", [plain] * 20_000),
        "1,000 lines of 216 hands each": card("heavy", ["111a|333a|555a|777a 2222b 3333c 444a X25 shift any"] * 1000),
        "12 lines of 1,620 hands each": card("few", ["111a|222a|333a|444a|555a|666a 2222b|3333b|4444b|5555b|6666b "
                                                     "3333c 444a X25 shift any"] * 12),
        "205-byte line of alternatives": card("alt205", [" ".join(["1|2|3|4|5|6|7"] * 14) + " X25"]),
        "256-byte line of alternatives": card("alt256", [" ".join(["1|2|3|4|5|6|7|8|9"] * 14)[:246] + " X25"]),
    }


def measure(path: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, timeout=600,
                         check=True)
    return json.loads(out.stdout)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        results = {name: measure(path) | {"lines": lines} for name, (path, lines) in cases(Path(tmp)).items()}
    base = results["sample card (baseline)"]
    print(f"{'case':32} {'lines':>7} {'s':>7} {'s/1000 lines':>13} {'peak MB':>8} {'x baseline MB':>14} errors")
    for name, r in results.items():
        per_k = r["seconds"] / max(r["lines"], 1) * 1000
        print(f"{name:32} {r['lines']:7,} {r['seconds']:7.3f} {per_k:13.3f} {r['peak_mb']:8.0f} "
              f"{r['peak_mb'] / base['peak_mb']:14.2f} {r['errors']}")
    ratio = results["20,000 ordinary lines"]["seconds"] / results["10,000 ordinary lines"]["seconds"]
    print(f"linearity: 20,000 lines take {ratio:.2f}x the time of 10,000 (2.0 = linear)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
