"""Keeping the server's connections within bounds, whatever a machine on the hall's Wi-Fi holds open.

uvicorn closes a connection left idle after an answer (``timeout_keep_alive``), but never one that has not yet
sent a whole request: a few hundred connections that send nothing, or a header a byte at a time, used to keep
every descriptor of the process and lock the tables out. ``guarded_protocol`` wraps uvicorn's HTTP protocol
(httptools or h11, whichever uvicorn picked) so that, in each serving process:

- a request must arrive whole (head and body) within ``request_timeout_s`` of the connection opening or of the
  previous answer, else it is answered 408 and the connection closed;
- a request's head may take at most MAX_HEAD bytes (else 431 and closed): uvicorn's httptools parser gathers a
  header without bound, by concatenation, so one endless header held the event loop and grew its memory;
- one address holds at most ``per_address`` connections: another is answered 429 and closed at once;
- all addresses together hold at most ``capacity`` connections, from the descriptors the process may open
  (``descriptor_capacity``): at the cap, a new connection closes the oldest one that holds no request in hand
  (idle or still sending), so a table's report always gets in, and only then is one refused (503).

A request that arrived whole is never cut off while the server works on it.
"""

from __future__ import annotations

import asyncio
import json
import resource
from collections import Counter
from dataclasses import dataclass

from uvicorn.protocols.http.auto import AutoHTTPProtocol

#: Descriptors kept for everything but connections: database connections, the listening socket, files, pipes.
RESERVE = 64
#: The most descriptors the server raises its own limit to (the soft limit goes up to the hard one).
MAX_FILES = 65536
#: The most bytes taken from a connection while no request head has been completed: a head is under 2 KiB, and
#: one read may bring a whole report (at most 64 KiB, web.MAX_BODY) with its head.
MAX_HEAD = 128 * 1024


@dataclass(frozen=True)
class Limits:
    """What one serving process allows (``mahj tournament serve --request-timeout``, ``--per-address``)."""

    request_timeout_s: float = 10.0
    per_address: int = 32
    capacity: int = 1024 - RESERVE


def descriptor_capacity() -> int:
    """Raise this process's soft limit on open files to its hard limit (at most MAX_FILES), and return how many
    connections that leaves room for."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = MAX_FILES if hard == resource.RLIM_INFINITY else min(hard, MAX_FILES)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError):
            pass  # kept as it was: the capacity below follows it
    files = MAX_FILES if soft == resource.RLIM_INFINITY else soft
    return max(files - RESERVE, 16)


def _answer(status: int, reason: str, message: str) -> bytes:
    body = json.dumps({"error": message}).encode()
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            "connection: close\r\n\r\n").encode() + body


class _Ledger:
    """The connections of one serving process, oldest first, and how many each address holds."""

    def __init__(self) -> None:
        self.live: dict[asyncio.Protocol, None] = {}  # insertion order: the oldest first
        self.per_address: Counter[str] = Counter()


def guarded_protocol(limits: Limits) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol class with ``limits`` (give it to ``uvicorn.Config(http=...)``). Call it in the
    serving process itself: the ledger of connections it makes is that process's own."""
    ledger = _Ledger()

    class Guarded(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
        _deadline: asyncio.TimerHandle | None = None
        _address: str | None = None
        _head_bytes = 0  # received since the last request head was completed (or the connection opened)

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            address = self.client[0] if self.client else "?"
            if ledger.per_address[address] >= limits.per_address:
                self._refuse(429, "Too Many Requests", f"{address} already holds {limits.per_address} connections "
                             "to this server; close some (or wait for them to time out) and try again")
                return
            if len(ledger.live) >= limits.capacity and not self._push_out_oldest():
                self._refuse(503, "Service Unavailable", "the server holds as many connections as it can; try "
                             "again in a moment")
                return
            self._address = address
            ledger.per_address[address] += 1
            ledger.live[self] = None
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            if self._address is not None:
                ledger.live.pop(self, None)
                ledger.per_address[self._address] -= 1
                if not ledger.per_address[self._address]:
                    del ledger.per_address[self._address]
                self._address = None
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self.cycle is None or self.cycle.response_complete:  # no request head completed yet: part of one
                self._head_bytes += len(data)
                if self._head_bytes > MAX_HEAD:
                    self._refuse(431, "Request Header Fields Too Large", f"a request's head is at most "
                                 f"{MAX_HEAD // 1024} KiB")
                    return
            super().data_received(data)
            if self.cycle is not None and not self.cycle.response_complete:
                self._head_bytes = 0

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self._address is not None:
                ledger.live.pop(self, None)
                ledger.live[self] = None  # the youngest again: idle since this answer
                self._arm()

        def _in_hand(self) -> bool:
            """A whole request has arrived and is not answered yet (the app works on it)."""
            cycle = self.cycle
            return cycle is not None and not cycle.more_body and not cycle.response_complete

        def _arm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            self._deadline = self.loop.call_later(limits.request_timeout_s, self._expire)

        def _expire(self) -> None:
            self._deadline = None
            if self.transport.is_closing() or self._in_hand():
                return  # re-armed when the answer has gone out
            cycle = self.cycle
            if cycle is None or cycle.response_complete or not cycle.response_started:
                self.transport.write(_answer(408, "Request Timeout", f"the request did not arrive whole within "
                                                                    f"{limits.request_timeout_s:g} s"))
            self.transport.close()

        def _refuse(self, status: int, reason: str, message: str) -> None:
            self.transport.write(_answer(status, reason, message))
            self.transport.close()

        def _push_out_oldest(self) -> bool:
            """Close the oldest connection with no request in hand; False when every one has one."""
            for other in ledger.live:
                if not other._in_hand():
                    ledger.live.pop(other)  # counted out now; connection_lost follows
                    other.transport.close()
                    return True
            return False

    return Guarded
