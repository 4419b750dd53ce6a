"""The table display's web app (Starlette) and the thread that serves it (uvicorn).

Live updates use server-sent events: one-way is all the page needs, EventSource reconnects by itself after a
tablet sleeps, and it works through anything that passes plain HTTP. Corrections are ordinary POSTs.

Security model: reading is open to this computer; any request from another machine needs the token (so a
display bound to the LAN is not a public scoreboard), the page's own scripts and styles included: the page opened
with ``?token=`` leaves it in a strict same-site cookie, so its ``/static`` requests carry it. Every request that
changes the game needs the token in the URL or a header, always (so a web page in some other tab cannot forge an
"undo" against 127.0.0.1). A request whose Host header is a name other than this machine's (``localhost``, its
host name, or an IP address) is refused: that is how a DNS-rebinding page would reach the display.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import logging
import secrets
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable
from importlib import resources
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from assistant.display.seat_routes import seat_routes
from assistant.display.seats import SeatPages
from assistant.display.state import TableView
from engine.tiles import TileError, parse_tile

log = logging.getLogger(__name__)
STATIC = resources.files("assistant.display") / "static"

#: The page's own files, the only ones served under /static.
STATIC_FILES = {"display.js": "text/javascript", "tiles.js": "text/javascript", "display.css": "text/css"}
COOKIE = "mahj_token"

#: What a correction request may carry (checked here so the pipeline only ever sees clean requests).
CORRECTIONS = ("undo", "fix_tile", "fix_hand", "claim", "answer", "join", "ok", "cancel")


def check_correction(body: Any) -> dict:
    """Validate a correction request body; raises ValueError with a message for the person who sent it."""
    if not isinstance(body, dict) or body.get("action") not in CORRECTIONS:
        raise ValueError(f"action must be one of {', '.join(CORRECTIONS)}")
    action = body["action"]
    if action in ("undo", "ok", "cancel"):
        return {"action": action}
    if action == "join":
        out: dict = {"action": "join"}
        for key, message in (("east", "east must be 0 (East) .. 3 (North)"), ("turn", "turn must be 0 .. 3"),
                             ("wall", "wall must be a number of tiles 0..99")):
            value = body.get(key)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                      or not 0 <= value <= (99 if key == "wall" else 3)):
                raise ValueError(message)
            out[key] = value
        if all(out[k] is None for k in ("east", "turn", "wall")):
            raise ValueError("say at least one of east, turn, wall")
        return out
    if action == "answer":
        index, confirmed = body.get("id"), body.get("confirmed", True)
        if index is not None and (not isinstance(index, int) or isinstance(index, bool) or index < 0):
            raise ValueError("id must be the number of an open question (or left out: the newest)")
        if not isinstance(confirmed, bool):
            raise ValueError("confirmed must be true (yes, it is so) or false (no)")
        return {"action": "answer", "id": index, "confirmed": confirmed}
    if action in ("fix_tile", "fix_hand"):
        try:
            out = {"action": action, "tile": parse_tile(str(body.get("tile", "")))}
            return out | ({"as": parse_tile(str(body.get("as", "")))} if action == "fix_hand" else {})
        except TileError as exc:
            raise ValueError(str(exc)) from None
    seat = body.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 3:
        raise ValueError("seat must be 0 (East), 1 (South), 2 (West) or 3 (North)")
    purpose = body.get("purpose", "exposure")
    if purpose not in ("mahjong", "exposure"):
        raise ValueError("purpose must be mahjong or exposure")
    return {"action": "claim", "seat": seat, "purpose": purpose}


class Broadcaster:
    """Holds the latest snapshot and wakes every connected page when it changes (thread-safe publish)."""

    def __init__(self, initial: dict) -> None:
        self.snapshot: dict = initial
        self._subscribers: set[asyncio.Queue] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.closing = False

    def publish(self, snapshot: dict) -> None:
        self.snapshot = snapshot
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._wake)

    def _wake(self) -> None:
        for q in list(self._subscribers):
            if q.full():  # a slow page only ever needs the newest snapshot
                q.get_nowait()
            q.put_nowait(self.snapshot)

    async def stream(self) -> AsyncIterator[str]:
        q: asyncio.Queue = asyncio.Queue(maxsize=1)
        self._subscribers.add(q)
        try:
            yield f"data: {json.dumps(self.snapshot)}\n\n"
            while not self.closing:
                try:
                    snap = await asyncio.wait_for(q.get(), timeout=1.0)
                except TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                yield f"data: {json.dumps(snap)}\n\n"
        finally:
            self._subscribers.discard(q)


def _is_loopback(request: Request) -> bool:
    host = request.client.host if request.client else ""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host in ("localhost", "testclient")


def _token_of(request: Request, cookie: bool, cookie_name: str = COOKIE) -> str:
    """The token a request carries; the page's cookie (``cookie_name``: each app sets its own) counts only for
    reading (``cookie``)."""
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    given = request.headers.get("x-mahj-token") or request.query_params.get("token", "")
    return given or (request.cookies.get(cookie_name, "") if cookie else "")


def _host_ok(request: Request, also: str | None = None) -> bool:
    """Whether the Host header names this machine: localhost, its host name, an IP address or ``also`` (a name
    the server was given to be reached by); never some other name, which is what a DNS-rebinding page sends."""
    host = request.headers.get("host", "")
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host.rpartition("]")[0].lstrip("[") or host
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return name.lower() in own_names() | {also}


def own_names() -> set[str]:
    """The names this computer answers to by itself: localhost, its host name and its mDNS (.local) names."""
    me = socket.gethostname().lower()
    return {"localhost", me, f"{me}.local", f"{me.split('.')[0]}.local"}


def create_app(broadcaster: Broadcaster, token: str, text_size: int = 150,
               on_correction: Callable[[dict], dict] | None = None, seats: SeatPages | None = None) -> Starlette:
    """The display app. ``on_correction`` receives a checked correction and returns a JSON-able answer;
    ``seats``: each seat's private page (assistant/display/seats.py), served beside the display."""

    def allowed(request: Request, mutating: bool = False) -> bool:
        if not _host_ok(request):
            return False
        if not mutating and _is_loopback(request):
            return True
        return bool(token) and hmac.compare_digest(_token_of(request, cookie=not mutating).encode(), token.encode())

    def forbidden() -> Response:
        return JSONResponse({"error": "a valid token is needed (open the URL printed by mahj, with ?token=)"},
                            status_code=403)

    async def index(request: Request) -> Response:
        if not allowed(request):
            return forbidden()
        response = FileResponse(str(STATIC / "index.html"), headers={"Cache-Control": "no-store"})
        if hmac.compare_digest(request.query_params.get("token", "").encode(), token.encode()):  # for /static
            response.set_cookie(COOKIE, token, httponly=True, samesite="strict")
        return response

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC_FILES:
            return JSONResponse({"error": "no such file"}, status_code=404)
        if not allowed(request):
            return forbidden()
        return FileResponse(str(STATIC / name), media_type=STATIC_FILES[name])

    async def state(request: Request) -> Response:
        if not allowed(request):
            return forbidden()
        return JSONResponse(broadcaster.snapshot | {"text_size": text_size})

    async def events(request: Request) -> Response:
        if not allowed(request):
            return forbidden()
        return StreamingResponse(broadcaster.stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def correction(request: Request) -> Response:
        if not allowed(request, mutating=True):
            return forbidden()
        try:
            body = check_correction(await request.json())
        except json.JSONDecodeError:
            return JSONResponse({"error": "body must be JSON"}, status_code=400)
        except RecursionError:
            return JSONResponse({"error": "body: JSON nested too deeply"}, status_code=400)
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        if on_correction is None:
            return JSONResponse({"error": "corrections are not available here"}, status_code=503)
        try:
            return JSONResponse(on_correction(body))
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=409)

    private = [] if seats is None else seat_routes(seats, _host_ok, lambda r: allowed(r, mutating=True))
    return Starlette(routes=[
        Route("/", index), Route("/api/state", state), Route("/events", events),
        Route("/api/correction", correction, methods=["POST"]),
        Route("/static/{name}", static), *private,
    ])


