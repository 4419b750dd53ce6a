"""Compare a reader's event log with the true one: precision/recall per event type, latency, invented events.

An observed event matches a true one of the same type with the same identifying fields (below) whose true
moment lies at most ``early`` seconds after and at most ``late`` seconds before the observation's confirm time
``t``. Each true event matches at most once, in time order. Latency = observed ``t`` (when the reader
confirmed it) minus the true moment.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any


def key(ev: dict[str, Any]) -> tuple:
    """The fields that must agree for an observation to count as the true event."""
    kind = ev["type"]
    if kind == "discard_down":
        return kind, ev.get("seat"), ev.get("tile")
    if kind == "picked":
        return kind, ev.get("seat"), ev.get("wall_seat")
    if kind == "racked":
        return kind, ev.get("seat")
    if kind in ("exposure_placed", "hand_displayed"):
        return kind, ev.get("seat"), tuple(sorted(ev.get("tiles", ())))
    if kind == "joker_exchanged":
        return kind, ev.get("exposure_seat"), ev.get("tile")
    if kind == "camera_problem":
        return kind, ev.get("problem")
    return (kind,)


SCORED = ("discard_down", "picked", "racked", "exposure_placed", "joker_exchanged", "hand_displayed")
CAMERA = ("bumped", "frames_dropped")


@dataclass
class Score:
    tp: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    fp: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    fn: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    discard_seen_wrong_tile: int = 0
    invented_in_disturbance: list[dict] = field(default_factory=list)
    misses: list[dict] = field(default_factory=list)
    extras: list[dict] = field(default_factory=list)

    def add(self, other: Score) -> None:
        for name in ("tp", "fp", "fn"):
            for k, v in getattr(other, name).items():
                getattr(self, name)[k] += v
        for k, v in other.latencies.items():
            self.latencies[k] += v
        self.discard_seen_wrong_tile += other.discard_seen_wrong_tile
        self.invented_in_disturbance += other.invented_in_disturbance
        self.misses += other.misses
        self.extras += other.extras

    def precision(self, kind: str) -> float | None:
        n = self.tp[kind] + self.fp[kind]
        return self.tp[kind] / n if n else None

    def recall(self, kind: str) -> float | None:
        n = self.tp[kind] + self.fn[kind]
        return self.tp[kind] / n if n else None

    def table(self) -> dict[str, dict[str, Any]]:
        out = {}
        for kind in (*SCORED, *(f"camera_problem:{p}" for p in CAMERA)):
            if self.tp[kind] + self.fp[kind] + self.fn[kind] == 0:
                continue
            lat = sorted(self.latencies[kind])
            out[kind] = {"true": self.tp[kind] + self.fn[kind], "seen": self.tp[kind] + self.fp[kind],
                         "precision": self.precision(kind), "recall": self.recall(kind),
                         "latency_p50_ms": 1000 * lat[len(lat) // 2] if lat else None,
                         "latency_p95_ms": 1000 * lat[min(len(lat) - 1, int(0.95 * len(lat)))] if lat else None}
        return out


def _bucket(ev: dict[str, Any]) -> str | None:
    if ev["type"] in SCORED:
        return ev["type"]
    if ev["type"] == "camera_problem" and ev.get("problem") in CAMERA:
        return f"camera_problem:{ev['problem']}"
    return None


def score(observed: list[dict], truth: list[dict], disturbances: list[dict] = (), early: float = 0.1,
          late: float = 3.0, settle_after: float = 1.0) -> Score:
    """Score one recording. ``disturbances``: windows {kind, t0, t1} (occlusion, light, bump, drop) in which,
    plus ``settle_after`` seconds, an unmatched move observation counts as *invented in a disturbance*."""
    s = Score()
    obs = sorted((o for o in observed if _bucket(o)), key=lambda o: o["t"])
    pending = sorted((t for t in truth if _bucket(t)), key=lambda t: t["t"])
    used: set[int] = set()
    for o in obs:
        kind = _bucket(o)
        hit = None
        for i, t in enumerate(pending):
            if i in used or key(t) != key(o):
                continue
            if t["t"] - early <= o["t"] <= t["t"] + late:
                hit = i
                break
        if hit is None:
            s.fp[kind] += 1
            s.extras.append(o)
            if kind == "discard_down" and any(t["type"] == "discard_down" and t.get("seat") == o.get("seat")
                                              and abs(o["t"] - t["t"]) < late for t in pending):
                s.discard_seen_wrong_tile += 1
            if kind in SCORED and any(d["t0"] <= o["t"] <= d["t1"] + settle_after for d in disturbances):
                s.invented_in_disturbance.append(o)
            continue
        used.add(hit)
        s.tp[kind] += 1
        s.latencies[kind].append(o["t"] - pending[hit]["t"])
    for i, t in enumerate(pending):
        if i not in used:
            s.fn[_bucket(t)] += 1
            s.misses.append(t)
    return s
