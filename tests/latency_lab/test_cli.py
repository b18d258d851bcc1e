"""``python -m latency_lab``: predict and presets, in-process through ``main(argv)`` and (a few) in a subprocess."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from latency_lab import PRESETS, predict
from latency_lab.analysis.answer import listed
from latency_lab.analysis.result import Prediction
from latency_lab.cli import IN_FLIGHT_PER_JOB, UserError, main, predict_document
from latency_lab.scenario.errors import allowed
from latency_lab.scenario.overlay import deep_merge

ROOT = Path(__file__).resolve().parents[2]

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Run:
    """Call ``main(argv)`` with ``stdin`` as standard input; returns (status, stdout, stderr)."""

    def call(*argv: str, stdin: str = "") -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        status = main(list(argv))
        out, err = capsys.readouterr()
        return status, out, err

    return call


def write(tmp_path: Path, data: Any, name: str = "scenario.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


SCENARIO = {"protocols": ["http10", "persistent"], "network": {"rtt_ms": 20, "bandwidth_bps": 1_000_000}}


def answer(scenario: Any, **options: Any) -> Prediction:
    """What the command line prints for a scenario: predict's document as the API answers it (events and path stalls
    listed up to max_listed, with their totals: latency_lab.analysis.answer.listed)."""
    return listed(predict(scenario, **options))


def test_a_long_result_lists_at_most_max_listed_events_and_says_how_many(run: Run, tmp_path: Path) -> None:
    """One segment a round over a 1.5 MB style sheet: about 2,000 events and 1,000 path stalls, printed cut to
    max_listed each with their totals (issue 26: the API's answer, 56.7 MB of JSON uncut at 9.67 MB)."""
    from latency_lab.scenario.limits import MAX_LISTED

    long = {"protocols": ["persistent"], "page": {"css_bytes": 1_500_000}, "tcp": {"receive_window_bytes": 1994}}
    status, out, _ = run("predict", write(tmp_path, long))
    [r] = json.loads(out)["results"]
    full = predict(long)["results"][0]
    assert status == 0
    assert r["events"] == full["events"][:MAX_LISTED] and r["events_total"] == len(full["events"]) > MAX_LISTED
    assert r["path_stalls"] == full["path_stalls"][:MAX_LISTED]
    assert r["path_stalls_total"] == len(full["path_stalls"]) > MAX_LISTED


# --- predict ---------------------------------------------------------------------------------


def test_predict_file_prints_the_output_document(run: Run, tmp_path: Path) -> None:
    status, out, err = run("predict", write(tmp_path, SCENARIO))
    assert (status, err) == (0, "")
    assert json.loads(out) == answer(SCENARIO)


def test_predict_stdin(run: Run) -> None:
    status, out, _ = run("predict", "-", stdin=json.dumps(SCENARIO))
    assert status == 0
    assert json.loads(out) == answer(SCENARIO)


def test_predict_batch_prints_an_array(run: Run, tmp_path: Path) -> None:
    batch = [SCENARIO, {"protocols": ["pipelined"], "network": {"rtt_ms": 200}}]
    status, out, _ = run("predict", write(tmp_path, batch))
    assert status == 0
    assert json.loads(out) == [answer(s) for s in batch]


def test_predict_preset_alone(run: Run) -> None:
    status, out, _ = run("predict", "--preset", "h96-lan")
    assert status == 0
    assert json.loads(out) == answer(PRESETS["h96-lan"].scenario)


def test_predict_preset_with_file_deep_merges(run: Run) -> None:
    override = {"network": {"rtt_ms": 5}, "protocols": ["http10", "persistent"]}
    status, out, _ = run("predict", "--preset", "h96-lan", "-", stdin=json.dumps(override))
    assert status == 0
    doc = json.loads(out)
    scenario = doc["scenario"]
    assert scenario["network"]["rtt_ms"] == 5
    assert scenario["network"]["bandwidth_bps"] == 10_000_000  # kept from the preset: nested objects merge
    assert scenario["http"]["request_bytes"] == 52
    assert [r["protocol"] for r in doc["results"]] == ["http10", "persistent"]  # a list replaces
    assert doc == answer(deep_merge(PRESETS["h96-lan"].document, override))


def test_predict_preset_applies_to_each_item_of_a_batch(run: Run) -> None:
    batch = [{}, {"network": {"rtt_ms": 1}}]
    status, out, _ = run("predict", "--preset", "pm94-remote", "-", stdin=json.dumps(batch))
    assert status == 0
    docs = json.loads(out)
    assert [d["scenario"]["network"]["rtt_ms"] for d in docs] == [70, 1]
    assert all(d["scenario"]["tcp"]["receive_window_bytes"] == 8192 for d in docs)


def test_deep_merge_does_not_touch_its_inputs() -> None:
    base = {"a": {"b": 1, "c": [1, 2]}, "d": 1}
    merged = deep_merge(base, {"a": {"c": [3]}, "e": {"f": 1}})
    assert merged == {"a": {"b": 1, "c": [3]}, "d": 1, "e": {"f": 1}}
    assert base == {"a": {"b": 1, "c": [1, 2]}, "d": 1}


def test_packets(run: Run) -> None:
    status, out, _ = run("predict", "--packets", "-", stdin=json.dumps(SCENARIO))
    assert status == 0
    doc = json.loads(out)
    assert doc == answer(SCENARIO, packets=True)
    assert all(r["packets"] for r in doc["results"])
    _, plain, _ = run("predict", "-", stdin=json.dumps(SCENARIO))
    assert all("packets" not in r for r in json.loads(plain)["results"])


def test_formulas(run: Run) -> None:
    status, out, _ = run("predict", "--formulas", "--preset", "h96-lan")
    assert status == 0
    doc = json.loads(out)
    formula = doc["results"][0]["formula"]["page_load_ms"]
    assert formula["text"].startswith("8*RTT + 3*T_d") and formula["latex"] and formula["mathml"]
    assert doc["glossary"]["T_d"]["unit"] == "ms"
    status, _, err = run("predict", "--format", "csv", "--formulas", "--preset", "h96-lan")
    assert status == 2 and "--formulas" in err


# --- CSV -------------------------------------------------------------------------------------


def test_csv_one_row_per_protocol(run: Run, tmp_path: Path) -> None:
    file = write(tmp_path, SCENARIO)
    status, out, _ = run("predict", "--format", "csv", file)
    assert status == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    doc = json.loads(run("predict", file)[1])
    results = doc["results"]
    assert [r["protocol"] for r in rows] == ["http10", "persistent"]
    header = list(rows[0])
    assert header == [
        "protocol",
        "page_load_ms",
        *(f"breakdown_ms.{k}" for k in results[0]["breakdown_ms"]),
        *(f"counts.{k}" for k in results[0]["counts"]),
        "expected_with_loss.loss_rate",
        "expected_with_loss.page_load_ms",
        "expected_with_loss.extra_ms",
        *(f"expected_with_loss.by_cause_ms.{k}" for k in results[0]["expected_with_loss"]["by_cause_ms"]),
        "expected_with_loss.head_of_line_ms",
        "leading_ms",  # added 2026-11-28 at the end: the time that leads (docs/manual.md)
    ]
    for row, result in zip(rows, results, strict=True):
        assert float(row["page_load_ms"]) == result["page_load_ms"]
        assert float(row["leading_ms"]) == result["expected_with_loss"]["page_load_ms"]
        loss = result["expected_with_loss"]
        assert float(row["expected_with_loss.extra_ms"]) == loss["extra_ms"]
        for k, v in loss["by_cause_ms"].items():
            assert float(row[f"expected_with_loss.by_cause_ms.{k}"]) == v
        for k, v in result["breakdown_ms"].items():
            assert float(row[f"breakdown_ms.{k}"]) == v
        for k, v in result["counts"].items():
            assert int(row[f"counts.{k}"]) == v


def test_csv_batch_has_a_scenario_column(run: Run) -> None:
    batch = [SCENARIO, {"protocols": ["getall"]}]
    status, out, _ = run("predict", "--format", "csv", "-", stdin=json.dumps(batch))
    assert status == 0
    table = list(csv.reader(io.StringIO(out)))
    assert table[0][:3] == ["scenario", "protocol", "page_load_ms"]
    assert [(r[0], r[1]) for r in table[1:]] == [("0", "http10"), ("0", "persistent"), ("1", "getall")]
    docs = json.loads(run("predict", "-", stdin=json.dumps(batch))[1])
    assert float(table[3][2]) == docs[1]["results"][0]["page_load_ms"]


def test_csv_with_packets_is_a_usage_error(run: Run) -> None:
    status, out, err = run("predict", "--format", "csv", "--packets", "--preset", "h96-lan")
    assert (status, out) == (2, "")
    assert "--packets" in err


# --- presets ---------------------------------------------------------------------------------


def test_presets_lists_name_title_citation(run: Run) -> None:
    status, out, _ = run("presets")
    assert status == 0
    lines = out.splitlines()
    assert len(lines) == len(PRESETS)
    for line, p in zip(lines, PRESETS.values(), strict=True):
        assert line.startswith(p.name + " ")
        assert p.title in line and p.citation in line


def test_presets_json(run: Run) -> None:
    status, out, _ = run("presets", "--json")
    assert status == 0
    listed = json.loads(out)
    assert [p["name"] for p in listed] == list(PRESETS)
    for item in listed:
        p = PRESETS[item["name"]]
        assert item["title"] == p.title and item["citation"] == p.citation
        assert item["assumptions"] == p.assumptions
        assert item["fitted"] == p.fitted
        assert item["document"] == json.loads(json.dumps(p.document))


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("document", "path", "expected"),
    [
        ({"network": {"rtt_ms": -5}}, "network.rtt_ms", ["greater than or equal to 0", "from 0 to 10,000 ms"]),
        ({"network": {"bandwidth_bps": "fast"}}, "network.bandwidth_bps", ["valid number", "1,000 to 100,000,000,000"]),
        ({"network": {"rtt": 20}}, "network.rtt", ["unknown field", "rtt_ms"]),
        ({"tcp": {"mss_bytes": 50}}, "tcp.mss_bytes", ["greater than or equal to 100", "from 100 to 65,495 bytes"]),
        ({"tcp": {"profile": "solaris"}}, "tcp.profile", ["'bsd', 'ns3', 'rfc5681' or 'linux'"]),
        ({"protocols": ["http11"]}, "protocols[0]", ["'persistent'"]),
        ({"http": {"parallel_connections": 100}}, "http.parallel_connections", ["less than or equal to 64"]),
        ({"network": {"uplink_delay_ms": 100}}, "network", ["uplink_delay_ms", "cannot exceed rtt_ms"]),
        ({"http": {"early_hints_bytes": 0}}, "http.early_hints_bytes", ["from 1 to 65,536 bytes"]),
        (
            {"page": {"object_count": 2, "object_size_bytes": 10, "object_early_hint": [True]}},
            "page.object_early_hint",
            ["one value per embedded object: 2 objects, 1 values"],
        ),
        ({"page": {"origins": [{"rtt_ms": -1}]}}, "page.origins[0].rtt_ms", ["greater than or equal to 0"]),
        (
            {"page": {"origins": [{"bandwidth_bps": 1e6, "coalesce_with_html": True}]}},
            "page.origins[0]",
            ["with bandwidth_bps given (a path of its own) cannot have coalesce_with_html true"],
        ),
    ],
)
def test_bad_field_exits_2_naming_the_path(run: Run, document: Any, path: str, expected: list[str]) -> None:
    status, out, err = run("predict", "-", stdin=json.dumps(document))
    assert (status, out) == (2, "")
    lines = err.splitlines()
    assert len(lines) == 1
    assert f"error: {path}: " in lines[0]
    for text in expected:
        assert text in lines[0]
    assert "Traceback" not in err


