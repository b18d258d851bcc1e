"""The worker processes of the study runner (:mod:`model.studies.study`) and the command line's ``--jobs``: one
pool, whose workers leave Ctrl-C to their parent and stop at once on SIGTERM."""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

__all__ = ["worker_pool", "worker_signals"]


def worker_signals() -> None:
    """In a worker process: Ctrl-C reaches the whole process group, and is the parent's to handle (it stops the
    pool and waits for the workers), not each worker's traceback; SIGTERM stops a worker at once, as by default."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


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
        context.set_forkserver_preload([preload])
    else:  # pragma: no cover - Windows
        context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=worker_signals)
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
