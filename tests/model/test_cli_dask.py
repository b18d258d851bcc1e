"""A million-scenario study past one machine: a Dask bag over JSON Lines files, each scenario through
``model.cli.predict_document`` on a local cluster of worker processes (docs/dask.md shows the same code)."""

from __future__ import annotations

import inspect
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import dask.bag as db
import pytest
from distributed import Client, LocalCluster

from model import predict
from model.cli import UserError, predict_document

ROOT = Path(__file__).resolve().parents[2]


def predict_files(inputs: str, outputs: str) -> list[str]:
    """Predict every scenario of the JSON Lines files ``inputs`` (a glob) on the Dask cluster of the current
    client; write the output documents as JSON Lines to ``outputs`` (one file per input file, in order)."""
    bag = db.read_text(inputs).map(json.loads).map(predict_document).map(json.dumps)
    return bag.to_textfiles(outputs, last_endline=True)


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
            expected = predict(scenario)
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


def test_docs_show_the_code_the_test_runs() -> None:
    doc = (ROOT / "docs" / "dask.md").read_text(encoding="utf-8")
    assert inspect.getsource(predict_files) in doc
