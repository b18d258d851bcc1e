""":func:`latency_lab.mechanisms.loss_recovery.max_terms`, the one-pass sum down the atoms, equals the pairwise form
(:func:`latency_lab.mechanisms.loss_recovery._max_shares`, which the sympy path keeps) on random chains of work: ties,
atoms of probability 1 (a factor 0 in the product), repeated chains and groups of identical ones."""

from __future__ import annotations

import random

import pytest

from latency_lab.mechanisms import loss_recovery as R


def _pairwise(chains: list[tuple[R.Atoms, int]]) -> list[float]:
    def step(y: float, x: float, tie: bool) -> float:
        return 1.0 if (y >= x if tie else y > x) else 0.0

    return [float(t) for t in R._max_shares(chains, step, lambda x: max(x, 0.0))]


@pytest.mark.parametrize("seed", range(5))
def test_one_pass_equals_the_pairwise_form(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(300):
        chains: list[tuple[R.Atoms, int]] = []
        for _ in range(rng.randint(1, 7)):
            pi_long = rng.choice([0.0, 1.0, rng.random()])
            pi_short = rng.choice([0.0, 1.0, rng.random()])
            slack = rng.choice([0.0, rng.random() * 300])
            atoms = R.chain_atoms(rng.random() * 100, pi_long, rng.random() * 20, pi_short, slack)
            chains.append((atoms, rng.randint(1, 3)))
        if rng.random() < 0.3:
            chains.append(chains[0])
        for fast, slow in zip(R.max_terms(chains), _pairwise(chains), strict=True):
            assert fast == pytest.approx(slow, rel=1e-12, abs=1e-9)
