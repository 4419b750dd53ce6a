"""A simulated tournament over HTTP: 60 tables x 4 rounds x 4 games (240 players, 960 games), every table
reporting at once, against a real ``mahj tournament serve`` on SQLite and on PostgreSQL.

Checks (each failure is printed and the exit code is 1): no result lost or counted twice (each acknowledged
report is in the database, exactly one counted result per game), standings equal to an independent
recomputation here (its own MahjCon arithmetic and its own rotation, not the engine's), and nothing
acknowledged lost when the server is killed with SIGKILL in the middle of round 2 and started again (senders
retry with the same client id). About one report in ten is sent twice and one in twenty also by a second
sender (a camera agreeing with the scorer), so the idempotency is exercised under load.

Reports p50/p95/max latency of the report requests (those in flight at the kill are counted apart). With
``--spread S`` each game's reports arrive at random moments within S seconds instead of in the same instant.
The server runs ``--workers`` processes (by default one per CPU core on PostgreSQL, one on SQLite); the killed
server is killed with its workers, as in a power cut.

    python bench/bench_tournament.py [--db sqlite|postgresql+psycopg://...] [--tables 60] [--seed 1] [--spread S]
        [--workers N]

With no --db, runs SQLite, then PostgreSQL if MAHJ_TEST_POSTGRES_URL is set.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from tournament_kit import Server  # noqa: E402

from assistant.arguments import count_arg  # noqa: E402
from assistant.tournament.store import Store  # noqa: E402
from engine.card import SAMPLE_CARD, load_card  # noqa: E402
from engine.referee.profile import PROFILES_DIR  # noqa: E402

ROUNDS, GAMES = 4, 4
GOAL_P95_MS = 100.0
MOVE = {"A": 0, "B": 1, "C": 2, "D": -1}  # the rotation of rules text 003, written out again for the check


def random_result(rng: random.Random, lines: list) -> dict:
    """One game's result as a scorer would send it (a card line for a win)."""
    roll = rng.random()
    seats = ["A", "B", "C", "D"]
    body: dict = {"dead": [], "in_error": [], "penalties": []}
    if rng.random() < 0.08:
        body["penalties"] = [{"seat": rng.choice(seats), "kind": "blind_pass_peek"}]
    if roll < 0.7:
        winner = rng.choice(seats)
        others = [s for s in seats if s != winner]
        line = rng.choice(lines)
        body |= {"outcome": "mahjong", "winner": winner, "line": {"section": line.section, "number": line.number},
                 "jokerless": rng.random() < 0.25, "exposures": rng.choice((0, 1, 2, 2, 3)),
                 "quint": rng.random() < 0.1}
        if rng.random() < 0.3:
            body["self_picked"] = True
        else:
            body["discarder"] = rng.choice(others)
        if rng.random() < 0.1:
            body["dead"] = [rng.choice([s for s in others if s != body.get("discarder")])]
    elif roll < 0.9:
        body |= {"outcome": "wall_game", "dead": [rng.choice(seats)] if rng.random() < 0.2 else []}
    else:
        body["outcome"] = "time"
    return body


def expected_points(body: dict, value: int, singles_and_pairs: bool) -> dict[str, int]:
    """The MahjCon points of one game, computed independently of the engine."""
    pts = dict.fromkeys("ABCD", 0)
    out = set(body["dead"]) | set(body["in_error"])
    if body["outcome"] == "mahjong":
        w = body["winner"]
        pts[w] = value + (10 if body.get("self_picked") else 0)
        pts[w] += 20 if body["jokerless"] and not singles_and_pairs else 0
        d = body.get("discarder")
        if d:
            n = body["exposures"]
            pts[d] += -25 if n >= 3 or (n == 2 and body["quint"]) else -20 if n == 2 else 0
    elif body["outcome"] == "wall_game":
        for s in pts:
            pts[s] = 0 if s in out else 10
    for p in body["penalties"]:
        pts[p["seat"]] -= 10
    return pts


def phone_address(n: int) -> str:
    """The n-th phone's own loopback address (127.0.1.1, 127.0.1.2, ...): in a hall each phone has an address of
    its own, and the server limits the connections one address may hold."""
    return f"127.0.{1 + n // 250}.{1 + n % 250}"