def test_one_line_per_error(run: Run) -> None:
    bad = {"network": {"rtt_ms": -1, "bandwidth_bps": "10 Mb/s"}, "tcp": {"nagle": "maybe"}, "extra": 1}
    status, _, err = run("predict", "-", stdin=json.dumps(bad))
    assert status == 2
    lines = err.splitlines()
    assert len(lines) == 4
    for path in ("network.rtt_ms", "network.bandwidth_bps", "tcp.nagle", "extra"):
        assert sum(f"error: {path}: " in line for line in lines) == 1


def test_batch_errors_name_the_item(run: Run) -> None:
    batch = [{}, {"network": {"rtt_ms": -1}}, {"page": {"html_bytes": "big"}}]
    status, out, err = run("predict", "-", stdin=json.dumps(batch))
    assert (status, out) == (2, "")
    lines = err.splitlines()
    assert len(lines) == 2
    assert "[1].network.rtt_ms: " in lines[0]
    assert "[2].page.html_bytes: " in lines[1]


def test_batch_item_must_be_an_object(run: Run) -> None:
    status, _, err = run("predict", "-", stdin="[{}, 3]")
    assert status == 2
    assert "[1]" in err and "JSON object" in err


def test_preset_merge_errors_name_the_path(run: Run) -> None:
    status, _, err = run("predict", "--preset", "h96-lan", "-", stdin='{"network": {"rtt_ms": -1}}')
    assert status == 2
    assert "network.rtt_ms" in err


