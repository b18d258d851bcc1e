"""The differential check of the two engines (the Speed issue): the same scenario through both, compared.

A helper module for ``tests/latency_lab/engine/test_engine_backends.py`` and a command line (not a test module)::

    LATENCY_LAB_ENGINE=python python tests/latency_lab/differential.py --out FILE < docs.jsonl

reads scenario documents as JSON Lines from stdin and writes one record per document, in input order, as
JSON Lines: ``{"i": i, "backend": engine_backend(), "doc": latency_lab.predict(doc, packets=True)}``, or
``{"i": i, "error": "<exception type>: message"}`` when the prediction raises (``packets=True``: the packet
schedules are compared too).

:func:`compare` lists the differences between two records (or any two JSON values): floats within a
relative 1e-9 (absolute 1e-12 near zero), everything else exactly, types included (an int ``1`` and a float
``1.0`` differ); an error on one side only, or two different errors, is a difference too.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: the repository root first on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

REL_TOL = 1e-9
ABS_TOL = 1e-12
#: The record keys that name the run, not its outcome.
META = ("i", "backend")


def record(i: int, doc: dict[str, Any]) -> dict[str, Any]:
    """Predict ``doc`` with this process's engine: the record the command line writes for input line ``i``.

    Within a budget of MAX_ENGINE_STEPS counted a step a step on either engine (``size_only``: no price for the Python
    engine's slower steps nor for the loss analysis), so both engines stop at the same step if at all: the records
    compare the engines' numbers, not their prices (a request's budget charges a Python step 26 native ones, and a
    lossy scenario the native engine finishes, lossy[1008], was stopped on the Python side, 2026-11-29)."""
    import latency_lab
    from latency_lab.scenario import limits

    try:
        with limits.budget(limits.MAX_ENGINE_STEPS, size_only=True):
            out = latency_lab.predict(doc, packets=True)
    except Exception as exc:  # every exception is part of the outcome and must match the other engine's
        return {"i": i, "error": error_text(exc)}
    return {"i": i, "backend": latency_lab.engine_backend(), "doc": out}


def both_engines(doc: dict[str, Any], protocol: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``protocol``'s result for ``doc`` in this process on the Python engine (the readable reference,
    :func:`latency_lab.analysis.predict.simulate`) and on the native one, asserted equal field by field
    (:func:`compare`, through JSON as the API writes them): ``(python, native)``."""
    from latency_lab.analysis import native
    from latency_lab.analysis.predict import result, simulate
    from latency_lab.scenario.params import resolve
    from latency_lab.scenario.schema import Scenario

    p = resolve(Scenario.model_validate(doc))
    s = simulate(p, protocol)
    ref = dict(result(s, protocol))
    s.release()
    got = dict(native.run(native.Prepared(p), protocol))
    differences = compare(json.loads(json.dumps(ref)), json.loads(json.dumps(got)))
    assert differences == [], differences
    return ref, got


def error_text(exc: BaseException) -> str:
    """``"<exception type>: message"``, as both engines must report it."""
    return f"{type(exc).__name__}: {exc}"


def line(rec: dict[str, Any]) -> str:
    """A record as one JSON line (no newline): the command line's output format."""
    return json.dumps(rec, allow_nan=True)


def _kind(x: Any) -> str:
    return type(x).__name__


def _floats_differ(x: float, y: float) -> bool:
    if math.isnan(x) or math.isnan(y):
        return not (math.isnan(x) and math.isnan(y))
    return not math.isclose(x, y, rel_tol=REL_TOL, abs_tol=ABS_TOL)


def _walk(a: Any, b: Any, path: str, out: list[str], limit: int) -> None:
    if len(out) >= limit:
        return
    if type(a) is not type(b):
        out.append(f"{path or '.'}: type {_kind(a)} {a!r:.200} != {_kind(b)} {b!r:.200}")
    elif isinstance(a, dict):
        if list(a) != list(b):
            only_a = [k for k in a if k not in b]
            only_b = [k for k in b if k not in a]
            if only_a or only_b:
                out.append(f"{path or '.'}: keys only in a {only_a}, only in b {only_b}")
            else:
                out.append(f"{path or '.'}: key order {list(a)} != {list(b)}")
        for k in a:
            if k in b:
                _walk(a[k], b[k], f"{path}.{k}", out, limit)
    elif isinstance(a, list):
        if len(a) != len(b):
            out.append(f"{path or '.'}: length {len(a)} != {len(b)}")
        for k, (x, y) in enumerate(zip(a, b, strict=False)):
            _walk(x, y, f"{path}[{k}]", out, limit)
    elif isinstance(a, float):
        if _floats_differ(a, b):
            rel = abs(a - b) / max(abs(a), abs(b)) if math.isfinite(a) and math.isfinite(b) else math.inf
            out.append(f"{path}: {a!r} != {b!r} (relative {rel:.3g})")
    elif a != b:
        out.append(f"{path}: {a!r:.300} != {b!r:.300}")


def compare(a: dict[str, Any], b: dict[str, Any], limit: int = 200) -> list[str]:
    """The differences between two records of :func:`record` (their ``i`` and ``backend`` are ignored) or
    two output documents, at most ``limit`` of them, each as ``path: a-side != b-side``.

    Floats (``page_load_ms``, every ``breakdown_ms`` part and every other float) agree within a relative
    1e-9, or an absolute 1e-12 near zero; ints, strings, bools, None, list lengths, dict keys (and their
    order) and the types themselves must be identical. A record with an ``error`` matches only a record
    with the same error (exception type and message).
    """
    if "error" in a or "error" in b:
        ea, eb = a.get("error"), b.get("error")
        if ea == eb:
            return []
        if ea is None or eb is None:
            raised, other = ("a", ea) if ea is not None else ("b", eb)
            return [f"error: only {raised} raised: {other}"]
        return [f"error: {ea!r} != {eb!r}"]
    out: list[str] = []
    _walk({k: v for k, v in a.items() if k not in META}, {k: v for k, v in b.items() if k not in META}, "", out, limit)
    return out


def run(lines: Iterable[str], out: Any) -> int:
    """Predict every document of ``lines`` (JSON Lines), writing one record line each to ``out``; the count."""
    n = 0
    for i, text in enumerate(lines):
        if not text.strip():
            continue
        out.write(line(record(i, json.loads(text))) + "\n")
        n += 1
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="file the records are written to (JSON Lines)")
    args = ap.parse_args(argv)
    with open(args.out, "w", encoding="utf-8") as out:
        run(sys.stdin, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
