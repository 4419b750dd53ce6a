"""More than one serving process for ``mahj tournament serve --workers N``.

One Python process works on one CPU core at a time; when every table of a large event reports in the same
minute, the reports queue behind it. ``start_workers`` forks more processes that accept on the same listening
socket, each with database connections of its own. Every process says when it can answer (its connections
open); the server prints its addresses only once all of them have, so the first burst after a (re)start finds
them ready. A worker whose parent is gone (killed, the machine's power cut) shuts down by itself, so the port
is free for the server's restart. Linux and macOS only (``os.fork``).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import dataclass, field

from sqlalchemy import Engine


class WorkerError(RuntimeError):
    """A serving process that did not start; the message says how many did."""


@dataclass
class Workers:
    """This process's part among the serving processes: the parent (``pids`` its workers) or a worker."""

    is_worker: bool
    pids: list[int] = field(default_factory=list)
    _ready_r: int = -1
    _ready_w: int = -1

    def ready(self) -> None:
        """This process can answer now. A worker tells the parent; the parent waits until every worker has."""
        if self.is_worker:
            os.write(self._ready_w, b"+")
            os.close(self._ready_w)
            return
        if not self.pids:
            return
        started = 0
        while started < len(self.pids) and (got := os.read(self._ready_r, len(self.pids))):
            started += len(got)
        os.close(self._ready_r)
        if started < len(self.pids):
            raise WorkerError(f"{started} of {len(self.pids)} extra serving processes started (see the errors "
                              "above)")

    def stop(self) -> None:
        """Ask each worker to finish its requests and stop (SIGTERM), and wait for it."""
        for pid in self.pids:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
        for pid in self.pids:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                continue


def start_workers(engine: Engine, n: int) -> Workers:
    """Fork ``n`` workers; in each of them and in the parent, returns that process's part."""
    if n < 1:
        return Workers(is_worker=False)
    parent = os.getpid()
    ready_r, ready_w = os.pipe()
    pids = []
    for _ in range(n):
        pid = os.fork()
        if pid == 0:
            os.close(ready_r)
            engine.dispose(close=False)  # the parent's pooled connections stay the parent's
            threading.Thread(target=_leave_with, args=(parent,), daemon=True).start()
            return Workers(is_worker=True, _ready_w=ready_w)
        pids.append(pid)
    os.close(ready_w)
    return Workers(is_worker=False, pids=pids, _ready_r=ready_r)


def _leave_with(parent: int) -> None:
    """Stop this worker (as Ctrl-C would: requests in hand are answered) once its parent is gone."""
    while os.getppid() == parent:
        time.sleep(0.25)
    os.kill(os.getpid(), signal.SIGTERM)