class Phone:
    """One table's phone: a keep-alive HTTP/1.1 connection that resends with the same client id until the server
    answers. The 60 phones share one asyncio loop in this process: in an event they are 60 other devices, so
    they should cost the server's machine as little as possible (60 threads of http.client cost about four
    times the CPU, which the server then lacks). Each connects from ``source``, an address of its own."""

    def __init__(self, port: int, token: str, source: str = "127.0.0.1") -> None:
        self.port, self.token, self.source = port, token, source
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict, float, bool]:
        """(status, answer, seconds of the successful attempt, whether an attempt failed first)."""
        data = b"" if body is None else json.dumps(body).encode()
        head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nAuthorization: Bearer {self.token}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n").encode()
        failed = False
        deadline = time.monotonic() + 60
        while True:
            reused = self.streams is not None
            try:
                if self.streams is None:
                    self.streams = await asyncio.open_connection("127.0.0.1", self.port,
                                                                 local_addr=(self.source, 0))
                reader, writer = self.streams
                t0 = time.perf_counter()  # after connecting: a kept-alive phone's wait is the server's answer
                writer.write(head + data)
                status = int((await reader.readline()).split()[1])
                length = 0
                while (line := await reader.readline()) not in (b"\r\n", b""):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                answer = json.loads(await reader.readexactly(length) or b"{}")
                return status, answer, time.perf_counter() - t0, failed
            except (OSError, IndexError, ValueError, asyncio.IncompleteReadError):
                failed = failed or not reused  # a kept-alive connection the server closed when idle is no failure
                if self.streams is not None:
                    self.streams[1].close()
                self.streams = None
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)


