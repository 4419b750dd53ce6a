"""Training to a wall-clock budget (datasets/budget.py), on a clock the test moves: the run fills its budget
whatever the machine's pace, also when its first steps ran slow."""

from __future__ import annotations

import numpy as np
import pytest

from datasets import budget


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def time(self) -> float:
        return self.now


@pytest.mark.parametrize("slow_steps", [0, 20, 60])
def test_a_run_fills_its_budget_even_when_its_first_steps_were_slow(monkeypatch, slow_steps):
    """Steps take 0.01 s, the first ``slow_steps`` 1 s (the machine busy with other work while the run set its
    pace: paced once, the 20-step case stopped after 21 s of its 60): the run still ends within an epoch of its
    minute, with the learning rate brought down to zero."""
    clock = Clock()
    monkeypatch.setattr(budget.time, "time", clock.time)
    rates: list[float] = []

    def step(idx: np.ndarray, rate: float) -> float:
        clock.now += 1.0 if len(rates) < slow_steps else 0.01
        rates.append(rate)
        return 0.0

    saved: list[str] = []
    best = budget.train_to_budget(300 * 8, 8, 1.0, np.random.default_rng(0), "test", step,
                                  lambda: (len(rates) / 1000, ""), lambda name, epoch, score: saved.append(name))
    assert 60 - 3 <= clock.now <= 60 + 3, clock.now           # an epoch is 300 steps, 3 s at full pace
    assert rates[-1] < 0.05
    assert best == len(rates) / 1000 and saved.count("last") == -(-len(rates) // 300)
