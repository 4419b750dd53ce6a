"""A soak of a whole event against a real ``mahj tournament serve``, on SQLite and on PostgreSQL: 60 tables play
4 rounds of 4 games, every table reporting each game in the same instant, with random resends (the same report
again, and a camera agreeing with the scorer), disputes that two director stations decide at the same moment,
and each round closed with force while its slowest tables are still posting their last game (the last close
ends the tournament).

Checks (each failure is printed and the exit code is 1):

- every dispute is decided by exactly one station (200), the other told 409, and the log holds one entry each;
- every acknowledged result is counted exactly once: each game has one result, and it is the report the
  table was told was counted (or the one a director's decision put in its place); a report racing the close
  is either counted or told its round is closed, never counted and then replaced by "not finished in time";
- after the close, a table's resend of a counted report is answered "duplicate" and a new one refused;
- the standings equal a recomputation here, from what was acknowledged and decided, with bench_tournament's
  own MahjCon arithmetic and rotation (not the engine's).

Figures: p50/p95/max latency of the report requests sent when all the tables report at once (goal p95 <
100 ms) and the serving processes' peak resident memory (VmHWM, goal < 1 GB).

    python bench/soak_tournament.py [--db sqlite|postgresql+psycopg://...] [--tables 60] [--rounds 4]
        [--games 4] [--late 0.1] [--seed 1] [--workers N] [--json]

With no --db, runs SQLite, then PostgreSQL if MAHJ_TEST_POSTGRES_URL is set. tests/test_tournament_soak.py runs a
small one of each so that this script cannot rot.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_tournament import MOVE, Phone, expected_points, fresh_pg, phone_address, random_result  # noqa: E402
from tournament_kit import Server  # noqa: E402

from assistant.arguments import count_arg  # noqa: E402
from assistant.tournament.store import Store  # noqa: E402
from engine.card import SAMPLE_CARD, load_card  # noqa: E402
from engine.referee.profile import PROFILES_DIR  # noqa: E402

GOAL_P95_MS = 100.0
GOAL_RSS_MB = 1024.0
UNFINISHED = {"outcome": "time", "dead": [], "in_error": [], "penalties": []}


def peak_rss_mb(pid: int) -> dict[int, float]:
    """Peak resident memory (VmHWM) of the server and its worker processes, in MB."""
    pids = [pid]
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            pids += [int(p) for p in f.read().split()]
    except OSError:
        pass
    out = {}
    for p in pids:
        try:
            with open(f"/proc/{p}/status") as f:
                out[p] = next(int(x.split()[1]) for x in f if x.startswith("VmHWM:")) / 1024
        except (OSError, StopIteration):
            continue
    return out


class Soak:
    """One event played against one server; ``problems`` collects every check that failed."""

    def __init__(self, db_url: str, tables: int, rounds: int, games: int, late: float, seed: int,
                 workers: int) -> None:
        self.db_url, self.tables, self.rounds, self.games = db_url, tables, rounds, games
        self.rng = random.Random(seed)
        self.card = load_card(SAMPLE_CARD)
        self.names = [f"Player {i:03d}" for i in range(tables * 4)]
        profile = ((PROFILES_DIR / "mahjcon.toml").read_text(), "mahjcon")
        store, self.tokens = Store.create(db_url, "Soak Open", self.names, tables, rounds, games, profile,
                                          (SAMPLE_CARD.read_text(), str(SAMPLE_CARD)), seed=seed)
        first = {n: (t, x) for t, s in store.seating(1).items() for x, n in s.items()}
        store.close()
        self.seating = {1: first}
        for r in range(2, rounds + 1):  # 003's rotation, computed here
            self.seating[r] = {n: ((t - 1 + MOVE[x]) % tables + 1, x) for n, (t, x) in self.seating[r - 1].items()}
        self.late_count = max(1, round(late * tables))
        self.workers = workers
        self.server = Server(db_url, "--workers", str(workers))
        self.expected: dict[tuple[int, int, int], dict] = {}   # what must be counted, game by game
        self.counted_ack: dict[tuple[int, int, int], int] = {}  # the report each table was told was counted
        self.replaced: dict[tuple[int, int, int], int] = {}     # games a director's decision gave another report
        self.latencies: list[float] = []
        self.problems: list[str] = []
        self.counts = {"reports": 0, "duplicates": 0, "agrees": 0, "disputes": 0, "decided_twice": 0,
                       "late_counted": 0, "late_refused": 0}

    def body(self, r: int, t: int, g: int, result: dict, client: str | None = None, **kw) -> dict:
        return result | {"round": r, "table": t, "game": g, "client_id": client or uuid.uuid4().hex} | kw

    async def report(self, phone: Phone, body: dict, timed: bool) -> tuple[int, dict]:
        status, answer, seconds, _ = await phone.request("POST", "/api/reports", body)
        if timed:
            self.latencies.append(seconds)
        self.counts["reports"] += 1
        return status, answer

    async def table_game(self, phone: Phone, r: int, t: int, g: int, dispute: bool) -> None:
        """One table's game as its phone reports it, with the resends a hall's Wi-Fi causes."""
        result = random_result(self.rng, list(self.card.lines))
        body = self.body(r, t, g, result)
        status, answer = await self.report(phone, body, timed=True)
        if status != 200 or answer["status"] != "counted":
            self.problems.append(f"round {r} table {t} game {g}: {status} {answer}")
            return
        self.counted_ack[r, t, g] = answer["report"]
        self.expected[r, t, g] = result
        if self.rng.random() < 0.1:  # the phone did not see the answer
            status, again = await self.report(phone, body, timed=True)
            self.counts["duplicates"] += again.get("status") == "duplicate"
            if again.get("report") != answer["report"]:
                self.problems.append(f"round {r} table {t} game {g}: a resend was answered {status} {again}")
        if self.rng.random() < 0.05:  # a camera at the table agrees
            status, same = await self.report(phone, self.body(r, t, g, result, source="camera"), timed=True)
            self.counts["agrees"] += same.get("status") == "agrees"
        if dispute:  # a second sender reports something else: a dispute, changing nothing yet
            other = random_result(self.rng, list(self.card.lines))
            while other == result:
                other = random_result(self.rng, list(self.card.lines))
            status, out = await self.report(phone, self.body(r, t, g, other), timed=True)
            if out.get("status") != "disputed":
                self.problems.append(f"round {r} table {t} game {g}: a different report was answered {out}")
            else:
                self.counts["disputes"] += 1
                self.disputed[out["report"]] = ((r, t, g), other)

    async def decide_disputes(self, stations: tuple[Phone, Phone]) -> None:
        """Every open dispute decided by both stations at the same moment: one keeps, the other replaces."""
        _, view, _, _ = await stations[0].request("GET", "/api/director")
        for d in view["disputes"]:
            keep_first = self.rng.random() < 0.5
            decisions = [{"keep": keep_first, "who": "station 1", "why": "soak"},
                         {"keep": not keep_first, "who": "station 2", "why": "soak"}]
            answers = await asyncio.gather(*(s.request("POST", f"/api/disputes/{d['id']}", b)
                                             for s, b in zip(stations, decisions, strict=True)))
            ok = [a for a in answers if a[0] == 200]
            if len(ok) != 1 or sorted(a[0] for a in answers) != [200, 409]:
                self.counts["decided_twice"] += len(ok) > 1
                self.problems.append(f"dispute {d['id']} answered {[a[:2] for a in answers]}")
                continue
            if ok[0][1]["resolution"] == "replaced":
                report = next(rid for rid, ((r, t, g), _) in self.disputed.items()
                              if (r, t, g) == (d["round"], d["table"], d["game"]))
                key, other = self.disputed[report]
                self.expected[key] = other
                self.replaced[key] = report
        self.disputed.clear()

    async def close_with_late_tables(self, r: int, director: Phone, phones: dict[int, Phone], late: list[int]) -> None:
        """The round's slowest tables post their last game while the director forces the round closed."""
        g = self.games
        bodies = {t: self.body(r, t, g, random_result(self.rng, list(self.card.lines))) for t in late}
        close, *answers = await asyncio.gather(
            director.request("POST", "/api/round", {"force": True, "who": "soak"}),
            *(self.report(phones[t], bodies[t], timed=False) for t in late))
        if close[0] != 200 or close[1].get("closed") != r:
            self.problems.append(f"closing round {r}: {close[:2]}")
            return
        for t, (status, answer) in zip(late, answers, strict=True):
            result = {k: v for k, v in bodies[t].items() if k not in ("round", "table", "game", "client_id")}
            if status == 200 and answer.get("status") == "counted":
                self.counts["late_counted"] += 1
                self.counted_ack[r, t, g] = answer["report"]
                self.expected[r, t, g] = result
                again = await self.report(phones[t], bodies[t], timed=False)  # after the close: taken before
                if again[1].get("status") != "duplicate":
                    self.problems.append(f"round {r} table {t}: a counted report resent after the close: {again}")
            elif status == 409 and f"round {r} is closed" in answer.get("error", ""):
                self.counts["late_refused"] += 1
                self.expected[r, t, g] = UNFINISHED
            else:
                self.problems.append(f"round {r} table {t} game {g} racing the close: {status} {answer}")

    async def event(self) -> dict:
        port = self.server.port
        phones = {t: Phone(port, self.tokens[str(t)], phone_address(t)) for t in range(1, self.tables + 1)}
        director = Phone(port, self.tokens["director"], "127.0.9.1")
        stations = (Phone(port, self.tokens["director"], "127.0.9.2"), Phone(port, self.tokens["director"],
                                                                             "127.0.9.3"))
        self.disputed: dict[int, tuple[tuple[int, int, int], dict]] = {}
        for r in range(1, self.rounds + 1):
            late = sorted(self.rng.sample(range(1, self.tables + 1), self.late_count))
            for g in range(1, self.games + 1):
                playing = [t for t in phones if g < self.games or t not in late]
                disputing = set(self.rng.sample(playing, max(1, len(playing) // 30))) if g < self.games else set()
                await asyncio.gather(*(self.table_game(phones[t], r, t, g, t in disputing) for t in playing))
                await self.decide_disputes(stations)
            await self.close_with_late_tables(r, director, phones, late)
        _, standing, _, _ = await director.request("GET", "/api/standings")
        _, view, _, _ = await director.request("GET", "/api/director")
        return {"standings": standing, "director": view}

    def check(self, final: dict) -> None:
        from sqlalchemy import select

        from assistant.tournament import db

        store = Store.open(self.db_url)
        try:
            with store.engine.connect() as conn:
                results = {(r, t, g): rid for r, t, g, rid in conn.execute(
                    select(db.results.c.round, db.results.c.table_no, db.results.c.game, db.results.c.report_id))}
                corrections = conn.execute(select(db.corrections.c.id)).all()
            finished = store.finished()
        finally:
            store.close()
        games = self.tables * self.rounds * self.games
        if len(results) != games:
            self.problems.append(f"{len(results)} counted results for {games} games")
        for key, report in self.counted_ack.items():
            if results.get(key) != self.replaced.get(key, report):
                self.problems.append(f"round/table/game {key}: acknowledged report {report} is not the one "
                                     f"counted ({results.get(key)})")
        decided = self.counts["disputes"]
        if len(corrections) != decided + self.counts["late_refused"]:
            self.problems.append(f"{len(corrections)} corrections logged for {decided} decided disputes and "
                                 f"{self.counts['late_refused']} games closed unfinished")
        if not finished or not final["standings"].get("finished"):
            self.problems.append("the last forced close did not end the tournament")
        totals = dict.fromkeys(self.names, 0)
        for (r, t, _g), result in self.expected.items():
            who = {x: n for n, (tt, x) in self.seating[r].items() if tt == t}
            line = self.card.line(result["line"]["section"], result["line"]["number"]) if "line" in result else None
            points = expected_points(result, line.value if line else 0, bool(line and line.singles_and_pairs))
            for x, p in points.items():
                if x in who:
                    totals[who[x]] += p
        got = {row["name"]: row["points"] for row in final["standings"]["standings"]}
        if got != totals:
            diff = [n for n in self.names if got.get(n) != totals[n]]
            self.problems.append(f"standings differ from the recomputation for {len(diff)} players, e.g. "
                                 + ", ".join(f"{n}: {got.get(n)} != {totals[n]}" for n in diff[:3]))

    def run(self) -> dict:
        self.server.start()
        t0 = time.perf_counter()
        try:
            final = asyncio.run(self.event())
            rss = peak_rss_mb(self.server.proc.pid)
        finally:
            self.server.stop()
        elapsed = time.perf_counter() - t0
        self.check(final)
        ms = sorted(x * 1000 for x in self.latencies)
        return {"db": self.db_url.split("://")[0], "workers": self.workers, "tables": self.tables,
                "rounds": self.rounds, "games_per_round": self.games, "seconds": round(elapsed, 1),
                "timed_requests": len(ms), "p50_ms": round(statistics.median(ms), 1),
                "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 1), "max_ms": round(ms[-1], 1),
                "peak_rss_mb": round(max(rss.values()), 1) if rss else None,
                "peak_rss_sum_mb": round(sum(rss.values()), 1) if rss else None,
                "counts": self.counts, "problems": self.problems}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", action="append", help="sqlite (a temporary file) or a postgresql+psycopg:// URL; "
                                                  "repeatable")
    ap.add_argument("--tables", type=count_arg, default=60)
    ap.add_argument("--rounds", type=count_arg, default=4)
    ap.add_argument("--games", type=count_arg, default=4, help="games per round")
    ap.add_argument("--late", type=float, default=0.1, help="share of tables still posting their last game "
                                                            "when the round is forced closed")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=count_arg,
                    help="the server's --workers (default: one per CPU core on PostgreSQL, 1 on SQLite)")
    ap.add_argument("--json", action="store_true", help="one JSON object per database")
    args = ap.parse_args()
    targets = args.db or ["sqlite"] + ([os.environ["MAHJ_TEST_POSTGRES_URL"]]
                                       if os.environ.get("MAHJ_TEST_POSTGRES_URL") else [])
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for target in targets:
            sizes = (args.tables, args.rounds, args.games, args.late, args.seed)
            if target == "sqlite":
                results.append(Soak(f"sqlite:///{Path(tmp) / 'soak.db'}", *sizes, args.workers or 1).run())
                continue
            with fresh_pg(target) as url:
                results.append(Soak(url, *sizes, args.workers or os.cpu_count() or 1).run())
    for r in results:
        if args.json:
            print(json.dumps(r))
            continue
        p95 = "met" if r["p95_ms"] < GOAL_P95_MS else "NOT met"
        rss = "met" if r["peak_rss_mb"] is not None and r["peak_rss_sum_mb"] < GOAL_RSS_MB else "NOT met"
        print(f"{r['db']} ({r['workers']} server processes): {r['tables']} tables x {r['rounds']} rounds x "
              f"{r['games_per_round']} games in {r['seconds']} s; {r['timed_requests']} reports sent at once: p50 "
              f"{r['p50_ms']} ms, p95 {r['p95_ms']} ms (goal < {GOAL_P95_MS:.0f}: {p95}), max {r['max_ms']} ms; "
              f"peak resident {r['peak_rss_mb']} MB per process, {r['peak_rss_sum_mb']} MB all together (goal < "
              f"{GOAL_RSS_MB:.0f}: {rss}); {r['counts']}")
        print("  checks: " + ("all passed (each dispute decided once, every acknowledged result counted once, "
                              "standings = recomputation)" if not r["problems"] else "; ".join(r["problems"])))
    return 1 if any(r["problems"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