@pytest.mark.parametrize("text", ["{", "", '{"network": {"rtt_ms": 1,}}', "nope"])
def test_invalid_json(run: Run, text: str) -> None:
    status, out, err = run("predict", "-", stdin=text)
    assert (status, out) == (2, "")
    assert "invalid JSON" in err and "line 1" in err


def test_unknown_preset(run: Run) -> None:
    status, out, err = run("predict", "--preset", "h96")
    assert (status, out) == (2, "")
    assert "unknown preset 'h96'" in err
    assert "h96-lan" in err


def test_unreadable_file(run: Run, tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    status, out, err = run("predict", str(missing))
    assert (status, out) == (2, "")
    assert str(missing) in err and "cannot read" in err
    status, _, err = run("predict", str(tmp_path))  # a directory
    assert status == 2 and "cannot read" in err
    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes('{"page": "\xe9"}'.encode("latin-1"))
    status, _, err = run("predict", str(latin1))
    assert status == 2 and "UTF-8" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["predict"],  # neither FILE nor --preset
        ["predict", "--format", "xml", "-"],
        ["frobnicate"],
        [],
    ],
)
def test_usage_errors_exit_2(run: Run, argv: list[str]) -> None:
    status, out, err = run(*argv)
    assert (status, out) == (2, "")
    assert "usage:" in err


