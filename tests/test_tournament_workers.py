"""Serving processes for `mahj tournament serve --workers N`: a worker that cannot start is named instead of
waited for, and a system without fork gets a clear refusal (the real server's workers: test_tournament_web)."""

import os
import time

import pytest
from sqlalchemy import create_engine

from assistant.tournament import workers
from assistant.tournament.workers import WorkerError, start_workers

forks = pytest.mark.skipif(not hasattr(os, "fork"), reason="workers are forked processes")


@pytest.fixture
def engine(tmp_path):
    made = create_engine(f"sqlite:///{tmp_path / 'w.db'}")
    yield made
    made.dispose()


def _reaped(pids):
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


@forks
def test_a_worker_that_dies_before_it_can_answer_is_named(engine):
    part = start_workers(engine, 2)
    if part.is_worker:
        os._exit(3)  # as a worker whose database refused its connections
    pids = list(part.pids)
    with pytest.raises(WorkerError, match=r"exited before it could answer \(status 768"):
        part.ready()
    part.stop()
    _reaped(pids)


@forks
def test_a_worker_that_never_answers_is_given_up_on(engine, monkeypatch):
    monkeypatch.setattr(workers, "START_TIMEOUT_S", 0.5)
    part = start_workers(engine, 1)
    if part.is_worker:
        time.sleep(30)  # hung before it could say it is ready
        os._exit(0)
    t0 = time.monotonic()
    with pytest.raises(WorkerError, match="0 of 1 extra serving processes started within 0.5 s"):
        part.ready()
    assert time.monotonic() - t0 < 5
    pids = list(part.pids)
    part.stop()
    _reaped(pids)


def test_without_fork_workers_are_refused_clearly(engine, monkeypatch):
    monkeypatch.delattr(os, "fork", raising=False)
    with pytest.raises(WorkerError, match="--workers needs Linux or macOS"):
        start_workers(engine, 1)
    assert not start_workers(engine, 0).is_worker  # one process needs no fork
