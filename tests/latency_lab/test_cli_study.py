"""``python -m latency_lab study``, ``predict --omit``, the command's name as called, and a clean exit on SIGTERM,
SIGINT and a closed pipe (no traceback, no worker left behind)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import psutil
import pytest

from latency_lab import predict
from latency_lab.analysis.answer import listed
from latency_lab.cli import main, prog_name
from latency_lab.studies.study import load_design, read_study, run_study

ROOT = Path(__file__).resolve().parents[2]
DESIGN = {
    "preset": "n97-wan",
    "protocols": ["http10", "h2"],
    "fields": {"network.rtt_ms": {"values": [10, 50, 100]}, "tcp.receive_window_bytes": {"values": [1000, 65535]}},
}


def test_study_writes_the_shards_run_study_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    design = tmp_path / "design.json"
    design.write_text(json.dumps(DESIGN), encoding="utf-8")
    out = tmp_path / "results"
    assert main(["study", str(design), "--out", str(out), "--shard-size", "4", "--no-progress"]) == 0
    stdout, err = capsys.readouterr()
    assert stdout == f"6 scenarios in 2 shards in {out}; 3 failed (see the error column)\n"
    assert err == ""
    expected = run_study(load_design(DESIGN), progress=False)
    pd.testing.assert_frame_equal(read_study(out), expected)
    # a rerun with another shard size would mix two studies: refused, naming the file
    assert main(["study", str(design), "--out", str(out), "--shard-size", "3"]) == 2
    assert "shard-00000.parquet: holds a shard of another study" in capsys.readouterr().err


def test_study_bad_design_exits_2_naming_the_field_and_range(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = tmp_path / "design.json"
    design.write_text(json.dumps({"fields": {"network.rtt_ms": {"values": [-1]}}}), encoding="utf-8")
    assert main(["study", str(design), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err == (
        "python -m latency_lab study: error: fields.network.rtt_ms.values[0]: -1 is out of range; "
        "allowed: a number from 0 to 10,000 ms\n"
    )
    assert not (tmp_path / "r").exists()


def test_omit_leaves_out_events_and_objects(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"network": {"rtt_ms": 30}}\n', encoding="utf-8")
    assert main(["predict", "--omit", "events,objects", str(path)]) == 0
    [doc] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    full = listed(predict({"network": {"rtt_ms": 30}}))  # as the CLI writes it: with events_total, path_stalls_total
    for r, f in zip(doc["results"], full["results"], strict=True):
        assert "events" not in r and "objects" not in r
        assert r == {k: v for k, v in f.items() if k not in ("events", "objects")}
    assert main(["predict", "--omit", "packets", str(path)]) == 2
    assert "--omit: must be one or more of events, objects" in capsys.readouterr().err


def test_the_command_names_itself_as_called() -> None:
    assert prog_name("/venv/bin/latency-lab") == "latency-lab"
    assert prog_name("/repo/latency_lab/__main__.py") == "python -m latency_lab"
    latency_lab = Path(sys.executable).with_name("latency-lab")
    proc = subprocess.run(
        [str(latency_lab), "predict", "-"], input="[", capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("latency-lab predict: error: <stdin>: invalid JSON")
    proc = subprocess.run(
        [str(latency_lab), "study", "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.stdout.startswith("usage: latency-lab study")


# --- signals and a closed pipe ---------------------------------------------------------------------------------


def _descendants(pid: int) -> set[int]:
    """The live processes below ``pid`` (children, their children, ...; psutil), zombies left out: gone, only not
    yet reaped."""
    try:
        kids = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return set()
    return _alive({k.pid for k in kids})


def _alive(pids: set[int]) -> set[int]:
    out = set()
    for p in pids:
        with contextlib.suppress(psutil.Error):
            if psutil.Process(p).status() != psutil.STATUS_ZOMBIE:
                out.add(p)
    return out


@pytest.fixture
def many_lines(tmp_path: Path) -> Path:
    path = tmp_path / "many.jsonl"
    path.write_text(
        "".join(
            json.dumps({"protocols": ["http10", "h2"], "network": {"rtt_ms": i % 500}}) + "\n" for i in range(20_000)
        ),
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(("how", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_predict_jsonl_and_its_workers_cleanly(
    many_lines: Path, tmp_path: Path, how: signal.Signals, status: int
) -> None:
    out = tmp_path / "out.jsonl"
    with out.open("wb") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "latency_lab", "predict", "--jobs", "2", str(many_lines)],
            stdout=sink,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            start_new_session=True,  # its own process group: SIGINT goes to the group, as Ctrl-C does
        )
        try:
            deadline = time.monotonic() + 120
            while out.stat().st_size < 10_000 and time.monotonic() < deadline:  # running, workers busy
                time.sleep(0.05)
            assert proc.poll() is None, "finished before the signal: make the input longer"
            workers = _descendants(proc.pid)
            assert len(workers) >= 3  # the fork server and two workers
            if how == signal.SIGINT:
                os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: every process of the group gets it
            else:
                proc.send_signal(signal.SIGTERM)  # a job scheduler's stop: the parent only
            assert proc.wait(timeout=60) == status
            _, err = proc.communicate()
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    deadline = time.monotonic() + 10
    while _alive(workers) and time.monotonic() < deadline:  # the fork server exits when its parent has gone
        time.sleep(0.1)
    assert _alive(workers) == set()
    assert b"Traceback" not in err and err == b""
    lines = out.read_bytes().splitlines()
    assert 0 < len(lines) < 20_000
    assert all(json.loads(line)["results"] for line in lines)  # whole lines only


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_closed_pipe_stops_quietly(many_lines: Path, jobs: str) -> None:
    cmd = f"set -o pipefail; {sys.executable} -m latency_lab predict --jobs {jobs} {many_lines} | head -1"
    proc = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    assert proc.returncode == 141  # 128 + SIGPIPE, as the shell's own tools
    assert len(proc.stdout.splitlines()) == 1
    assert proc.stderr == ""


def test_study_without_the_studies_extra_says_what_to_install(tmp_path: Path) -> None:
    """pandas, pyarrow, SALib and tqdm are the extra latency-lab[studies] (requirements-studies.txt), which
    scripts/run.sh does not install: ``study`` then names the extra and the missing package, exit 1, no traceback.
    (pandas made unimportable the way Python documents it: ``sys.modules["pandas"] = None``.)"""
    design = tmp_path / "design.json"
    design.write_text(json.dumps(DESIGN), encoding="utf-8")
    code = (
        "import sys; sys.modules['pandas'] = None\n"
        "from latency_lab.cli import main\n"
        f"sys.exit(main(['study', {str(design)!r}, '--out', {str(tmp_path / 'r')!r}]))"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith("error: studies need the extra latency-lab[studies]")
    assert "pandas is not installed" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "r").exists()