def test_help_exits_0(run: Run) -> None:
    status, out, _ = run("predict", "--help")
    assert status == 0
    assert "--preset" in out


# --- JSON Lines and --jobs ------------------------------------------------------------------


def jsonl(docs: list[Any]) -> str:
    return "".join(json.dumps(d) + "\n" for d in docs)


def lines_of(out: str) -> list[dict[str, Any]]:
    assert out.endswith("\n")
    return [json.loads(line) for line in out.splitlines()]


#: Cheap and dear scenarios mixed, so that with --jobs later lines can be done before earlier ones.
MIXED = [
    {"protocols": ["http10"], "page": {"object_count": 40, "object_size_bytes": 20_000}, "network": {"rtt_ms": i}}
    if i % 5 == 0
    else {"protocols": ["h2"], "network": {"rtt_ms": i}}
    for i in range(40)
]

#: A valid scenario the work estimate refuses before anything runs (latency_lab.scenario.limits: it counts the server's
#: writes where they are smaller than a segment): a 3 MB page in one-byte writes.
OVER_LIMIT = {"http": {"server_write_bytes": 1}, "page": {"html_bytes": 3_000_000}}


def test_jsonl_round_trip_equals_predict_on_each_scenario(run: Run, tmp_path: Path) -> None:
    scenarios = [SCENARIO, {}, {"protocols": ["pipelined", "h3"], "network": {"rtt_ms": 300}}]
    file = write(tmp_path, jsonl(scenarios), "scenarios.jsonl")  # a .jsonl name: JSON Lines without --jsonl
    status, out, err = run("predict", file)
    assert (status, err) == (0, "")
    assert len(out.splitlines()) == len(scenarios)  # one compact line per document
    docs = lines_of(out)
    for doc, scenario in zip(docs, scenarios, strict=True):
        expected = answer(scenario)
        assert [r["page_load_ms"] for r in doc["results"]] == [r["page_load_ms"] for r in expected["results"]]
        assert doc == expected


def test_jsonl_from_stdin_with_preset_merged_under_each_line(run: Run) -> None:
    lines = [{}, {"network": {"rtt_ms": 1}}, {"protocols": ["http10", "persistent"]}]
    status, out, err = run("predict", "--jsonl", "--preset", "pm94-remote", "-", stdin=jsonl(lines))
    assert (status, err) == (0, "")
    docs = lines_of(out)
    assert docs == [answer(deep_merge(PRESETS["pm94-remote"].document, line)) for line in lines]
    assert [d["scenario"]["network"]["rtt_ms"] for d in docs] == [70, 1, 70]


def test_jsonl_skips_blank_lines_but_counts_them(run: Run) -> None:
    text = '\n{"network": {"rtt_ms": 5}}\n   \n\n{"network": {"rtt_ms": -5}}\n'
    status, out, err = run("predict", "--jsonl", "-", stdin=text)
    assert status == 2
    docs = lines_of(out)
    assert docs[0]["scenario"]["network"]["rtt_ms"] == 5
    assert docs[1]["line"] == 5 and len(docs) == 2
    assert "error: <stdin>: line 5: network.rtt_ms: " in err


