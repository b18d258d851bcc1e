"""The command line's JSON writer (``latency_lab.analysis.jsontext.dumps``, pydantic_core's serializer): what ``json.loads`` reads back is
the output document exactly (keys in order, ints as ints, every float bit for bit), the layout is ``json.dumps``'s,
and what ``json.dumps(allow_nan=False)`` refuses is still refused."""

from __future__ import annotations

import json
import math
import random
import struct
from pathlib import Path
from typing import Any

import pytest

from latency_lab import Scenario
from latency_lab.analysis.jsontext import dumps
from latency_lab.cli import main, predict_document
from latency_lab.scenario import limits
from tests.latency_lab.scenarios import every_feature


def same(a: Any, b: Any, path: str = "$") -> None:
    """``a`` and ``b`` are the same JSON value: same types (an int is not a float), keys in the same order, floats
    with the same bits (``-0.0`` is not ``0.0``)."""
    assert type(a) is type(b), f"{path}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, dict):
        assert list(a) == list(b), path
        for key in a:
            same(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{path}[{i}]")
    elif isinstance(a, float):
        assert a.hex() == b.hex(), f"{path}: {a!r} vs {b!r}"
    else:
        assert a == b, f"{path}: {a!r} vs {b!r}"


def test_same_tells_apart_what_equality_does_not() -> None:
    with pytest.raises(AssertionError):
        same({"a": 1}, {"a": 1.0})
    with pytest.raises(AssertionError):
        same([0.0], [-0.0])
    with pytest.raises(AssertionError):
        same({"a": 1, "b": 2}, {"b": 2, "a": 1})


#: Scenarios of every feature (seeded), each predicted plain; some with packets, one with formulas.
DOCS = every_feature(24, seed=13)


def _packets_fit(doc: dict[str, Any]) -> bool:
    """Whether a prediction of ``doc`` that lists its packets is within max_packets_work_units (the random scenarios
    include larger ones, refused with packets: not what these tests read back)."""
    return limits.work_units(Scenario.model_validate(doc)) <= limits.MAX_PACKETS_WORK_UNITS


@pytest.mark.parametrize("i", range(len(DOCS)))
def test_an_output_document_reads_back_exactly(i: int) -> None:
    options = {"packets": i % 4 == 0 and _packets_fit(DOCS[i]), "formulas": i == 1}
    doc = predict_document(DOCS[i], **options)
    for indent in (None, 2):
        text = dumps(doc, indent=indent)
        same(json.loads(text), doc)
        same(json.loads(text), json.loads(json.dumps(doc, indent=indent)))
    assert "\n" not in dumps(doc)  # one line: JSON Lines


def _random_doubles(n: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        (x,) = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))
        if math.isfinite(x):
            out.append(x)
    return out


EDGES = [
    0.0,
    -0.0,
    5e-324,
    2.2250738585072014e-308,
    1.7976931348623157e308,
    -1.7976931348623157e308,
    0.1,
    1 / 3,
    1e-7,
    1.5e-5,
    0.0001,
    1e15,
    1e16,
    1e21,
    1e22,
    2.0**53 + 2,
    70.0,
    123456.789,
]


def test_every_double_reads_back_bit_for_bit() -> None:
    values = EDGES + _random_doubles(20_000, seed=5) + [rng / 1000 for rng in range(0, 100_000, 7)]
    same(json.loads(dumps(values)), values)
    same(json.loads(dumps({"x": values}, indent=2)), {"x": values})


def test_ints_stay_ints_and_the_rest_as_json_dumps_writes_it() -> None:
    doc = {"n": [0, -1, 2**53 + 1, 2**64, -(2**70)], "b": [True, False], "none": None, "s": "", "e": [], "o": {}}
    assert dumps(doc) == json.dumps(doc, separators=(",", ":"))
    assert dumps(doc, indent=2) == json.dumps(doc, indent=2)  # the CLI's pretty layout: ": ", two spaces, [] and {}
    same(json.loads(dumps(doc)), doc)


@pytest.mark.parametrize(
    "text", ["µs \u00d7 2", "line\u2028separator", 'quote " and \\ and \x00 \t', "\ud800 alone", "😀"]
)
def test_strings_are_escaped_as_json_dumps_escapes_them(text: str) -> None:
    doc = {"why": text, text: 1}
    assert dumps(doc) == json.dumps(doc, separators=(",", ":"))
    assert dumps(doc).isascii()


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_nan_and_infinity_are_refused_as_json_dumps_refuses_them(bad: float) -> None:
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        dumps({"results": [{"page_load_ms": bad}]})
    with pytest.raises(ValueError):
        dumps([bad], indent=2)


def test_nan_and_infinity_in_a_string_are_just_text() -> None:
    doc = {"note": "NaN or -Infinity is not a time", "ms": 1.5}
    assert dumps(doc) == json.dumps(doc, separators=(",", ":"))
    assert dumps(doc, indent=2) == json.dumps(doc, indent=2)


def test_jsonl_lines_read_back_as_predict_document_exactly(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """End to end: each line ``predict --jsonl`` prints is its scenario's output document, exactly."""
    file = tmp_path / "docs.jsonl"
    fits = [d for d in DOCS if _packets_fit(d)][:8]
    assert len(fits) == 8
    file.write_text("".join(json.dumps(d) + "\n" for d in fits), encoding="utf-8")
    assert main(["predict", "--packets", str(file)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert len(lines) == 8
    for line, doc in zip(lines, fits, strict=True):
        same(json.loads(line), predict_document(doc, packets=True))
