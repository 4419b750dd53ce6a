"""``mahj tournament serve``: the pages (standings, director, one scorer page per table) and the report API.

The same Starlette and uvicorn as the table display, and the same rules for who may do what: a request whose Host
header names another machine is refused (DNS rebinding; the name in the table cards' address counts as this
machine's); reading is open to this computer and needs a token from any other (the page opened with ``?token=``
keeps it in a strict same-site cookie for its own files); every request that writes needs a token in the URL or a
header, never the cookie alone. A table's token writes only its own table's reports; the director's token writes
everything. ``--public-standings`` opens the standings (and only them) to the whole LAN, for a screen in the hall.

Database work runs on a few threads (db.DB_THREADS); each answer goes out after its transaction committed.
"""

from __future__ import annotations

import errno
import json
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from importlib import resources
from typing import Any

from anyio import to_thread
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from assistant.display.app import _host_ok, _is_loopback, _token_of
from assistant.tournament import reports
from assistant.tournament.address import host_of
from assistant.tournament.connections import Limits, descriptor_capacity, guarded_protocol
from assistant.tournament.db import DB_THREADS, warm
from assistant.tournament.hands import fields_of, result_of
from assistant.tournament.rounds import close_round
from assistant.tournament.store import Role, Store, TournamentError
from assistant.tournament.workers import WorkerError, serve_as_worker, start_workers
from engine.tournament import east_of_game

STATIC = resources.files("assistant.tournament") / "static"
PAGES = {"standings": "standings.html", "director": "director.html", "table": "scorer.html"}
STATIC_FILES = {"tournament.css": "text/css", "common.js": "text/javascript", "standings.js": "text/javascript",
                "director.js": "text/javascript", "scorer.js": "text/javascript"}
COOKIE = "mahj_tournament_token"
#: How long a restart waits for its port: the workers of a server killed a moment ago still hold it briefly.
PORT_WAIT_S = 3.0
#: The largest body a request may have: a report with a whole hand is under 2 KiB; more is refused (413) before
#: it is read, so no sender can fill the server's memory or hold its event loop parsing.
MAX_BODY = 64 * 1024
#: How long a token found valid lets its sender's bodies be read without asking the database first (the report's
#: own transaction checks the token again, so a token replaced meanwhile still reports nothing).
TOKEN_SEEN_S = 10.0


def _error(exc: TournamentError, request: Request | None = None) -> JSONResponse:
    """The error as JSON. A refused POST closes its connection: its body may not have been read, and the sender
    must not be able to go on sending it (the server would have to read it to find the next request)."""
    close = request is not None and request.method == "POST"
    return JSONResponse({"error": str(exc)}, status_code=exc.status, headers={"Connection": "close"} if close else None)