@pytest.mark.parametrize("source", ["file", "stdin"])  # a file goes to the workers in chunks, stdin line by line
def test_jsonl_jobs_2_keeps_the_input_order(run: Run, tmp_path: Path, source: str) -> None:
    if source == "file":
        status, out, err = run("predict", "--jobs", "2", write(tmp_path, jsonl(MIXED), "mixed.jsonl"))
    else:
        status, out, err = run("predict", "--jsonl", "--jobs", "2", "-", stdin=jsonl(MIXED))
    assert (status, err) == (0, "")
    docs = lines_of(out)
    assert [d["scenario"]["network"]["rtt_ms"] for d in docs] == list(range(40))
    assert docs == [answer(s) for s in MIXED]


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"network": {"rtt_ms": -5}}', "line 3: network.rtt_ms: Input should be greater than or equal to 0"),
        ('{"network": {"rtt": 5}}', "line 3: network.rtt: "),
        ('{"network": {"rtt_ms": 5},}', "line 3: invalid JSON: "),
        ("[{}]", "line 3: the input must be a scenario (a JSON object), not an array"),
        (json.dumps(OVER_LIMIT), "line 3: this prediction is too much work for one request: it would cost"),
    ],
)
def test_jsonl_bad_line_is_recorded_and_the_stream_goes_on(
    run: Run, tmp_path: Path, jobs: str, line: str, expected: str
) -> None:
    text = jsonl([{"network": {"rtt_ms": 1}}, {"network": {"rtt_ms": 2}}]) + line + "\n" + jsonl(MIXED)
    file = write(tmp_path, text, "bad.jsonl")
    status, out, err = run("predict", "--jobs", jobs, file)
    assert status == 2  # some line was bad
    docs = lines_of(out)
    # every line has its line in the output, in order: the bad one a record of its problems
    assert [d["scenario"]["network"]["rtt_ms"] for d in docs[:2]] == [1, 2]
    assert docs[2]["line"] == 3
    assert [
        f"python -m latency_lab predict: error: {file}: line 3: {p}" for p in docs[2]["problems"]
    ] == err.splitlines()
    assert [d["scenario"]["network"]["rtt_ms"] for d in docs[3:]] == [s["network"]["rtt_ms"] for s in MIXED]
    assert err.startswith(f"python -m latency_lab predict: error: {file}: {expected}")
    assert "Traceback" not in err


@pytest.mark.parametrize("source", ["file", "stdin"])
def test_jsonl_jobs_2_bad_line_deep_in_the_stream(run: Run, tmp_path: Path, source: str) -> None:
    lines = [*MIXED[:29], OVER_LIMIT, *MIXED[30:]]  # line 30: past the first chunks of a file
    if source == "file":
        name = write(tmp_path, jsonl(lines), "deep.jsonl")
        status, out, err = run("predict", "--jobs", "2", name)
    else:
        name = "<stdin>"
        status, out, err = run("predict", "--jsonl", "--jobs", "2", "-", stdin=jsonl(lines))
    assert status == 2
    docs = lines_of(out)
    assert docs[:29] == [answer(s) for s in MIXED[:29]]
    assert docs[29]["line"] == 30
    assert docs[30:] == [answer(s) for s in MIXED[30:]]
    assert err.startswith(f"python -m latency_lab predict: error: {name}: line 30: this prediction is too much work")
    assert len(err.splitlines()) == 1


