"""Training the crop classifier (torch, on a CPU or a lent GPU) to a wall-clock budget.

The number of steps is set from the pace of the first 20, so the learning-rate schedule (50 warm-up steps,
then half a cosine to zero) ends when the budget does, whatever this machine's speed that day, and set again
every 20 steps from the pace of the last 20 (evaluations included): set once, a run whose first steps shared the
machine with other work was cut to 7 of its 18 minutes (an earlier network's run). Each epoch ends with an
evaluation; the last and the best weights are kept, so a run cut short still leaves its best epoch.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from tqdm import tqdm

#: Steps timed to set the run's length, and warm-up steps.
PACE_STEPS, WARMUP_STEPS = 20, 50


def start_run(threads: int, seed: int, out: str | Path) -> tuple[np.random.Generator, Path]:
    """Torch's threads and seed set, the run folder made; the run's numpy generator and folder."""
    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    return np.random.default_rng(seed), folder


def cached(path: Path, make: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The arrays saved at ``path``, or ``make()``'s, saved there first: cutting crops takes minutes, so a second
    run on the same data starts at once (delete the file after the data changes)."""
    if path.exists():
        return dict(np.load(path))
    arrays = make()
    np.savez(path, **arrays)
    return arrays


def train_to_budget(n: int, batch: int, minutes: float, rng: np.random.Generator, desc: str,
                    step: Callable[[np.ndarray, float], float], evaluate: Callable[[], tuple[float, str]],
                    save: Callable[[str, int, float], None]) -> float:
    """Shuffled epochs over ``n`` items in batches of ``batch`` until ``minutes`` have gone.

    ``step(indices, rate)`` trains on one batch at ``rate`` x the peak learning rate and returns its loss;
    ``evaluate()`` returns (score, higher is better; a line to print); ``save(name, epoch, score)`` keeps the
    weights as "last" after every epoch and as "best" when the score beats every earlier one. Returns the best.
    """
    steps_per_epoch = n // batch
    budget = minutes * 60
    t0 = paced = time.time()
    total: int | None = None
    done, best, epoch = 0, -1.0, 0
    bar = tqdm(desc=desc, unit="step")
    while True:
        perm = rng.permutation(n)
        for b in range(steps_per_epoch):
            if done and done % PACE_STEPS == 0:
                now = time.time()
                pace = (now - paced) / PACE_STEPS
                total = max(steps_per_epoch, int(budget / pace)) if total is None else \
                    done + max(1, int((budget - (now - t0)) / pace))
                bar.total, paced = total, now
            frac = done / total if total else 0.0
            rate = min(1.0, done / WARMUP_STEPS) * 0.5 * (1 + math.cos(math.pi * min(1.0, frac)))
            loss = step(perm[b * batch:(b + 1) * batch], rate)
            done += 1
            bar.update(1)
            bar.set_postfix(loss=f"{loss:.4f}", epoch=epoch)
            if total and done >= total:
                break
        epoch += 1
        score, line = evaluate()
        tqdm.write(f"epoch {epoch} step {done} {line}")
        save("last", epoch, score)
        if score > best:
            best = score
            save("best", epoch, score)
        if total and done >= total:
            break
    bar.close()
    return best
