"""The native engine equals the Python one (the Speed issue's differential test).

This process predicts with the native engine (``pip install -e .`` builds it; the test fails without it);
a subprocess with ``LATENCY_LAB_ENGINE=python`` predicts the same documents with the Python engine
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
record, :func:`_fingerprint`: issue 26). The Python reference is a subprocess on the other core, or, for the
gate's cases, its stored outcomes (:data:`STORE`, keyed by the model's sources: see :func:`load_store`), with every
:data:`SAMPLE_EVERY`-th case run live anyway. The cases are compared in chunks (:data:`CHUNKS`), one test each, which
the gate's xdist workers share out (tests/conftest.py).
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
        for origin in doc.get("page", {}).get("origins", []):
            # an origin's own path is refused with loss (the loss analysis costs every recovery at the network's
            # RTT): left out, so each of the n scenarios is compared, not refused alike by both engines (109 were)
            origin.pop("rtt_ms", None)
            origin.pop("bandwidth_bps", None)
        out.append(doc)
    return out


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


def _roundtrip(rec: dict[str, Any]) -> dict[str, Any]:
    """``rec`` as the reference's records reach the test: through JSON (tuples become lists)."""
    parsed: dict[str, Any] = json.loads(differential.line(rec))
    return parsed


def _comparable(rec: dict[str, Any]) -> dict[str, Any]:
    """``rec`` without the keys that name the run (:data:`differential.META`: its line number and its engine)."""
    return {k: v for k, v in rec.items() if k not in differential.META}


def _outcome(rec: dict[str, Any]) -> str:
    """The fingerprint (hex) of a record's outcome, the same on both engines exactly when their records are: the
    values, their types (a tuple is not a list, an int not a float) and every key's order, bit for bit. Equal
    fingerprints are a stricter match than equal JSON lines; unequal ones are compared within the tolerance
    (:func:`differential.compare`, through JSON) before they count as a difference."""
    return _fingerprint(_comparable(rec)).hex()


def _doc_key(doc: dict[str, Any]) -> str:
    """A case's key in :data:`STORE`: a digest of its scenario document as the reference reads it."""
    return hashlib.blake2b(json.dumps(doc).encode(), digest_size=10).hexdigest()


# --- the Python reference: live, or stored -----------------------------------------------------------------------
#
# The Python engine is the slow side (about two thirds of the module's CPU, 2026-11-29). Its outcome for each case of
# the gate is stored as a fingerprint (:data:`STORE`, written by ``python -m tests.latency_lab.engine.test_engine_backends
# --store`` on the Python engine), under a key of everything the Python engine's numbers depend on
# (:func:`reference_key`: every module of latency_lab/ but the native engine's folder, the record's budget and the
# fingerprint's code, the Python and library versions). A chunk compares the native engine's fingerprint with the
# stored one where the key is current, and runs the Python engine live for the rest and for every
# :data:`SAMPLE_EVERY`-th case anyway (a stored fingerprint that the live Python engine does not reproduce fails the
# chunk: drift). A key that is not current (a model module edited since the store) runs every case live and fails
# :func:`test_stored_python_reference_is_current`, which names the command that rewrites the store.

STORE = Path(__file__).resolve().parent / "data" / "python_reference.txt"
#: Every this-many-th case of a chunk (the first, the 17th, ...) runs on the live Python engine even where stored.
SAMPLE_EVERY = 16
#: Each group's cases in this many chunks (case ``k`` of a group in chunk ``k % n``): each chunk is one test, one work
#: unit of the gate's xdist phase (tests/conftest.py SPLIT_FILES), and finishes within pytest-timeout's 1,500 s
#: with every case live at load 10-15.
CHUNKS = {"presets": 1, "grid": 4, "random": 2, "lossy": 2}
CHUNK_IDS = [f"{g}-{k + 1}of{n}" for g, n in CHUNKS.items() for k in range(n)]
REGENERATE = "python -m tests.latency_lab.engine.test_engine_backends --store"
#: Distributions whose code the Python engine's numbers go through.
REFERENCE_DISTRIBUTIONS = ("pydantic", "pydantic-core", "sympy", "mpmath")


