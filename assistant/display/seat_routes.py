"""The HTTP side of the private seat pages (``assistant.display.seats``): a phone's page and its API under
``/seat/TOKEN/``, and for whoever holds the table's token the seat links, their QR codes, a sheet to print and
a link's reissue. A wrong or old seat token gets a 404 that says to scan the seat's code again: it never learns
whether some other seat exists."""

from __future__ import annotations

import json
from collections.abc import Callable
from html import escape
from importlib import resources

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from assistant.display.seats import SeatPages
from assistant.rack_reading import MAX_PHOTO_BYTES, PhotoRefused, too_large

STATIC = resources.files("assistant.display") / "static"
#: The seat page's own files, served under its token so that a phone needs nothing else.
SEAT_FILES = {"hand.js": "text/javascript", "hand.css": "text/css", "tiles.js": "text/javascript"}
#: Every seat page answer: never cached, never indexed, and the token never sent on as a referrer.
PRIVATE = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex"}


def _gone() -> Response:
    return JSONResponse({"error": "This seat link does not work (any more): scan your seat's QR code again, or "
                                  "ask the table for a new link."}, status_code=404, headers=PRIVATE)


def _declared(request: Request) -> int:
    """The body's size as its Content-Length says (0 when it does not say)."""
    length = request.headers.get("content-length", "")
    return int(length) if length.isdigit() else 0


async def _body(request: Request, limit: int) -> bytes:
    """The request's body; ValueError as soon as it passes ``limit`` bytes (by its Content-Length, or as it comes),
    before the rest is read."""
    if _declared(request) > limit:
        raise ValueError(f"the body is {_declared(request)} bytes, more than {limit}")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ValueError(f"the body is more than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def seat_routes(pages: SeatPages, host_ok: Callable[[Request], bool],
                table_ok: Callable[[Request], bool]) -> list[Route]:
    """The routes; ``host_ok``: the display's DNS-rebinding check; ``table_ok``: the request carries the table's
    token (the display's own rule for changing the game)."""

    def seat(request: Request) -> int | None:
        return pages.seat_of(request.path_params["token"]) if host_ok(request) else None

    async def page(request: Request) -> Response:
        if seat(request) is None:
            return _gone()
        pages.warm()
        return FileResponse(str(STATIC / "hand.html"), headers=PRIVATE)

    async def slash(request: Request) -> Response:
        if seat(request) is None:
            return _gone()
        return RedirectResponse(f"/seat/{request.path_params['token']}/", headers=PRIVATE)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if seat(request) is None or name not in SEAT_FILES:
            return _gone()
        return FileResponse(str(STATIC / name), media_type=SEAT_FILES[name], headers=PRIVATE)

    async def state(request: Request) -> Response:
        s = seat(request)
        if s is None:
            return _gone()
        return JSONResponse(await run_in_threadpool(pages.state, s), headers=PRIVATE)

    async def photo(request: Request) -> Response:
        s = seat(request)
        if s is None:
            return _gone()
        try:
            if _declared(request) > MAX_PHOTO_BYTES:  # refused before a byte is read or counted
                raise too_large(_declared(request))
            pages.admit(s)
        except PhotoRefused as exc:
            return JSONResponse({"error": str(exc)}, status_code=exc.status, headers=PRIVATE)
        try:
            try:
                data = await _body(request, MAX_PHOTO_BYTES)
            except ValueError:
                raise too_large() from None
            return JSONResponse(await run_in_threadpool(pages.read_photo, s, data), headers=PRIVATE)
        except PhotoRefused as exc:
            return JSONResponse({"error": str(exc)}, status_code=exc.status, headers=PRIVATE)
        finally:
            pages.release(s)

    async def posted(request: Request, limit: int, handle) -> Response:
        """A seat's JSON body (at most ``limit`` bytes) given to ``handle(seat, body)`` off the event loop;
        a body that is no JSON, nested too deeply or refused by ``handle`` is a 400 with its reason."""
        s = seat(request)
        if s is None:
            return _gone()
        try:
            body = json.loads(await _body(request, limit) or b"null")
            return JSONResponse(await run_in_threadpool(handle, s, body), headers=PRIVATE)
        except RecursionError:
            return JSONResponse({"error": "body: JSON nested too deeply"}, status_code=400, headers=PRIVATE)
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400, headers=PRIVATE)

    async def tiles(request: Request) -> Response:
        return await posted(request, 64 * 1024, pages.set_tiles)

    async def charleston(request: Request) -> Response:
        return await posted(request, 4096, pages.set_pass)

    async def clear(request: Request) -> Response:
        s = seat(request)
        return _gone() if s is None else JSONResponse(pages.clear(s), headers=PRIVATE)

    def refused() -> Response:
        return JSONResponse({"error": "the table's token is needed (open the display with the URL mahj printed)"},
                            status_code=403, headers=PRIVATE)

    async def links(request: Request) -> Response:
        if not table_ok(request):
            return refused()
        return JSONResponse({"seats": pages.links()}, headers=PRIVATE)

    async def reissue(request: Request) -> Response:
        if not table_ok(request):
            return refused()
        try:
            body = await request.json()
        except (json.JSONDecodeError, RecursionError):
            body = None
        s = body.get("seat") if isinstance(body, dict) else None
        if not isinstance(s, int) or isinstance(s, bool) or not 0 <= s <= 3:
            return JSONResponse({"error": "seat must be 0 (East), 1 (South), 2 (West) or 3 (North)"}, status_code=400)
        pages.reissue(s)
        return JSONResponse({"seat": s, "message": f"{pages.label(s)}: new link; the old one no longer works",
                             "seats": pages.links()}, headers=PRIVATE)

    async def sheet(request: Request) -> Response:
        if not table_ok(request):
            return refused()
        cards = "".join(f'<section class="card"><h2>{escape(x["label"])}</h2>{x["qr_svg"]}'
                        f'<p>Scan with your phone\'s camera to open your private page.</p>'
                        f'<p class="url">{escape(x["url"])}</p><p>Keep it to yourself: it shows your tiles.</p>'
                        f'</section>' for x in pages.links())
        return HTMLResponse(SHEET.replace("{cards}", cards), headers=PRIVATE)

    return [
        Route("/seat/{token}", slash), Route("/seat/{token}/", page),
        Route("/seat/{token}/api/state", state), Route("/seat/{token}/api/photo", photo, methods=["POST"]),
        Route("/seat/{token}/api/tiles", tiles, methods=["POST"]),
        Route("/seat/{token}/api/pass", charleston, methods=["POST"]),
        Route("/seat/{token}/api/clear", clear, methods=["POST"]),
        Route("/seat/{token}/{name}", static),
        Route("/api/seats", links), Route("/api/seats/reissue", reissue, methods=["POST"]),
        Route("/seats/print", sheet),
    ]


#: The printable sheet: four cards to cut apart, one per seat, black on white.
SHEET = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>mahj: seat links</title>
<style>body{font-family:"Noto Sans","DejaVu Sans",Arial,sans-serif;color:#000;background:#fff;margin:1rem}
main{display:grid;grid-template-columns:1fr 1fr;gap:1rem}.card{border:2px dashed #000;padding:1rem;
text-align:center;break-inside:avoid}.card svg{width:60mm;height:60mm}.url{font-family:monospace;
overflow-wrap:anywhere;font-size:.8rem}h1{font-size:1.4rem}</style></head><body><h1>mahj: each seat's private
page</h1><p>Cut along the lines and give each player her own card.</p><main>{cards}</main></body></html>"""