class LongInput(io.TextIOBase):
    """Standard input of ``end`` lines made one at a time as they are read, line ``bad`` a bad scenario; counts the
    reads."""

    def __init__(self, bad: int, end: int) -> None:
        super().__init__()
        self.bad = bad
        self.end = end
        self.lines_read = 0

    def readable(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> str:
        if self.lines_read == self.end:
            return ""
        self.lines_read += 1
        rtt = -1 if self.lines_read == self.bad else self.lines_read
        return json.dumps({"protocols": ["h2"], "network": {"rtt_ms": rtt}}) + "\n"


class CountingOutput(io.StringIO):
    """Standard output that notes, at each line written, how many lines of ``source`` had been read."""

    def __init__(self, source: LongInput) -> None:
        super().__init__()
        self.source = source
        self.read_at_write: list[int] = []

    def write(self, text: str) -> int:
        self.read_at_write.extend([self.source.lines_read] * text.count("\n"))
        return super().write(text)


@pytest.mark.parametrize(("jobs", "ahead"), [("1", 0), ("2", IN_FLIGHT_PER_JOB * 2 + 2)])
def test_jsonl_reads_as_it_goes_past_a_bad_line(monkeypatch: pytest.MonkeyPatch, jobs: str, ahead: int) -> None:
    """The input is never read whole: one line at a time (with --jobs, at most a bounded window ahead of the
    output: latency_lab.cli.IN_FLIGHT_PER_JOB chunks of one line per worker), and a bad line does not stop it."""
    source = LongInput(bad=3, end=40)
    out = CountingOutput(source)
    monkeypatch.setattr(sys, "stdin", source)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert main(["predict", "--jsonl", "--jobs", jobs, "-"]) == 2
    docs = lines_of(out.getvalue())
    assert len(docs) == 40 and docs[2] == {"line": 3, "problems": [docs[2]["problems"][0]]}
    assert [d["scenario"]["network"]["rtt_ms"] for d in docs if "line" not in d] == [n for n in range(1, 41) if n != 3]
    assert "<stdin>: line 3: network.rtt_ms: " in sys.stderr.getvalue()
    for k, read in enumerate(out.read_at_write, start=1):  # line k written when at most k + ahead had been read
        assert k <= read <= k + ahead


def test_jsonl_not_utf8_names_the_line(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{}\n{"page": "\xe9"}\n')
    status, out, err = run("predict", str(path))
    assert status == 2
    assert len(lines_of(out)) == 2 and lines_of(out)[1]["line"] == 2
    assert f"{path}: line 2: cannot read: not UTF-8" in err


def test_jsonl_usage_errors(run: Run, tmp_path: Path) -> None:
    status, out, err = run("predict", "--format", "csv", write(tmp_path, "{}\n", "s.jsonl"))
    assert (status, out) == (2, "")
    assert "--format csv does not go with JSON Lines" in err
    status, _, err = run("predict", "--jsonl", "--preset", "h96-lan")
    assert status == 2 and "--jsonl needs a FILE" in err
    for jobs in ("0", "-1", "two"):
        status, _, err = run("predict", "--jobs", jobs, "-")
        assert status == 2 and "--jobs: must be a whole number" in err
    status, out, err = run("predict", "--jsonl", str(tmp_path / "missing.jsonl"))
    assert (status, out) == (2, "")
    assert "cannot read" in err
    status, out, err = run("predict", "--jsonl", "--preset", "h96", "-", stdin="{}\n")
    assert (status, out) == (2, "")
    assert "unknown preset 'h96'" in err


def test_help_says_how_json_lines_is_chosen(run: Run) -> None:
    status, out, _ = run("predict", "--help")
    assert status == 0
    assert "--jsonl" in out and "--jobs N" in out
    assert "name ends in .jsonl" in out


def test_batch_with_jobs_2_equals_one_process(run: Run) -> None:
    status, out, err = run("predict", "--jobs", "2", "-", stdin=json.dumps(MIXED[:12]))
    assert (status, err) == (0, "")
    assert json.loads(out) == [answer(s) for s in MIXED[:12]]
    status, out, err = run("predict", "--jobs", "2", "-", stdin=json.dumps([{}, {}, OVER_LIMIT, {}]))
    assert (status, out) == (2, "")
    assert "error: [2]: this prediction is too much work for one request" in err


def test_predict_document_is_predict_within_the_budget() -> None:
    assert predict_document(SCENARIO) == answer(SCENARIO)
    override = {"network": {"rtt_ms": 5}}
    assert predict_document(override, preset="h96-lan") == answer(deep_merge(PRESETS["h96-lan"].document, override))
    with pytest.raises(UserError, match=r"^network\.rtt_ms: .*\nnetwork\.bandwidth_bps: "):
        predict_document({"network": {"rtt_ms": -1, "bandwidth_bps": "x"}})
    with pytest.raises(UserError, match=r"at most 60,000 allowed \(max_work_units\)"):
        predict_document(OVER_LIMIT)
    with pytest.raises(UserError, match="must be a scenario"):
        predict_document([SCENARIO])


# --- the allowed ranges, from the schema -----------------------------------------------------


@pytest.mark.parametrize(
    ("loc", "expected"),
    [
        (("network", "rtt_ms"), "a number from 0 to 10,000 ms"),
        (("network", "uplink_bandwidth_bps"), "a number from 1,000 to 100,000,000,000 bit/s or null"),
        (("tcp", "initial_window_segments"), "a whole number from 1 to 100 segments or null"),
        (("tcp", "nagle"), "true, false or null"),
        (("tcp", "handshake"), "'three_way', 'none', 'ttcp' or 'fast_open'"),
        (
            ("protocols",),
            "an array of 1 to 8 items, each 'http10', 'http10_parallel', 'persistent', 'pipelined', 'getall', 'persistent_parallel', 'h2' or 'h3'",
        ),
        (("page", "object_bytes", 3), "a whole number of bytes"),
        (("network", "nonsense"), None),
        (("network", 0), None),
    ],
)
def test_allowed(loc: tuple[str | int, ...], expected: str | None) -> None:
    assert allowed(loc) == expected


# --- the real command line (each start costs about a second: keep these few) -----------------


def _cli(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "latency_lab", *argv],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_subprocess_predict_file(tmp_path: Path) -> None:
    proc = _cli("predict", write(tmp_path, SCENARIO))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == answer(SCENARIO)


def test_subprocess_bad_input_exits_2_without_traceback() -> None:
    proc = _cli("predict", "--preset", "h96-lan", "-", stdin='{"network": {"rtt_ms": -5, "bandwidth_bps": "x"}}')
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 2
    assert "network.rtt_ms" in lines[0] and "greater than or equal to 0" in lines[0]
    assert "network.bandwidth_bps" in lines[1]


def test_subprocess_csv_batch_from_stdin() -> None:
    proc = _cli("predict", "--format", "csv", "-", stdin=json.dumps([SCENARIO, {}]))
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert [(r["scenario"], r["protocol"]) for r in rows[:3]] == [("0", "http10"), ("0", "persistent"), ("1", "http10")]
    assert len(rows) == 2 + 5


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_subprocess_jsonl_streams(jobs: str) -> None:
    """Each line is answered before the next is written: the output is not held back until the input ends."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "latency_lab", "predict", "--jsonl", "--jobs", jobs, "-"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    watchdog = threading.Timer(60, proc.kill)  # a stream that does not stream would hang the test
    watchdog.start()
    try:
        for rtt in (10, 20, 30):
            proc.stdin.write(json.dumps({"network": {"rtt_ms": rtt}}) + "\n")
            proc.stdin.flush()
            line = proc.stdout.readline()  # while stdin is still open
            assert line, proc.stderr.read()
            assert json.loads(line) == answer({"network": {"rtt_ms": rtt}})
        proc.stdin.close()
        assert proc.stdout.read() == ""
        assert proc.wait() == 0
        assert proc.stderr.read() == ""
    finally:
        watchdog.cancel()
        proc.kill()
        proc.wait()
        for stream in (proc.stdout, proc.stderr):
            stream.close()


def test_subprocess_jsonl_bad_line_exits_2() -> None:
    proc = _cli("predict", "--jsonl", "--jobs", "2", "-", stdin=jsonl([{}, {"network": {"rtt_ms": -5}}, {}]))
    assert proc.returncode == 2
    assert len(proc.stdout.splitlines()) == 3
    assert json.loads(proc.stdout.splitlines()[1])["line"] == 2
    assert proc.stderr.startswith("python -m latency_lab predict: error: <stdin>: line 2: network.rtt_ms: ")
    assert "Traceback" not in proc.stderr


# --- hostile input: the API's strict JSON and strict types, one clear line, never a traceback ------------------


def test_deep_merge_is_not_recursive() -> None:
    """A document far deeper than Python's recursion limit merges (and copies) without a RecursionError."""
    deep: dict[str, Any] = {}
    inner = deep
    for _ in range(50_000):
        inner["a"] = {}
        inner = inner["a"]
    inner["leaf"] = [1, [2]]
    base = {"a": {"b": 1}, "c": [1]}
    merged = deep_merge(base, {"a": deep})
    assert merged["a"]["b"] == 1 and merged["c"] == [1] and base == {"a": {"b": 1}, "c": [1]}
    node = merged["a"]["a"]
    for _ in range(49_999):
        node = node["a"]
    assert node == {"leaf": [1, [2]]} and node["leaf"] is not inner["leaf"]


def test_predict_document_refuses_deep_input_before_merging() -> None:
    deep: dict[str, Any] = {"network": {}}
    inner = deep["network"]
    for _ in range(600):
        inner["a"] = {}
        inner = inner["a"]
    with pytest.raises(UserError, match=r"^network(\.a){31}: .*max_json_depth"):
        predict_document(deep, preset="h96-lan")


#: Scenario documents the API refuses for their JSON types: the command line must refuse each too, by path.
STRICT_TYPES = [
    ({"network": {"rtt_ms": True}}, "network.rtt_ms"),
    ({"network": {"rtt_ms": "70"}}, "network.rtt_ms"),
    ({"tcp": {"mss_bytes": 1460.5}}, "tcp.mss_bytes"),
    ({"tcp": {"mss_bytes": "1460"}}, "tcp.mss_bytes"),
    ({"tcp": {"nagle": 1}}, "tcp.nagle"),
    ({"tcp": {"nagle": "false"}}, "tcp.nagle"),
    ({"page": {"object_bytes": [100, "200"]}}, "page.object_bytes[1]"),
]


@pytest.mark.parametrize(("doc", "path"), STRICT_TYPES, ids=[p + ":" + json.dumps(d) for d, p in STRICT_TYPES])
def test_cli_validates_types_as_strictly_as_the_api(run: Run, tmp_path: Path, doc: dict[str, Any], path: str) -> None:
    from latency_lab_web import create_app

    status, out, err = run("predict", write(tmp_path, doc))
    assert (status, out) == (2, "")
    [line] = err.splitlines()
    assert line.startswith(f"python -m latency_lab predict: error: {path}: "), line
    api = create_app({"TESTING": True}).test_client().post("/api/v1/predict", json=doc)
    assert api.status_code == 422
    body = api.get_json()
    assert [f"python -m latency_lab predict: error: {e['text']}" for e in body["errors"]] == [line]  # the API's words


def _deep_field(depth: int) -> str:
    return '{"network": ' + '{"a": ' * depth + "1" + "}" * depth + "}"


DIGITS = "9" * 5000


@dataclass(frozen=True)
class Hostile:
    """Input that must exit 2 with one clear line naming ``named``, never a traceback."""

    id: str
    text: str  # FILE's content (standard input)
    named: tuple[str, ...]  # each in the error line: the field's path, the limit's name, ...
    args: tuple[str, ...] = ()


HOSTILE = [
    Hostile("true for a number", '{"network": {"rtt_ms": true}}', ("network.rtt_ms", "valid number")),
    Hostile("string for a number", '{"network": {"rtt_ms": "70"}}', ("network.rtt_ms", "valid number")),
    Hostile("nested 10,000 deep", "[" * 10_000 + "]" * 10_000, ("max_json_depth", "[0]" * 32 + ":")),
    Hostile("object nested 10,000 deep", '{"a": ' * 10_000 + "1" + "}" * 10_000, ("max_json_depth", "a" + ".a" * 31)),
    Hostile("5,000-digit integer", '{"page": {"html_bytes": ' + DIGITS + "}}", ("page.html_bytes", "100,000,000")),
    Hostile("5,000-digit negative", '{"network": {"rtt_ms": -' + DIGITS + "}}", ("network.rtt_ms", "10,000 ms")),
    Hostile(
        "preset and a field 600 deep",
        _deep_field(600),
        ("max_json_depth", "network" + ".a" * 31 + ":"),
        ("--preset", "h96-lan"),
    ),
    Hostile("duplicate key", '{"network": {"rtt_ms": 1, "rtt_ms": 2}}', ("network.rtt_ms", "2 times")),
    Hostile("NaN", '{"network": {"rtt_ms": NaN}}', ("network.rtt_ms", "NaN")),
    Hostile("Infinity in a batch", '[{}, {"http": {"server_think_ms": -Infinity}}]', ("[1].http.server_think_ms",)),
    Hostile("5,000-digit integer in a batch", '[{"page": {"html_bytes": ' + DIGITS + "}}]", ("[0].page.html_bytes",)),
    Hostile(
        "deep JSON Lines line", "{}\n" + "[" * 10_000 + "]" * 10_000 + "\n", ("line 2", "max_json_depth"), ("--jsonl",)
    ),
    Hostile("duplicate key, JSON Lines", '{"tcp": {}, "tcp": {}}\n', ("line 1", "tcp:", "2 times"), ("--jsonl",)),
]


@pytest.mark.parametrize("case", HOSTILE, ids=[h.id for h in HOSTILE])
def test_cli_hostile_table(case: Hostile) -> None:
    """``python -m latency_lab predict`` on each hostile input: exit 2, one line naming the field or the limit."""
    proc = _cli("predict", *case.args, "-", stdin=case.text)
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("python -m latency_lab predict: error: ")]
    assert len(errors) == 1, proc.stderr[-2000:]
    assert len(errors[0]) < 1000, errors[0][:2000]
    for name in case.named:
        assert name in errors[0], errors[0]
    if "--jsonl" not in case.args:
        assert proc.stdout == ""