class DisplayServer:
    """Serves the display from a daemon thread; ``publish`` is safe to call from the pipeline thread."""

    def __init__(self, host: str = "127.0.0.1", port: int = 8765, token: str = "", text_size: int = 150,
                 on_correction: Callable[[dict], dict] | None = None, initial: dict | None = None,
                 seats: SeatPages | None = None) -> None:
        self.host = host
        self.token = token or secrets.token_urlsafe(12)
        self.broadcaster = Broadcaster(initial or TableView().snapshot())
        self.seats = seats
        if seats is not None:  # a seat's page advises from what the display shows everyone, never more
            seats.snapshot = lambda: self.broadcaster.snapshot
        self.app = create_app(self.broadcaster, self.token, text_size, on_correction, seats)
        config = uvicorn.Config(self.app, host=host, port=port, log_level="warning", lifespan="off",
                                timeout_graceful_shutdown=2)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._serve, name="display", daemon=True)

    def _serve(self) -> None:
        async def main() -> None:
            self.broadcaster.loop = asyncio.get_running_loop()
            await self._server.serve()
        asyncio.run(main())

    def start(self, timeout: float = 10.0) -> DisplayServer:
        self._thread.start()
        end = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > end:
                raise OSError(f"display could not start on {self.host}:{self._server.config.port} "
                              "(port in use? set display.port in the profile)")
            time.sleep(0.02)
        if self.seats is not None:
            self.seats.base_url = f"http://{self.reachable_host}:{self.port}"
        return self

    @property
    def reachable_host(self) -> str:
        """The address other machines (a player's phone) reach this display at: its LAN address when it listens
        on every interface, else the one it was given (127.0.0.1: this computer only)."""
        if self.host in ("0.0.0.0", "::"):
            from assistant.tournament.address import lan_address

            return lan_address() or "127.0.0.1"
        return self.host

    @property
    def port(self) -> int:
        for server in self._server.servers:
            for sock in server.sockets:
                return sock.getsockname()[1]
        return self._server.config.port

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
        return f"http://{host}:{self.port}/?token={self.token}"

    def publish(self, snapshot: dict) -> None:
        self.broadcaster.publish(snapshot)

    def stop(self) -> None:
        self.broadcaster.closing = True
        self._server.should_exit = True
        self._thread.join(timeout=5)