def run(db_url: str, tables: int, seed: int, spread: float = 0.0, workers: int = 1) -> dict:
    rng = random.Random(seed)
    card = load_card(SAMPLE_CARD)
    lines = list(card.lines)
    names = [f"Player {i:03d}" for i in range(tables * 4)]
    profile = ((PROFILES_DIR / "mahjcon.toml").read_text(), "mahjcon")
    store, tokens = Store.create(db_url, "Bench Open", names, tables, ROUNDS, GAMES, profile,
                                 (SAMPLE_CARD.read_text(), str(SAMPLE_CARD)), seed=seed)
    seating = {r: None for r in range(1, ROUNDS + 1)}
    seating[1] = {n: (t, x) for t, s in store.seating(1).items() for x, n in s.items()}
    store.close()
    server = Server(db_url, "--workers", str(workers)).start()
    plan = {(r, t, g): random_result(rng, lines) for r in range(1, ROUNDS + 1) for t in range(1, tables + 1)
            for g in range(1, GAMES + 1)}
    latencies: list[float] = []
    around_kill: list[float] = []
    acked: list[dict] = []
    problems: list[str] = []
    kill_at = tables * GAMES + tables * 2 + tables // 2  # in round 2, with its games 3 in flight
    progress = tqdm(total=len(plan), desc=f"reports ({db_url.split(':')[0]})", unit="game", file=sys.stderr)
    killed = threading.Event()
    reported = [0]

    def restart() -> None:
        server.kill()
        server.start()

    async def table_game(phone: Phone, round_no: int, table: int, game: int) -> None:
        if spread:
            pause = random.Random(seed * 100_000 + round_no * 1000 + table * 10 + game)
            await asyncio.sleep(pause.uniform(0, spread))  # the game ends somewhere in the spread, not all at once
        body = plan[round_no, table, game] | {"round": round_no, "table": table, "game": game,
                                              "client_id": uuid.uuid4().hex}
        sends = [body]
        if rng.random() < 0.1:
            sends.append(body)  # a resend (the phone did not see the answer)
        if rng.random() < 0.05:
            sends.append(body | {"client_id": uuid.uuid4().hex, "source": "camera"})
        for b in sends:
            status, answer, seconds, failed = await phone.request("POST", "/api/reports", b)
            (around_kill if failed else latencies).append(seconds)
            if status != 200:
                problems.append(f"round {round_no} table {table} game {game}: HTTP {status} {answer}")
            else:
                acked.append(answer)
        reported[0] += 1
        progress.update(1)
        if reported[0] == kill_at and not killed.is_set():
            killed.set()
            threading.Thread(target=restart, daemon=True).start()

    async def event() -> tuple[dict, dict]:
        phones = {t: Phone(server.port, tokens[str(t)], phone_address(t)) for t in range(1, tables + 1)}
        director = Phone(server.port, tokens["director"])
        for round_no in range(1, ROUNDS + 1):
            for game in range(1, GAMES + 1):  # every table's game ends together
                await asyncio.gather(*(table_game(phones[t], round_no, t, game) for t in phones))
            if round_no < ROUNDS:
                status, answer, _, _ = await director.request("POST", "/api/round", {"force": False, "who": "bench"})
                if status != 200:
                    problems.append(f"round next after round {round_no}: {answer}")
                prev = seating[round_no]
                seating[round_no + 1] = {n: ((t - 1 + MOVE[x]) % tables + 1, x) for n, (t, x) in prev.items()}
        _, table1, _, _ = await phones[1].request("GET", "/api/table/1")
        _, standing, _, _ = await director.request("GET", "/api/standings")
        return table1, standing

    t_start = time.perf_counter()
    table1, standing = asyncio.run(event())
    elapsed = time.perf_counter() - t_start
    progress.close()
    server.stop()

    # The server's seating of the last round must be the rotation computed here.
    final = {n: (t, x) for t, s in Store.open(db_url).seating(ROUNDS).items() for x, n in s.items()}
    if final != seating[ROUNDS]:
        problems.append("the last round's seating is not the rotation of 003")
    if table1["seats"] != {x: n for n, (t, x) in sorted(seating[ROUNDS].items(), key=lambda i: i[1]) if t == 1}:
        problems.append("table 1's page shows another seating")
    totals = dict.fromkeys(names, 0)
    for (r, t, _game), body in plan.items():
        who = {x: n for n, (tt, x) in seating[r].items() if tt == t}
        line = card.line(body["line"]["section"], body["line"]["number"]) if "line" in body else None
        for x, p in expected_points(body, line.value if line else 0, bool(line and line.singles_and_pairs)).items():
            totals[who[x]] += p
    got = {row["name"]: row["points"] for row in standing["standings"]}
    if got != totals:
        diff = [n for n in names if got.get(n) != totals[n]]
        problems.append(f"standings differ from the recomputation for {len(diff)} players, e.g. {diff[:3]}")
    if sum(row["games"] for row in standing["standings"]) != len(plan) * 4:
        problems.append("player-games counted is not 4 per game")
    # Every acknowledged report is in the database, and every game has exactly one counted result.
    from sqlalchemy import func, select

    from assistant.tournament import db

    store = Store.open(db_url)
    with store.engine.connect() as conn:
        ids = set(conn.execute(select(db.reports.c.id)).scalars())
        counted = conn.execute(select(func.count()).select_from(db.results)).scalar_one()
        statuses = dict(conn.execute(select(db.reports.c.status, func.count()).group_by(db.reports.c.status)).all())
    store.close()
    lost = [a for a in acked if a["report"] not in ids]
    if lost:
        problems.append(f"{len(lost)} acknowledged reports are not in the database")
    if counted != len(plan):
        problems.append(f"{counted} counted results for {len(plan)} games")
    ms = sorted(x * 1000 for x in latencies)
    return {"db": db_url.split("://")[0], "workers": workers, "spread_s": spread, "tables": tables,
            "games": len(plan),
            "requests": len(ms) + len(around_kill),
            "acknowledged": len(acked), "statuses": statuses, "seconds": round(elapsed, 1),
            "p50_ms": round(statistics.median(ms), 1), "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 1),
            "max_ms": round(ms[-1], 1), "retried_at_kill": len(around_kill), "killed_mid_round": killed.is_set(),
            "problems": problems}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", action="append", help="sqlite (a temporary file) or a postgresql+psycopg:// URL; "
                                                  "repeatable")
    ap.add_argument("--tables", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--spread", type=float, default=0.0,
                    help="seconds over which each game's reports arrive (0: every table in the same instant)")
    ap.add_argument("--workers", type=count_arg,
                    help="the server's --workers (default: one per CPU core on PostgreSQL, as docs/tournament.md "
                         "advises for a large event; 1 on SQLite, whose writers share one file lock)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    targets = args.db or ["sqlite"] + ([os.environ["MAHJ_TEST_POSTGRES_URL"]]
                                       if os.environ.get("MAHJ_TEST_POSTGRES_URL") else [])
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for target in targets:
            if target == "sqlite":
                results.append(run(f"sqlite:///{Path(tmp) / 'bench.db'}", args.tables, args.seed, args.spread,
                                   args.workers or 1))
                continue
            with fresh_pg(target) as url:
                results.append(run(url, args.tables, args.seed, args.spread, args.workers or os.cpu_count() or 1))
    for r in results:
        if args.json:
            print(json.dumps(r))
            continue
        met = "met" if r["p95_ms"] < GOAL_P95_MS else "NOT met"
        goal = "" if r["db"] == "sqlite" else f" (goal < {GOAL_P95_MS:.0f} ms: {met})"
        when = "at once" if not r["spread_s"] else f"spread over {r['spread_s']:g} s per game"
        print(f"{r['db']} ({r['workers']} server processes): {r['games']} games at {r['tables']} tables ({when}), "
              f"{r['requests']} report requests in "
              f"{r['seconds']} s; p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms{goal}, max {r['max_ms']} ms; "
              f"killed mid-round: {r['killed_mid_round']} ({r['retried_at_kill']} requests retried across it); "
              f"statuses {r['statuses']}")
        print("  checks: " + ("all passed (nothing lost or counted twice, standings = recomputation, rotation = "
                              "003)" if not r["problems"] else "; ".join(r["problems"])))
    return 1 if any(r["problems"] for r in results) else 0


@contextlib.contextmanager
def fresh_pg(url: str) -> Iterator[str]:
    """A schema of its own in the given database, so the bench never meets an earlier run's tournament; dropped
    when the run is over, so runs leave nothing behind."""
    import psycopg

    schema = f"bench_{uuid.uuid4().hex[:10]}"
    plain = url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


if __name__ == "__main__":
    sys.exit(main())
