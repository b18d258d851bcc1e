"""A million-scenario study past one machine, on a local cluster of worker processes (docs/dask.md shows the same
code): a Dask bag over JSON Lines files, each scenario through ``latency_lab.cli.predict_document``; and a study
(latency_lab.studies.study) as a bag of its shards, one task each (``run_shard``), Parquet out, resumed on a rerun."""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path

import dask.bag as db
import pandas as pd
import pytest
from distributed import Client, LocalCluster, progress

from latency_lab import predict
from latency_lab.analysis.answer import listed
from latency_lab.cli import UserError, predict_document
from latency_lab.studies.study import Design, load_design, pending_shards, read_study, run_shard, run_study, shard_path

ROOT = Path(__file__).resolve().parents[2]


def predict_files(inputs: str, outputs: str) -> list[str]:
    """Predict every scenario of the JSON Lines files ``inputs`` (a glob) on the Dask cluster of the current
    client; write the output documents as JSON Lines to ``outputs`` (one file per input file, in order)."""
    bag = db.read_text(inputs).map(json.loads).map(predict_document).map(json.dumps)
    return bag.to_textfiles(outputs, last_endline=True)


def run_study_on_dask(design: Design, out: str, shard_size: int = 10_000) -> list[str]:
    """Run ``design`` on the Dask cluster of the current client, one task per shard of ``shard_size`` scenarios;
    each task writes its shard to ``out`` (``shard-00003.parquet`` for shard 3). The shards already there are
    skipped (a rerun resumes). Shows the progress; returns the paths written."""
    todo = pending_shards(design, out, shard_size)
    bag = db.from_sequence(todo, npartitions=max(len(todo), 1))
    done = bag.map(run_shard, design=design, shard_size=shard_size, out=out).persist()
    progress(done)
    return done.compute()


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    """A small local cluster: two worker processes of one thread each, shut down after the module's tests."""
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


def scenarios(part: int) -> list[dict[str, object]]:
    """20 scenarios of JSON Lines file ``part``: round trip times part*100 + 0, 5, ..., 95 ms."""
    return [{"protocols": ["http10", "persistent", "h2"], "network": {"rtt_ms": part * 100 + 5 * i}} for i in range(20)]


def test_dask_bag_over_json_lines_files_equals_predict(client: Client, tmp_path: Path) -> None:
    inputs = tmp_path / "scenarios"
    inputs.mkdir()
    for part in range(3):
        lines = "".join(json.dumps(s) + "\n" for s in scenarios(part))
        (inputs / f"part-{part}.jsonl").write_text(lines, encoding="utf-8")

    written = predict_files(str(inputs / "*.jsonl"), str(tmp_path / "results" / "*.jsonl"))

    assert [Path(p).name for p in written] == ["0.jsonl", "1.jsonl", "2.jsonl"]
    for part, path in enumerate(written):
        text = Path(path).read_text(encoding="utf-8")
        assert text.endswith("\n")
        docs = [json.loads(line) for line in text.splitlines()]
        assert len(docs) == 20
        for doc, scenario in zip(docs, scenarios(part), strict=True):
            expected = listed(predict(scenario))  # as the command line answers (max_listed)
            assert [r["page_load_ms"] for r in doc["results"]] == [r["page_load_ms"] for r in expected["results"]]
            assert doc == expected


def test_dask_map_of_parsed_scenarios_and_a_bad_one(client: Client) -> None:
    good = scenarios(1)[:4]
    docs = db.from_sequence(good, npartitions=2).map(predict_document, preset="h96-lan").compute()
    expected = [predict_document(s, preset="h96-lan") for s in good]
    assert docs == expected
    assert {d["scenario"]["network"]["bandwidth_bps"] for d in docs} == {10_000_000}  # from the preset
    bad = db.from_sequence([{}, {"network": {"rtt_ms": -1}}], npartitions=2).map(predict_document)
    with pytest.raises(UserError, match=r"network\.rtt_ms: Input should be greater than or equal to 0"):
        bad.compute()


STUDY = {
    "kind": "random",
    "samples": 60,
    "seed": 5,
    "protocols": ["http10", "persistent", "h2"],
    "fields": {"network.rtt_ms": {"low": 0, "high": 300}, "page.object_count": {"low": 0, "high": 12}},
}


def test_a_study_on_dask_is_one_task_a_shard_and_resumes(client: Client, tmp_path: Path) -> None:
    design = load_design(STUDY)
    out = str(tmp_path / "study")
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        written = run_study_on_dask(design, out, shard_size=20)
    assert [Path(p).name for p in written] == ["shard-00000.parquet", "shard-00001.parquet", "shard-00002.parquet"]
    assert "100% Completed" in shown.getvalue()  # the progress bar, at its end
    pd.testing.assert_frame_equal(read_study(out), run_study(design, progress=False))
    # a rerun does only the shards not written: here shard 1, the others keep their (old) time
    for k in (0, 2):
        os.utime(shard_path(out, k), ns=(1_000_000_000, 1_000_000_000))
    shard_path(out, 1).unlink()
    with contextlib.redirect_stdout(io.StringIO()):
        again = run_study_on_dask(design, out, shard_size=20)
    assert [Path(p).name for p in again] == ["shard-00001.parquet"]
    assert [shard_path(out, k).stat().st_mtime_ns for k in (0, 2)] == [1_000_000_000] * 2
    pd.testing.assert_frame_equal(read_study(out), run_study(design, progress=False))


def test_docs_show_the_code_the_test_runs() -> None:
    doc = (ROOT / "docs" / "dask.md").read_text(encoding="utf-8")
    assert inspect.getsource(predict_files) in doc
    assert inspect.getsource(run_study_on_dask) in doc
