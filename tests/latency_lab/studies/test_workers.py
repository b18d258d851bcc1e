"""The one worker pool of the study runner and the command line (latency_lab.studies.workers)."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
from typing import Any

import psutil
import pytest

from latency_lab.studies.workers import worker_pool


def _worker_state() -> tuple[int, str, str]:
    return os.getpid(), str(signal.getsignal(signal.SIGINT)), str(signal.getsignal(signal.SIGTERM))


def test_workers_leave_ctrl_c_to_the_parent_and_stop_on_sigterm() -> None:
    with worker_pool(2, __name__) as pool:
        states = {pool.submit(_worker_state).result() for _ in range(4)}
    assert {pid for pid, _, _ in states} and os.getpid() not in {pid for pid, _, _ in states}
    assert {(sigint, sigterm) for _, sigint, sigterm in states} == {(str(signal.SIG_IGN), str(signal.SIG_DFL))}


def _sigint_disposition() -> str:
    return str(signal.getsignal(signal.SIGINT))


def _report_sigint(out: Any) -> None:
    out.put(str(signal.getsignal(signal.SIGINT)))


def test_a_process_forked_from_the_fork_server_ignores_ctrl_c_from_its_start() -> None:
    """Before any initializer: a process forked from the pool's fork server, with no initializer, finds SIGINT
    ignored (a worker hit by Ctrl-C before :func:`worker_signals` ran printed a KeyboardInterrupt traceback)."""
    context = multiprocessing.get_context("forkserver")
    with worker_pool(1, __name__) as pool:
        pool.submit(_sigint_disposition).result()
        out = context.SimpleQueue()
        child = context.Process(target=_report_sigint, args=(out,))
        child.start()
        child.join(timeout=30)
        assert out.get() == str(signal.SIG_IGN)


def test_ctrl_c_during_a_submit_that_starts_a_worker_waits_for_that_worker(capfd: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C while submit starts a worker: the worker is recorded and waited for, and prints nothing, and the
    KeyboardInterrupt comes after submit (before: a worker the pool never waited for, then FileNotFoundError)."""
    before = {c.pid for c in psutil.Process().children(recursive=True)}
    for delay in (0.0, 0.002, 0.01, 0.03):
        with pytest.raises(KeyboardInterrupt), worker_pool(2, __name__) as pool:
            threading.Timer(delay, os.kill, (os.getpid(), signal.SIGINT)).start()
            pool.submit(_sigint_disposition)
            pool.submit(_sigint_disposition)
            time.sleep(5)  # the interrupt arrives here if not before
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _workers_left(before):
        time.sleep(0.1)
    assert _workers_left(before) == set()
    assert "Traceback" not in capfd.readouterr().err


def _workers_left(before: set[int]) -> set[int]:
    out = set()
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if child.pid not in before and "forkserver" not in " ".join(child.cmdline()):
                if child.status() != psutil.STATUS_ZOMBIE and "resource_tracker" not in " ".join(child.cmdline()):
                    out.add(child.pid)
    return out
