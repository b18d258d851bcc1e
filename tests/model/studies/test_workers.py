"""The one worker pool of the study runner and the command line (model.studies.workers)."""

from __future__ import annotations

import os
import signal

from model.studies.workers import worker_pool


def _worker_state() -> tuple[int, str, str]:
    return os.getpid(), str(signal.getsignal(signal.SIGINT)), str(signal.getsignal(signal.SIGTERM))


def test_workers_leave_ctrl_c_to_the_parent_and_stop_on_sigterm() -> None:
    with worker_pool(2, __name__) as pool:
        states = {pool.submit(_worker_state).result() for _ in range(4)}
    assert {pid for pid, _, _ in states} and os.getpid() not in {pid for pid, _, _ in states}
    assert {(sigint, sigterm) for _, sigint, sigterm in states} == {(str(signal.SIG_IGN), str(signal.SIG_DFL))}
