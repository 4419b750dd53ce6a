"""More than one serving process for ``mahj tournament serve --workers N``.

One Python process works on one CPU core at a time; when every table of a large event reports in the same
minute, the reports queue behind it. ``start_workers`` forks more processes that accept on the same listening
socket, each with database connections of its own. Every process says when it can answer (its connections
open); the server prints its addresses only once all of them have, so the first burst after a (re)start finds
them ready, and a worker that fails to start is named instead of waited for. A worker whose parent is gone
(killed, the machine's power cut) shuts down by itself. Linux and macOS only (``os.fork``).
"""

from __future__ import annotations

import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import Engine

#: How long the server waits for its workers to open their connections.
START_TIMEOUT_S = 60.0


class WorkerError(RuntimeError):
    """A serving process that could not start; the message says which and why."""


@dataclass
class Workers:
    """This process's part among the serving processes: the parent (``pids`` its workers) or a worker."""

    is_worker: bool
    pids: list[int] = field(default_factory=list)
    _ready_r: int = -1
    _ready_w: int = -1

    def ready(self) -> None:
        """This process can answer now. A worker tells the parent; the parent waits until every worker has, and
        raises WorkerError for one that exited or did not answer within START_TIMEOUT_S."""
        if self.is_worker:
            os.write(self._ready_w, b"+")
            os.close(self._ready_w)
            return
        if not self.pids:
            return
        started, deadline = 0, time.monotonic() + START_TIMEOUT_S
        try:
            while started < len(self.pids):
                self._check_alive()
                if time.monotonic() > deadline:
                    raise WorkerError(f"{started} of {len(self.pids)} extra serving processes started within "
                                      f"{START_TIMEOUT_S:g} s")
                if select.select([self._ready_r], [], [], 0.2)[0]:
                    started += len(os.read(self._ready_r, len(self.pids)))
        finally:
            os.close(self._ready_r)

    def _check_alive(self) -> None:
        for pid in self.pids:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                self.pids.remove(pid)
                raise WorkerError(f"serving process {pid} exited before it could answer (status {status}; see "
                                  "its error above)")

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
    if not hasattr(os, "fork"):
        raise WorkerError("--workers needs Linux or macOS (processes are forked); serve with one process here")
    engine.dispose()  # no connection crosses the fork: each process opens its own
    parent = os.getpid()
    ready_r, ready_w = os.pipe()
    pids = []
    for _ in range(n):
        pid = os.fork()
        if pid == 0:
            os.close(ready_r)
            threading.Thread(target=_leave_with, args=(parent,), daemon=True).start()
            return Workers(is_worker=True, _ready_w=ready_w)
        pids.append(pid)
    os.close(ready_w)
    return Workers(is_worker=False, pids=pids, _ready_r=ready_r)


def serve_as_worker(run: Callable[[], None]) -> None:
    """Run a worker's server, then end the process at once: a forked copy of the command line must not return
    into it, nor run the exit handlers it inherited (native libraries loaded before the fork abort or hang in
    them)."""
    code = 1
    try:
        run()
        code = 0
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _leave_with(parent: int) -> None:
    """Stop this worker (as Ctrl-C would: requests in hand are answered) once its parent is gone."""
    while os.getppid() == parent:
        time.sleep(0.25)
    os.kill(os.getpid(), signal.SIGTERM)
