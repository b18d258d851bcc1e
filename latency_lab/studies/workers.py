"""The worker processes of the study runner (:mod:`latency_lab.studies.study`) and the command line's ``--jobs``: one
pool, whose workers leave Ctrl-C to their parent and stop at once on SIGTERM."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing import forkserver
from types import FrameType
from typing import Any, TypeVar

__all__ = ["worker_pool", "worker_signals"]

T = TypeVar("T")


def worker_signals() -> None:
    """In a worker process: Ctrl-C reaches the whole process group, and is the parent's to handle (it stops the
    pool and waits for the workers), not each worker's traceback; SIGTERM stops a worker at once, as by default."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def _ctrl_c_after() -> Iterator[None]:
    """Ctrl-C in the block takes effect when the block has finished, not inside it.

    A submit may start a worker (the pool starts them as work arrives). A KeyboardInterrupt raised between the
    fork server forking the worker and the pool recording its pid would leave a worker the pool never waits
    for: it then reads its start-up data after the parent has gone and removed the pool's semaphores, and prints
    ``FileNotFoundError`` (the gate's flaky ``test_a_signal_stops_predict_jsonl_and_its_workers_cleanly``).
    Only the main thread can set a handler; elsewhere (where no KeyboardInterrupt is raised) the block runs as is.
    """
    caught: list[tuple[int, FrameType | None]] = []

    def record(signum: int, frame: FrameType | None) -> None:
        caught.append((signum, frame))

    with _sigint_handled_by(record) as previous:
        yield
    if caught:
        if callable(previous):
            previous(*caught[0])  # default_int_handler: KeyboardInterrupt, here and not mid-start
        elif previous == signal.SIG_DFL:
            os.kill(os.getpid(), signal.SIGINT)


@contextlib.contextmanager
def _sigint_handled_by(handler: Any) -> Iterator[Any]:
    """SIGINT handled by ``handler`` (a function or ``signal.SIG_IGN``) in the block and the previous handling back
    after it, which the block gets. Only the main thread can set a handler, and only it is interrupted by Ctrl-C:
    elsewhere nothing changes and the block gets ``None``."""
    if threading.current_thread() is not threading.main_thread():
        yield None
        return
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield previous
    finally:
        signal.signal(signal.SIGINT, previous)


class _Pool(ProcessPoolExecutor):
    """A process pool whose submit is never cut short by Ctrl-C (see :func:`_ctrl_c_after`)."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        with _ctrl_c_after():
            return super().submit(fn, *args, **kwargs)


def _start_fork_server(preload: str) -> None:
    """Start the fork server (if not yet running) with SIGINT ignored, which it and every worker forked from it
    inherit: a worker then ignores Ctrl-C from its first instruction, not only once :func:`worker_signals` has run
    (a Ctrl-C between the two printed a KeyboardInterrupt traceback). The server is an exec'd process, and an
    ignored signal is the one disposition that survives exec; Python leaves it ignored at start-up.

    A Ctrl-C during the few milliseconds of the start (the server is launched, not waited for) is not seen."""
    forkserver.set_forkserver_preload([preload])
    with _sigint_handled_by(signal.SIG_IGN):
        forkserver.ensure_running()


@contextlib.contextmanager
def worker_pool(jobs: int, preload: str) -> Iterator[ProcessPoolExecutor]:
    """``jobs`` worker processes; on the way out work not yet started is cancelled and the workers are waited for.
    The one pool of the study runner and the command line's ``--jobs``.

    They are forked from a fork server that has imported ``preload`` (a module name) once, so they start at once
    and share its memory, or started afresh where there is no fork server (Windows): never forked from the calling
    process, which may have threads (the command line's JSON Lines writer).
    """
    if "forkserver" in multiprocessing.get_all_start_methods():
        context: Any = multiprocessing.get_context("forkserver")
        _start_fork_server(preload)
    else:  # pragma: no cover - Windows
        context = multiprocessing.get_context("spawn")
    pool = _Pool(max_workers=jobs, mp_context=context, initializer=worker_signals)
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
