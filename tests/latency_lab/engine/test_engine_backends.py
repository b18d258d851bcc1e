"""The native engine equals the Python one (the Speed issue's differential test).

This process predicts with the native engine (``pip install -e .`` builds it; the test fails without it);
ONE subprocess with ``LATENCY_LAB_ENGINE=python`` predicts the same documents with the Python engine
(``tests/latency_lab/differential.py``). Compared, document by document: ``page_load_ms`` and every breakdown
part (and every other float) within a relative 1e-9, the counts, objects, events and packets identical,
and an exception on one side only, or a different one, is a difference too. The cases:

- every preset (:data:`latency_lab.PRESETS`) with every protocol its path allows;
- every scenario of the validation grid (:func:`validation.grid.scenarios`: the plain-TCP, TLS, Fast
  Open and False Start blocks) with all eight protocols, and the ns-3 trace tests' scenarios (``tests/validation/data``);
- :data:`RANDOM` seeded random scenarios of :func:`tests.latency_lab.scenarios.every_feature` (every field of the
  schema): 2,000 by default, 10,000 with ``DIFFERENTIAL_FULL=1``;
- :data:`RANDOM` more of them, each with a loss rate above 0 (:func:`lossy`): the native engine reads the schedule
  for the loss analysis itself (latency_lab/engine/native/loss.cpp), so ``expected_with_loss`` is compared run by run
  (the presets' and the grid's lossy scenarios are among the cases above too).

The native side runs every case twice in this process (the second pass in reverse order): a result
that changes between two runs of the same engine is reported as flaky (the second pass compares a fingerprint of each
record, :func:`_fingerprint`, not its JSON line: issue 26). The reference subprocess runs
meanwhile, on the other core.
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import io
import json
import math
import os
import pickle
import pkgutil
import random
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

import latency_lab
from latency_lab import _backend
from latency_lab.scenario.schema import ALL_PROTOCOLS, BROWSER_PROTOCOLS, SEED_PROTOCOLS, Scenario
from tests.latency_lab import differential
from tests.latency_lab.scenarios import every_feature

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = Path(differential.__file__).resolve()
FULL = os.environ.get("DIFFERENTIAL_FULL", "") == "1"
#: Random every_feature scenarios: CI runs 2,000, DIFFERENTIAL_FULL=1 the issue's 10,000.
RANDOM = 10_000 if FULL else 2_000
RANDOM_SEED = 20261125
LOSSY_SEED = 20261128
#: The loss rates :func:`lossy` draws from (the loss grid's, and the tail up to 0.2 every_feature draws too).
LOSS_RATES = (1e-4, 0.001, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2)
GROUPS = ("presets", "grid", "random", "lossy")
#: Differences shown per failing group.
SHOWN = 20

REBUILD = (
    "this process runs the {backend!r} engine, not the native one: build it with `pip install -e .` "
    "(the README's commands) so the native engine can be compared with the Python reference"
)


def _require_native() -> None:
    backend = latency_lab.engine_backend()
    if backend != "native":
        pytest.fail(REBUILD.format(backend=backend))


def _allowed(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with every protocol its path allows (the split proxies relay HTTP/1.x only)."""
    out = copy.deepcopy(doc)
    out["protocols"] = list(ALL_PROTOCOLS)
    try:
        Scenario.model_validate(out)
    except ValidationError:
        out["protocols"] = [*SEED_PROTOCOLS, *BROWSER_PROTOCOLS]
        Scenario.model_validate(out)
    return out


def cases() -> list[tuple[str, str, dict[str, Any]]]:
    """Every compared case as ``(group, label, document)``."""
    from validation import grid

    out = [("presets", name, _allowed(p.document)) for name, p in latency_lab.PRESETS.items()]
    out += [("grid", g["id"], _allowed(g["doc"])) for g in grid.scenarios()]
    for path in sorted((ROOT / "tests" / "validation" / "data").glob("*.json")):
        out.append(("grid", path.name, _allowed(json.loads(path.read_text(encoding="utf-8")))))
    out += [("random", f"every_feature[{k}]", doc) for k, doc in enumerate(every_feature(RANDOM, RANDOM_SEED))]
    out += [("lossy", f"lossy[{k}]", doc) for k, doc in enumerate(lossy(RANDOM, LOSSY_SEED))]
    return out