def reference_key() -> dict[str, Any]:
    """What the Python engine's outcomes depend on: each source's SHA-256 (every ``.py`` of latency_lab/ outside the
    native engine's folder, tests/latency_lab/differential.py's ``record``), the fingerprint's code, Python's and the
    libraries' versions."""
    import importlib.metadata
    import inspect

    native = ROOT / "latency_lab" / "engine" / "native"
    sources = sorted(p for p in (ROOT / "latency_lab").rglob("*.py") if native not in p.parents)
    out: dict[str, Any] = {
        "sources": {
            str(p.relative_to(ROOT)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in [*sources, Path(differential.__file__).resolve()]
        },
        "fingerprint": hashlib.sha256(
            "".join(inspect.getsource(f) for f in (_fingerprint, _comparable, _outcome)).encode()
        ).hexdigest(),
        "environment": {
            "python": sys.version,
            "versions": {d: importlib.metadata.version(d) for d in REFERENCE_DISTRIBUTIONS},
        },
    }
    return out


@dataclass
class Stored:
    current: bool  # the store's key is today's: its outcomes are used
    outcomes: dict[str, str]  # doc key -> the Python engine's fingerprint (empty where not current)
    why: str  # why not current
    sources_current: bool  # the key's sources and fingerprint are today's (its environment may not be)


def load_store() -> Stored:
    """:data:`STORE`, used only where its whole key is today's (:func:`reference_key`). Another Python or library
    version (a new machine: requirements.txt sets lower bounds only) runs every case live and is no failure; changed
    sources are (:func:`test_stored_python_reference_is_current`)."""
    if not STORE.is_file():
        return Stored(False, {}, f"{STORE.relative_to(ROOT)} is missing", False)
    lines = STORE.read_text(encoding="utf-8").splitlines()
    old = json.loads(lines[0]).get("key", {})
    key = reference_key()
    changed = sorted(
        p for p in {*old.get("sources", {}), *key["sources"]} if old.get("sources", {}).get(p) != key["sources"].get(p)
    )
    changed += [k for k in ("fingerprint", "environment") if old.get(k) != key[k]]
    if changed:
        why = f"the Python engine's inputs changed since {STORE.relative_to(ROOT)} was written: {changed}"
        return Stored(False, {}, why, changed == ["environment"])
    outcomes = dict(line.split(" ", 1) for line in lines[1:])
    return Stored(True, outcomes, "", True)


def _start_reference(
    items: list[tuple[int, dict[str, Any]]], tmp: Path, name: str
) -> tuple[subprocess.Popen[bytes], Path]:
    """The Python engine on ``items`` in a subprocess (``LATENCY_LAB_ENGINE=python``; on the other core while this
    process runs the native engine): it writes ``i backend fingerprint`` lines (:func:`_reference_main`)."""
    docs, out, err = tmp / f"{name}.jsonl", tmp / f"{name}.out", tmp / f"{name}.stderr"
    docs.write_text("".join(json.dumps({"i": i, "doc": doc}) + "\n" for i, doc in items), encoding="utf-8")
    env = {**os.environ, _backend.ENV: "python"}
    with open(docs, "rb") as stdin, open(err, "wb") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.latency_lab.engine.test_engine_backends", "--fingerprints", str(out)],
            cwd=ROOT,
            env=env,
            stdin=stdin,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    return proc, out


def _finish_reference(proc: subprocess.Popen[bytes], out: Path, expected: int) -> dict[int, tuple[str, str]]:
    """The reference's outcomes ``{i: (backend, fingerprint)}`` once it is done."""
    try:
        proc.wait(timeout=3600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    stderr = out.with_suffix(".stderr").read_text(encoding="utf-8", errors="replace")
    assert proc.returncode == 0, f"the reference subprocess failed ({proc.returncode}):\n{stderr[-5000:]}"
    got: dict[int, tuple[str, str]] = {}
    for text in out.read_text(encoding="utf-8").splitlines():
        i, backend, fp = text.split(" ")
        got[int(i)] = (backend, fp)
    assert len(got) == expected, f"the reference wrote {len(got)} outcomes for {expected} scenarios"
    return got


def _reference_main(out_path: str) -> int:
    """The reference subprocess: ``{"i", "doc"}`` JSON lines in, ``i backend fingerprint`` lines out (backend ``-``
    for a record that is an error)."""
    with open(out_path, "w", encoding="utf-8") as out:
        for text in sys.stdin:
            if text.strip():
                item = json.loads(text)
                rec = differential.record(item["i"], item["doc"])
                out.write(f"{item['i']} {rec.get('backend', '-')} {_outcome(rec)}\n")
    return 0


def _full_reference_records(docs: list[dict[str, Any]], tmp: Path) -> list[dict[str, Any]]:
    """The Python engine's whole records for ``docs`` (tests/latency_lab/differential.py's command line), for the
    cases whose fingerprints differ: compared within the tolerance."""
    docs_path, out_path = tmp / "mismatched.jsonl", tmp / "mismatched.out"
    docs_path.write_text("".join(json.dumps(doc) + "\n" for doc in docs), encoding="utf-8")
    with open(docs_path, encoding="utf-8") as stdin:
        done = subprocess.run(
            [sys.executable, str(SCRIPT), "--out", str(out_path)],
            cwd=ROOT,
            env={**os.environ, _backend.ENV: "python"},
            stdin=stdin,
            capture_output=True,
            text=True,
            timeout=3600,
        )
    assert done.returncode == 0, f"the reference subprocess failed ({done.returncode}):\n{done.stderr[-5000:]}"
    records = [json.loads(text) for text in out_path.read_text(encoding="utf-8").splitlines()]
    assert len(records) == len(docs)
    return records


@dataclass
class Chunk:
    scenarios: int = 0
    results: int = 0  # protocol results compared
    packets: int = 0
    errors: int = 0  # scenarios that raised (on both sides alike, unless listed among the differences)
    identical: int = 0  # outcomes bit for bit alike (fingerprints)
    within_tolerance: int = 0  # not bit for bit alike, equal within the tolerance
    live: int = 0  # cases the Python engine ran in this run
    stored: int = 0  # cases compared with the stored Python outcome only
    differences: list[str] = field(default_factory=list)
    drift: list[str] = field(default_factory=list)  # stored outcomes the live Python engine does not reproduce
    seconds: dict[str, float] = field(default_factory=dict)

    def summary(self, name: str) -> str:
        times = ", ".join(f"{k} {v:.1f} s" for k, v in self.seconds.items())
        return (
            f"{name}: {self.scenarios} scenarios, {self.results} protocol results, {self.packets} packets, "
            f"{self.identical} identical, {self.within_tolerance} within 1e-9, {self.errors} errors alike, "
            f"{len(self.differences)} differing; Python engine live on {self.live}, stored for {self.stored} "
            f"({len(self.drift)} stored outcomes drifted) [{times}]"
        )


def chunk_cases(chunk: str) -> list[int]:
    """The indexes (into :func:`all_cases`) of chunk ``group-KofN``."""
    group, part = chunk.split("-")
    k, n = (int(x) for x in part.split("of"))
    return [i for i, (g, _, _) in enumerate(all_cases()) if g == group][k - 1 :: n]


_ALL_CASES: list[tuple[str, str, dict[str, Any]]] = []


def all_cases() -> list[tuple[str, str, dict[str, Any]]]:
    """:func:`cases`, drawn once a process."""
    if not _ALL_CASES:
        _ALL_CASES.extend(cases())
    return _ALL_CASES


def run_chunk(chunk: str, tmp: Path, stored: Stored) -> Chunk:
    """Every case of ``chunk`` through both engines, compared: the native engine here, twice (the second pass in
    reverse order: a record that changes between runs of the same engine is a difference), the Python engine live
    in a subprocess (meanwhile, on the other core) for the cases not stored and the sample, else stored."""
    _require_native()
    everything = all_cases()
    indexes = chunk_cases(chunk)
    c = Chunk()
    t0 = time.perf_counter()
    keep = {i: stored.outcomes.get(_doc_key(everything[i][2])) for i in indexes}
    sample = set(indexes[::SAMPLE_EVERY])
    live = [i for i in indexes if keep[i] is None or i in sample]
    c.live, c.stored = len(live), len(indexes) - len(live)
    proc, out = _start_reference([(i, everything[i][2]) for i in live], tmp, "reference")
    try:
        native: dict[int, str] = {}
        for i in indexes:
            group, _, doc = everything[i]
            rec = differential.record(i, doc)
            native[i] = _outcome(rec)
            c.scenarios += 1
            if "error" in rec:
                c.errors += 1
            else:
                c.results += len(rec["doc"]["results"])
                c.packets += sum(len(r["packets"]) for r in rec["doc"]["results"])
        c.seconds["native pass 1"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        for i in reversed(indexes):
            group, label, doc = everything[i]
            if _outcome(differential.record(i, doc)) != native[i]:
                again = [_roundtrip(differential.record(i, doc)) for _ in range(2)]
                diffs = differential.compare(*again) or ["the record changed between runs (its values or types)"]
                c.differences.append(_show(group, label, i, doc, "native engine not repeatable", diffs))
        c.seconds["native pass 2"] = time.perf_counter() - t1
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    ran = _finish_reference(proc, out, len(live))
    c.seconds["reference (wall, from start)"] = time.perf_counter() - t0
    t2 = time.perf_counter()
    # A stored outcome the native engine does not reproduce: the Python engine runs that case live too, so that a
    # stored outcome that is wrong (drift) is told from an engine difference.
    unsure = [i for i in indexes if i not in ran and keep[i] != native[i]]
    if unsure:
        proc, out = _start_reference([(i, everything[i][2]) for i in unsure], tmp, "unsure")
        ran.update(_finish_reference(proc, out, len(unsure)))
        c.live, c.stored = c.live + len(unsure), c.stored - len(unsure)
    mismatched: list[int] = []
    for i in indexes:
        group, label, doc = everything[i]
        if i in ran:
            backend, outcome = ran[i]
            assert backend in ("python", "-"), f"the reference subprocess ran the {backend!r} engine"
            if keep[i] is not None and keep[i] != outcome:
                c.drift.append(f"{group} #{i} ({label}): stored {keep[i]}, the Python engine now {outcome}")
        else:
            outcome = keep[i]
        if outcome == native[i]:
            c.identical += 1
        else:
            mismatched.append(i)
    if mismatched:  # the Python engine's whole records, to compare within the tolerance and to show
        refs = _full_reference_records([everything[i][2] for i in mismatched], tmp)
        for i, ref in zip(mismatched, refs, strict=True):
            group, label, doc = everything[i]
            if "backend" in ref:
                assert ref["backend"] == "python", f"the reference subprocess ran the {ref['backend']!r} engine"
            diffs = differential.compare(_roundtrip(differential.record(i, doc)), ref)
            if diffs:
                c.differences.append(_show(group, label, i, doc, "native (a) vs python (b)", diffs))
            else:
                c.within_tolerance += 1
    c.seconds["compare"] = time.perf_counter() - t2
    return c


def _show(group: str, label: str, i: int, doc: dict[str, Any], what: str, diffs: list[str]) -> str:
    listed = "\n    ".join(diffs[:SHOWN])
    return f"{group} #{i} ({label}) {what}:\n    {listed}\n  scenario: {json.dumps(doc)}"


@pytest.fixture(scope="module")
def stored() -> Stored:
    return load_store()


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


@pytest.mark.parametrize("chunk", CHUNK_IDS)
def test_native_engine_equals_python_engine(
    chunk: str, stored: Stored, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    c = run_chunk(chunk, tmp_path, stored)
    with capsys.disabled():
        print(f"\nengine differential (native vs python), {c.summary(chunk)}")
    assert c.scenarios > 0
    if c.drift:
        shown = "\n".join(c.drift[:SHOWN])
        pytest.fail(
            f"{len(c.drift)} of {c.live} stored outcomes of the Python engine are not what it computes now: "
            f"regenerate {STORE.relative_to(ROOT)} with `{REGENERATE}`\n{shown}"
        )
    if c.differences:
        shown = "\n".join(c.differences[:SHOWN])
        pytest.fail(f"{len(c.differences)} of {c.scenarios} {chunk} scenarios differ between the engines:\n{shown}")


def test_a_stored_outcome_the_python_engine_does_not_reproduce_is_drift(stored: Stored, tmp_path: Path) -> None:
    """The store is checked against the live Python engine, not trusted: two stored outcomes of the presets' chunk made
    wrong, one in the live sample and one not, are both reported as drift (and neither as an engine difference)."""
    if not stored.current:
        pytest.skip(f"{stored.why}: every case runs live")
    indexes = chunk_cases("presets-1of1")
    sampled, other = indexes[0], indexes[1]
    wrong = dict(stored.outcomes)
    for i in (sampled, other):
        wrong[_doc_key(all_cases()[i][2])] = "0" * 32
    c = run_chunk("presets-1of1", tmp_path, Stored(True, wrong, "", True))
    assert [d.split(" ", 2)[1] for d in c.drift] == [f"#{sampled}", f"#{other}"], c.drift
    assert c.differences == [] and c.identical == c.scenarios


def test_stored_python_reference_is_current(stored: Stored) -> None:
    """The stored outcomes of the Python engine (:data:`STORE`) are keyed by today's model modules and hold every case
    of the gate; else the differential ran every case live, and the store wants rewriting (in the same commit as the
    model's change)."""
    assert stored.sources_current, f"{stored.why}: rewrite it with `{REGENERATE}` (about 3 minutes of CPU)"
    if not stored.current:
        pytest.skip(f"{stored.why} (another machine's Python or libraries): every case ran live")
    if FULL:
        pytest.skip("DIFFERENTIAL_FULL=1: the store holds the gate's cases; those it does not hold ran live")
    missing = [label for _, label, doc in all_cases() if _doc_key(doc) not in stored.outcomes]
    assert missing == [], f"{len(missing)} cases not stored (first {missing[:5]}): rewrite it with `{REGENERATE}`"


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


def store(workers: int = 2) -> None:
    """Rewrite :data:`STORE`: every case of the gate on the Python engine (``workers`` subprocesses)."""
    import tempfile

    everything = all_cases()
    items = [(i, doc) for i, (_, _, doc) in enumerate(everything)]
    with tempfile.TemporaryDirectory() as tmp:
        started = [
            (_start_reference(items[w::workers], Path(tmp), f"part{w}"), len(items[w::workers])) for w in range(workers)
        ]
        outcomes: dict[int, tuple[str, str]] = {}
        for (proc, out), n in started:
            outcomes.update(_finish_reference(proc, out, n))
    assert {b for b, _ in outcomes.values()} <= {"python", "-"}, "the reference ran another engine"
    keys = sorted({_doc_key(doc): outcomes[i][1] for i, doc in items}.items())
    STORE.parent.mkdir(exist_ok=True)
    header = {"what": f"the Python engine's outcome fingerprints for test_engine_backends' cases; `{REGENERATE}`"}
    header["key"] = reference_key()
    STORE.write_text(
        json.dumps(header, sort_keys=True) + "\n" + "".join(f"{k} {v}\n" for k, v in keys), encoding="utf-8"
    )
    print(f"{STORE.relative_to(ROOT)}: {len(keys)} outcomes of {len(items)} cases")


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="The differential's Python reference (see this module's docstring).")
    ap.add_argument("--fingerprints", metavar="OUT", help="the reference subprocess: JSON lines in, outcomes to OUT")
    ap.add_argument("--store", action="store_true", help=f"rewrite {STORE.relative_to(ROOT)}")
    args = ap.parse_args(argv)
    if args.fingerprints:
        return _reference_main(args.fingerprints)
    if args.store:
        store()
        return 0
    ap.error("--fingerprints or --store")
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
