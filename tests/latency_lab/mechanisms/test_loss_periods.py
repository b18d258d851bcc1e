"""The periods after a loss in C++ (latency_lab/engine/native/periods.cpp) equal latency_lab.mechanisms.loss._after_loss_tree,
the readable reference, number for number (both round each operation alike: -ffp-contract=off)."""

from __future__ import annotations

import math
import random

import pytest

from latency_lab.analysis import native
from latency_lab.mechanisms import loss

pytestmark = pytest.mark.skipif(native._native is None, reason="the native engine is not built")


def _constants() -> tuple[int, float, float, float, float]:
    return loss.TRANSIENT_PERIODS, loss.FINE_WINDOW, loss.BIN_RATIO, loss.TAIL_MASS, loss.MIN_SSTHRESH


def _cases(n: int, seed: int) -> list[tuple[float, float, float, int, float]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        p = math.exp(rng.uniform(math.log(1e-6), math.log(0.5)))
        rest = math.inf if rng.random() < 0.3 else float(rng.randint(1, 20_000))
        w_max = math.exp(rng.uniform(math.log(2), math.log(50_000)))
        h = loss._key(max(math.exp(rng.uniform(0, math.log(w_max))) / 2, loss.MIN_SSTHRESH))
        b = rng.choice([1, 2, 3, 4, 16])
        out.append((p, rest, h, b, w_max))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_the_native_periods_equal_the_reference(seed: int) -> None:
    assert native._native is not None
    for case in _cases(250, seed):
        assert native._native.periods(*case, *_constants()) == loss._after_loss_tree(*case), case


def test_the_presets_periods_too() -> None:
    """The windows, rests and rates the loss analysis asks for on its seed cases (a 1 % and a 0.05 % loss rate)."""
    assert native._native is not None
    for p in (0.01, 0.0005, 0.2):
        for rest in (1.0, 7.0, 40.0, 256.0, 3000.0, math.inf):
            for h in (2.0, 2.5, 4.0, 8.0, 10.0, 44.0):
                case = (p, rest, h, 2, 44.0)
                assert native._native.periods(*case, *_constants()) == loss._after_loss_tree(*case), case


def test_the_loss_analysis_uses_the_native_periods_where_built() -> None:
    from latency_lab import _backend

    if _backend.native_ok:
        assert loss._periods is native._native.periods