def lossy(n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` random scenarios of every feature, each with a loss rate above 0 (drawn from :data:`LOSS_RATES` where
    :func:`every_feature` drew none), the same for the same seed."""
    rng = random.Random(seed)
    out = []
    for doc in every_feature(n, seed):
        network = doc.setdefault("network", {})
        if not network.get("loss_rate"):
            network["loss_rate"] = rng.choice(LOSS_RATES)
        out.append(doc)
    return out


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


def _fingerprint(rec: dict[str, Any]) -> bytes:
    """A digest of ``rec``'s values, types and key order, for the native engine's second pass (repeatable?): pickled
    without pickle's memo, so two records are alike whether or not equal parts are one object; about 7 times cheaper
    than its JSON line (0.34 against 2.35 s of CPU for 302 records, 2026-11-29), which the first pass writes only to
    compare it with the reference's."""
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=5)
    pickler.fast = True  # no memo: the bytes depend on the values alone (a record holds no cycle)
    pickler.dump(rec)
    return hashlib.blake2b(buf.getbuffer(), digest_size=16).digest()


def _as_reference(rec: dict[str, Any]) -> str:
    """The line the Python reference writes if its record equals ``rec`` exactly (same text, same types)."""
    return differential.line({**rec, "backend": "python"} if "backend" in rec else rec)


def _roundtrip(rec: dict[str, Any]) -> dict[str, Any]:
    """``rec`` as the reference's records reach the test: through JSON (tuples become lists)."""
    parsed: dict[str, Any] = json.loads(differential.line(rec))
    return parsed


@dataclass
class Group:
    scenarios: int = 0
    results: int = 0  # protocol results compared
    packets: int = 0
    errors: int = 0  # scenarios that raised (on both sides alike, unless listed among the differences)
    identical: int = 0  # byte-identical records
    within_tolerance: int = 0  # not byte-identical, equal within the tolerance
    differences: list[str] = field(default_factory=list)


@dataclass
class Runs:
    groups: dict[str, Group]
    reference_backend: str
    seconds: dict[str, float]

    def summary(self) -> str:
        parts = [
            f"{name}: {g.scenarios} scenarios, {g.results} protocol results, {g.packets} packets, "
            f"{g.identical} identical, {g.within_tolerance} within 1e-9, {g.errors} errors alike, "
            f"{len(g.differences)} differing"
            for name, g in self.groups.items()
        ]
        times = ", ".join(f"{k} {v:.1f} s" for k, v in self.seconds.items())
        return f"engine differential (native vs {self.reference_backend}): " + "; ".join(parts) + f" [{times}]"


def _show(group: str, label: str, i: int, doc: dict[str, Any], what: str, diffs: list[str]) -> str:
    listed = "\n    ".join(diffs[:SHOWN])
    return f"{group} #{i} ({label}) {what}:\n    {listed}\n  scenario: {json.dumps(doc)}"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """Every case through both engines, compared (one reference subprocess for all groups)."""
    _require_native()
    all_cases = cases()
    tmp = tmp_path_factory.mktemp("differential")
    docs_path, out_path, err_path = tmp / "docs.jsonl", tmp / "reference.jsonl", tmp / "reference.stderr"
    docs_path.write_text("".join(json.dumps(doc) + "\n" for _, _, doc in all_cases), encoding="utf-8")
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    env = {**os.environ, _backend.ENV: "python"}
    with open(docs_path, encoding="utf-8") as stdin, open(err_path, "w", encoding="utf-8") as err:
        proc = subprocess.Popen(
            [sys.executable, str(SCRIPT), "--out", str(out_path)],
            cwd=ROOT,
            env=env,
            stdin=stdin,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        try:
            # The native side, twice (the second pass in reverse order), while the reference runs.
            groups = {name: Group() for name in GROUPS}
            first: list[bytes] = []  # each record's JSON line's digest, to compare with the reference's line
            repeat: list[bytes] = []  # and its fingerprint, to compare with the second pass's record
            for i, (group, _, doc) in enumerate(all_cases):
                rec = differential.record(i, doc)
                first.append(_digest(_as_reference(rec)))
                repeat.append(_fingerprint(rec))
                g = groups[group]
                g.scenarios += 1
                if "error" in rec:
                    g.errors += 1
                else:
                    g.results += len(rec["doc"]["results"])
                    g.packets += sum(len(r["packets"]) for r in rec["doc"]["results"])
            seconds["native pass 1"] = time.perf_counter() - t0
            t1 = time.perf_counter()
            for i in reversed(range(len(all_cases))):
                group, label, doc = all_cases[i]
                if _fingerprint(differential.record(i, doc)) != repeat[i]:
                    again = [_roundtrip(differential.record(i, doc)) for _ in range(2)]
                    diffs = differential.compare(*again) or ["the record changed between runs (its values or types)"]
                    groups[group].differences.append(_show(group, label, i, doc, "native engine not repeatable", diffs))
            seconds["native pass 2"] = time.perf_counter() - t1
            proc.wait(timeout=3600)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    seconds["reference (wall, from start)"] = time.perf_counter() - t0
    stderr = err_path.read_text(encoding="utf-8")
    assert proc.returncode == 0, f"the reference subprocess failed ({proc.returncode}):\n{stderr[-5000:]}"

    t2 = time.perf_counter()
    reference_backend = ""
    count = 0
    with open(out_path, encoding="utf-8") as lines:
        for i, text in enumerate(lines):
            count += 1
            text = text.rstrip("\n")
            group, label, doc = all_cases[i]
            if _digest(text) == first[i]:
                groups[group].identical += 1
                if not reference_backend and '"backend": "python"' in text[:60]:
                    reference_backend = "python"
                continue
            ref = json.loads(text)
            assert ref["i"] == i, f"reference record {ref['i']} on line {i}"
            if "backend" in ref:
                assert ref["backend"] == "python", f"the reference subprocess ran the {ref['backend']!r} engine"
                reference_backend = "python"
            diffs = differential.compare(_roundtrip(differential.record(i, doc)), ref)
            if diffs:
                groups[group].differences.append(_show(group, label, i, doc, "native (a) vs python (b)", diffs))
            else:
                groups[group].within_tolerance += 1
    seconds["compare"] = time.perf_counter() - t2
    assert count == len(all_cases), f"the reference wrote {count} records for {len(all_cases)} scenarios"
    return Runs(groups, reference_backend, seconds)


def test_fingerprint_sees_values_and_types_not_sharing() -> None:
    """The second pass's repeat check: the same record built again (equal parts shared or not) has the same
    fingerprint; a float changed in its last bit, an int for a float, a list for a tuple or keys in another order
    do not."""
    rec = differential.record(0, latency_lab.PRESETS["pm94-remote"].document)
    base = _fingerprint(rec)
    assert _fingerprint(copy.deepcopy(rec)) == base
    part = {"t_ms": 1.5, "kind": "data"}
    assert _fingerprint({"a": part, "b": part}) == _fingerprint({"a": dict(part), "b": dict(part)})
    changed = copy.deepcopy(rec)
    result = changed["doc"]["results"][0]
    result["page_load_ms"] = math.nextafter(result["page_load_ms"], math.inf)
    assert _fingerprint(changed) != base
    assert _fingerprint({"x": 1}) != _fingerprint({"x": 1.0})
    assert _fingerprint({"x": [1, 2]}) != _fingerprint({"x": (1, 2)})
    assert _fingerprint({"x": 1, "y": 2}) != _fingerprint({"y": 2, "x": 1})


@pytest.mark.parametrize("group", GROUPS)
def test_native_engine_equals_python_engine(
    group: str, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    _require_native()
    r: Runs = request.getfixturevalue("runs")
    assert r.reference_backend == "python", f"the reference subprocess ran {r.reference_backend or 'no'} engine"
    g = r.groups[group]
    with capsys.disabled():
        print(f"\n{r.summary()}" if group == GROUPS[0] else "", end="")
        print(
            f"\n{group}: {g.scenarios} scenarios and {g.results} protocol results compared "
            f"({g.packets} packets), {len(g.differences)} differing"
        )
    assert g.scenarios > 0
    if g.differences:
        shown = "\n".join(g.differences[:SHOWN])
        pytest.fail(f"{len(g.differences)} of {g.scenarios} {group} scenarios differ between the engines:\n{shown}")


#: The Python engine's schedule: the modules :func:`latency_lab.analysis.predict.simulate` runs through, which the native
#: engine replaces.
SCHEDULE = (
    "latency_lab.engine.core",
    "latency_lab.engine.tcp",
    *(f"latency_lab.protocols.{m.name}" for m in pkgutil.iter_modules(latency_lab.protocols.__path__)),  # type: ignore[attr-defined]
    "latency_lab.mechanisms.slow_start",
    "latency_lab.mechanisms.delayed_ack",
    "latency_lab.mechanisms.nagle",
    "latency_lab.mechanisms.connection_setup",
    "latency_lab.mechanisms.rto",
    "latency_lab.mechanisms.quic",
    "latency_lab.mechanisms.tls",
)


@pytest.fixture(scope="module")
def python_functions() -> set[tuple[str, str]]:
    """The Python functions of the ``latency_lab`` package that run while the native engine predicts every feature."""
    _require_native()
    return _python_functions_run(every_feature(150, 3))


def test_features_handed_to_the_python_engine_none(request: pytest.FixtureRequest) -> None:
    """No feature of the engine falls back to the Python engine: running every feature (every_feature's scenarios,
    split proxies and loss among them) executes no function of the Python engine's schedule."""
    _require_native()
    ran: set[tuple[str, str]] = request.getfixturevalue("python_functions")
    handed = sorted(name for name, _ in ran if name.split(":")[0] in SCHEDULE)
    assert handed == [], f"features handed to the Python engine: {handed}"


#: Model modules whose Python functions run while the native engine predicts (measured with a profiler over
#: every_feature's scenarios): the document's assembly and what the engines share, not the schedule. Listed so that a
#: new call from the native path into Python code is noticed.
PYTHON_HELPERS = (
    "latency_lab.analysis.critical_path",  # path_stalls, stall_counts: the stalls from the engine's walk
    "latency_lab.analysis.document",  # document: the output document, the engines' shared assembler
    "latency_lab.analysis.expected_loss",  # lossless_from_counts
    "latency_lab.analysis.native",  # run: the native engine's numbers made into the document
    "latency_lab.analysis.predict",  # predict, _quietly
    "latency_lab.engine.lin",  # value
    "latency_lab.engine.words",  # the events' sentences
    "latency_lab.mechanisms.loss",  # handshake_extra_ms
    "latency_lab.mechanisms.loss_recovery",  # assemble, expected: the loss analysis's closed forms
    "latency_lab.scenario.content",  # effective_page, from Scenario.page.transferred in resolve
    "latency_lab.scenario.limits",  # allowance, spend, charge: the step budget
    "latency_lab.scenario.params",  # resolve: the scenario's numbers, once per prediction
    "latency_lab.scenario.schema",  # Page.sizes and Page.transferred, from resolve
)


def test_python_helpers_the_native_engine_calls_are_known(request: pytest.FixtureRequest) -> None:
    _require_native()
    ran: set[tuple[str, str]] = request.getfixturevalue("python_functions")
    modules = sorted({name.split(":")[0] for name, _ in ran})
    assert modules == sorted(PYTHON_HELPERS), f"the native path now calls these model modules: {modules}"


def _python_functions_run(docs: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """Every Python function of the ``latency_lab`` package that runs while ``docs`` are predicted (the native engine
    makes no Python frames), as ``("module:function", filename)``; validation excluded."""
    scenarios = [Scenario.model_validate(doc) for doc in docs]
    model_dir = str(ROOT / "latency_lab")
    ran: set[tuple[str, str]] = set()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            if code.co_filename.startswith(model_dir):
                ran.add((f"{frame.f_globals.get('__name__')}:{code.co_name}", code.co_filename))

    engine_predict = importlib.import_module("latency_lab.analysis.predict").predict  # the engines' seam itself: the
    # public latency_lab.predict is a Python wrapper (its strict checks) around it, called by the user, not by the engine
    sys.setprofile(profile)
    try:
        for s in scenarios:
            try:
                engine_predict(s, packets=True)
            except AssertionError:
                pass  # h3 with a receive window under one QUIC packet (every_feature keeps a few)
    finally:
        sys.setprofile(None)
    return ran