def create_app(store: Store, public_standings: bool = False, on_ready: Callable[[], None] | None = None) -> Starlette:
    """The tournament app over ``store``; ``on_ready`` is called once it can answer (threads and connections
    ready)."""
    cards_host = host_of(store.address)  # the name on the table cards is this server's own

    def host_ok(request: Request) -> bool:
        return _host_ok(request, cards_host)

    async def role(request: Request, mutating: bool) -> Role | None:
        """The token's role; None for a reader on this computer with no token. Raises TournamentError."""
        if not host_ok(request):
            raise TournamentError("this server answers only to its own address (Host header refused)", 403)
        token = _token_of(request, cookie=not mutating, cookie_name=COOKIE)
        if not token and not mutating and _is_loopback(request):
            return None
        return await run_in_threadpool(store.role_of, token)

    def guarded(need: str, mutating: bool = False) -> Callable:
        """``need``: "read" (any token, or this computer), "table" (that table's or the director's token),
        "director"; "public" is "read" unless --public-standings opened it to the LAN."""

        def wrap(handler: Callable[..., Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
            async def endpoint(request: Request) -> Response:
                try:
                    if need == "public" and public_standings and host_ok(request):
                        who = None
                    else:
                        who = await role(request, mutating)
                    if need == "director" and (who or Role("local")).kind != "director" and (mutating or who):
                        raise TournamentError("this needs the director's token", 403)
                    if need == "table" and who is not None:
                        table = int(request.path_params.get("table", 0))
                        if not who.may_write(table):
                            raise TournamentError(f"this token is table {who.table}'s, not table {table}'s", 403)
                    return await handler(request, who)
                except TournamentError as exc:
                    return _error(exc, request)
            return endpoint
        return wrap

    async def body_of(request: Request) -> Any:
        """The JSON body, read only up to MAX_BODY bytes: a larger one is refused (413) by its Content-Length
        before any of it is read, or as soon as it passes MAX_BODY when it does not say its length."""
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_BODY:
            raise _too_large(f"{int(declared):,} bytes")
        data = bytearray()
        try:
            async for chunk in request.stream():
                data += chunk
                if len(data) > MAX_BODY:
                    raise _too_large(f"over {MAX_BODY // 1024} KiB")
        except ClientDisconnect:
            raise TournamentError("the sender went away before its body arrived", 400) from None
        try:
            return json.loads(data)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise TournamentError("the body must be JSON", 400) from None
        except RecursionError:
            raise TournamentError("the body is nested too deeply", 400) from None

    def page(name: str) -> Callable:
        async def handler(request: Request, who: Role | None) -> Response:
            response = FileResponse(str(STATIC / PAGES[name]), headers={"Cache-Control": "no-store"})
            token = request.query_params.get("token", "")
            if token and who is not None:
                response.set_cookie(COOKIE, token, httponly=True, samesite="strict")
            return response
        return handler

    async def index(request: Request) -> Response:
        return RedirectResponse("/standings")

    @guarded("public")
    async def static(request: Request, who: Role | None) -> Response:
        name = request.path_params["name"]
        if name not in STATIC_FILES:
            return JSONResponse({"error": "no such file"}, status_code=404)
        return FileResponse(str(STATIC / name), media_type=STATIC_FILES[name])

    @guarded("public")
    async def standings_api(request: Request, who: Role | None) -> Response:
        return JSONResponse(await run_in_threadpool(standings_view, store))

    @guarded("director")
    async def director_api(request: Request, who: Role | None) -> Response:
        return JSONResponse(await run_in_threadpool(director_view, store))

    @guarded("table")
    async def table_api(request: Request, who: Role | None) -> Response:
        table = int(request.path_params["table"])
        if not 1 <= table <= store.tables:
            raise TournamentError(f"table {table}: this tournament has tables 1..{store.tables}", 404)
        return JSONResponse(await run_in_threadpool(table_view, store, table))

    seen: dict[str, float] = {}  # tokens found valid lately, and until when that holds

    async def post_report(request: Request) -> Response:
        """The busiest request. The token is checked before the body is read (a sender without a valid token
        cannot make the server read anything), then again with the report in the report's own transaction."""
        try:
            if not host_ok(request):
                raise TournamentError("this server answers only to its own address (Host header refused)", 403)
            token = _token_of(request, cookie=False)
            if seen.get(token, 0.0) < time.monotonic():
                await run_in_threadpool(store.role_of, token)
                if len(seen) >= 4096:  # more tokens than any event has: someone is cycling them
                    seen.clear()
                seen[token] = time.monotonic() + TOKEN_SEEN_S
            body = await body_of(request)
            return JSONResponse(await run_in_threadpool(reports.submit, store, token, body))
        except TournamentError as exc:
            return _error(exc, request)

    @guarded("director", mutating=True)
    async def post_dispute(request: Request, who: Role | None) -> Response:
        body = await body_of(request)
        if not isinstance(body, dict) or not isinstance(body.get("keep"), bool):
            raise TournamentError('say {"keep": true} (the counted result stands) or false (count this report)')
        out = await run_in_threadpool(reports.resolve, store, int(request.path_params["id"]), body["keep"],
                                      str(body.get("who", "")), str(body.get("why", "")))
        return JSONResponse(out)

    @guarded("director", mutating=True)
    async def post_correction(request: Request, who: Role | None) -> Response:
        body = await body_of(request)
        if not isinstance(body, dict):
            raise TournamentError("a correction is a report with who and why")
        out = await run_in_threadpool(reports.correct, store, body, str(body.get("who", "")),
                                      str(body.get("why", "")))
        return JSONResponse(out)

    @guarded("director", mutating=True)
    async def post_round(request: Request, who: Role | None) -> Response:
        body = await body_of(request)
        if not isinstance(body, dict):
            raise TournamentError('say {"force": false, "who": NAME}')
        closed = await run_in_threadpool(close_round, store, bool(body.get("force")),
                                         str(body.get("who") or "director"))
        return JSONResponse(closed.to_json())

    routes = [Route("/", index), Route("/static/{name}", static),
              Route("/standings", guarded("public")(page("standings"))),
              Route("/director", guarded("director")(page("director"))),
              Route("/table/{table:int}", guarded("table")(page("table"))),
              Route("/api/standings", standings_api), Route("/api/director", director_api),
              Route("/api/table/{table:int}", table_api),
              Route("/api/reports", post_report, methods=["POST"]),
              Route("/api/disputes/{id:int}", post_dispute, methods=["POST"]),
              Route("/api/corrections", post_correction, methods=["POST"]),
              Route("/api/round", post_round, methods=["POST"])]
    async def database_down(request: Request, exc: Exception) -> Response:
        """The database went away mid-request: nothing was acknowledged, so the sender may simply send again."""
        return JSONResponse({"error": f"the database is not answering ({type(exc).__name__}); nothing was saved, "
                                      "send again in a moment"}, status_code=503)

    from sqlalchemy.exc import DBAPIError

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        to_thread.current_default_thread_limiter().total_tokens = DB_THREADS
        await to_thread.run_sync(warm, store.engine)  # the connections (and anyio's worker code) before any report
        if on_ready is not None:
            on_ready()
        yield

    return Starlette(routes=routes, exception_handlers={DBAPIError: database_down}, lifespan=lifespan)


def _too_large(size: str) -> TournamentError:
    return TournamentError(f"the body is {size}; this server takes at most {MAX_BODY // 1024} KiB (one game's "
                           "report, or one decision, per request)", 413)


def _summary(body_json: str) -> dict[str, Any]:
    data = json.loads(body_json)
    return fields_of(result_of(body_json)) | {"line": data.get("line"), "east": data.get("east")}


def standings_view(store: Store) -> dict[str, Any]:
    """The standings page's data, from one snapshot: a hall screen polls it, so one connection, not three."""
    with store.reader.connect() as conn:
        current, rows, finished = store.current_round(conn), store.standings(conn), store.finished(conn)
    return {"tournament": store.name, "round": current, "rounds": store.rounds, "finished": finished,
            "standings": [r.to_json() for r in rows]}


def table_view(store: Store, table: int) -> dict[str, Any]:
    """What the scorer page shows: the round, who sits where, who is East, what is counted, the card's lines; and
    the tournament's ``event`` identity, which a camera table records with each report it queues."""
    from sqlalchemy import select

    from assistant.tournament import db

    with store.reader.connect() as conn:
        current, finished = store.current_round(conn), store.finished(conn)
        seats = store.seating(current, conn).get(table, {})
        rows = conn.execute(select(db.results.c.game, db.results.c.points, db.reports.c.body)
                            .join(db.reports, db.reports.c.id == db.results.c.report_id)
                            .where(db.results.c.round == current, db.results.c.table_no == table)).all()
    counted = {g: {"points": json.loads(p), "result": _summary(b)} for g, p, b in rows}
    east = {g: east_of_game(g, list(seats)) if len(seats) == 4 or g <= len(seats) else None
            for g in range(1, store.games_per_round + 1)}
    return {"tournament": store.name, "event": store.event, "table": table, "round": current,
            "rounds": store.rounds, "finished": finished, "games_per_round": store.games_per_round, "seats": seats,
            "east": east,
            "counted": {str(g): v for g, v in sorted(counted.items())},
            "lines": [{"section": ln.section, "number": ln.number, "value": ln.value, "text": ln.text}
                      for ln in store.card.lines], "card": store.card.name}


def director_view(store: Store) -> dict[str, Any]:
    from sqlalchemy import select

    from assistant.tournament import db

    with store.reader.connect() as conn:
        current, finished = store.current_round(conn), store.finished(conn)
        disputes = reports.open_disputes(conn)
        counted = {(r, t, g): b for r, t, g, b in conn.execute(
            select(db.results.c.round, db.results.c.table_no, db.results.c.game, db.reports.c.body)
            .join(db.reports, db.reports.c.id == db.results.c.report_id)).all()}
    queue = [{"id": d["id"], "round": d["round"], "table": d["table_no"], "game": d["game"], "source": d["source"],
              "sent_at": d["sent_at"].isoformat(), "reported": _summary(d["body"]),
              "counted": _summary(counted[d["round"], d["table_no"], d["game"]])} for d in disputes]
    log = [{k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in c.items()}
           for c in reports.corrections_log(store)]
    return {"tournament": store.name, "round": current, "rounds": store.rounds, "finished": finished,
            "games_per_round": store.games_per_round, "tables": reports.table_status(store, current),
            "disputes": queue, "corrections": log}


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound before serving so ``--port 0`` can print the port it got."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, not 0: asyncio turns Nagle off only on sockets that say TCP, and with Nagle on every
    # answer waited ~40 ms for the phone's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    deadline = time.monotonic() + PORT_WAIT_S
    while True:
        try:
            sock.bind((host, port))
            break
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE or time.monotonic() > deadline:
                sock.close()
                raise
            time.sleep(0.1)
    sock.listen(2048)  # connections wait in the backlog until uvicorn accepts them: none refused at start-up
    return sock


def serve(store: Store, host: str, port: int, public_standings: bool = False, as_json: bool = False,
          workers: int = 1, limits: Limits | None = None) -> int:
    """Serve until Ctrl-C or SIGTERM with ``workers`` processes; prints the addresses (one JSON line with
    ``--json``) once every process can answer. ``limits``: the request timeout and connections per address
    (their capacity follows the descriptors each process may open)."""
    import uvicorn

    try:
        sock = listen(host, port)
    except OSError as exc:
        raise TournamentError(f"cannot listen on {host}:{port} ({exc.strerror}); pass --port N (0 = any free)", 409) \
            from None
    store.card  # compiled once now, not on the first report  # noqa: B018
    try:
        part = start_workers(store.engine, workers - 1)
    except WorkerError as exc:
        raise TournamentError(str(exc), 400) from None

    limits = replace(limits or Limits(), capacity=descriptor_capacity())  # inherited by the workers

    def run(on_ready: Callable[[], None]) -> None:
        config = uvicorn.Config(create_app(store, public_standings, on_ready), log_level="warning",
                                lifespan="on", timeout_graceful_shutdown=2, http=guarded_protocol(limits))
        uvicorn.Server(config).run(sockets=[sock])

    if part.is_worker:
        serve_as_worker(lambda: run(part.ready))
    try:
        part.ready()
    except WorkerError as exc:
        part.stop()
        raise TournamentError(str(exc), 500) from None
    real = sock.getsockname()[1]
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    base = f"http://{shown}:{real}"
    urls = {"standings": f"{base}/standings", "director": f"{base}/director?token=DIRECTOR_TOKEN",
            "table": f"{base}/table/N?token=TABLE_TOKEN", "port": real}

    def announce() -> None:
        if as_json:
            print(json.dumps(urls), flush=True)
        else:
            print(f"{store.name}: standings {urls['standings']}\n  director's page: {urls['director']}\n"
                  f"  scorer pages: {urls['table']} (the table cards hold them)  (Ctrl-C to stop)", flush=True)

    # SIGTERM ends the server as Ctrl-C does (uvicorn raises it again once it has shut down), so the workers
    # are stopped and waited for below rather than left to notice their parent is gone.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        run(announce)
    except KeyboardInterrupt:
        pass
    finally:
        part.stop()
    sys.stdout.flush()
    return 0
