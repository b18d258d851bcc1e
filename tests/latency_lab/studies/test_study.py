"""Studies (latency_lab.studies.study): designs expand to scenarios, run_study gives a DataFrame and Parquet shards with
provenance, resumes from the shards written, and records failed scenarios."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from SALib.sample import sobol as saltelli

import latency_lab
from latency_lab import predict
from latency_lab.analysis.critical_path import CATEGORIES
from latency_lab.analysis.result import COUNT_NAMES
from latency_lab.scenario.overlay import overlay
from latency_lab.studies.presets import PRESETS
from latency_lab.studies.study import (
    METADATA_KEY,
    Design,
    StudyError,
    columns,
    expand,
    failed_scenarios,
    load_design,
    provenance,
    read_study,
    run_study,
    scenario_count,
    shard_path,
)

PROTOCOLS = ["http10", "persistent", "h2"]


def grid(**fields: list[object]) -> Design:
    return load_design(
        {"protocols": PROTOCOLS, "fields": {k.replace("__", "."): {"values": v} for k, v in fields.items()}}
    )


# --- expansion ---------------------------------------------------------------------------------------------------


def test_grid_is_every_combination_first_field_slowest() -> None:
    d = grid(network__rtt_ms=[0, 50, 100], page__object_count=[1, 4])
    assert scenario_count(d) == 6
    docs = list(expand(d))
    assert [i for i, _ in docs] == list(range(6))
    got = [(doc["network"]["rtt_ms"], doc["page"]["object_count"]) for _, doc in docs]
    assert got == [(0, 1), (0, 4), (50, 1), (50, 4), (100, 1), (100, 4)]
    assert all(doc["protocols"] == PROTOCOLS for _, doc in docs)


def test_fields_go_on_the_preset_by_the_overlay_rules() -> None:
    d = load_design({"preset": "n97-wan", "fields": {"network.rtt_ms": {"values": [20]}}})
    [(_, doc)] = list(expand(d))
    assert doc == overlay(PRESETS["n97-wan"].document, {"network": {"rtt_ms": 20}})
    assert "uplink_delay_ms" not in doc["network"]  # a given rtt replaces the preset's one-way delays


def test_random_is_seeded_within_its_ranges_and_integers_are_whole() -> None:
    spec = {
        "kind": "random",
        "samples": 200,
        "seed": 7,
        "fields": {
            "network.rtt_ms": {"low": 1, "high": 300, "spacing": "log"},
            "page.object_count": {"low": 0, "high": 20},
            "tls.version": {"values": ["none", "1.3"]},
        },
    }
    a = [doc for _, doc in expand(load_design(spec))]
    b = [doc for _, doc in expand(load_design(spec))]
    assert a == b and len(a) == 200
    other = [doc for _, doc in expand(load_design({**spec, "seed": 8}))]
    assert other != a
    rtts = [doc["network"]["rtt_ms"] for doc in a]
    assert all(1 <= r <= 300 for r in rtts)
    assert sum(r < math.sqrt(300) for r in rtts) > 60  # log spacing: about half below the geometric middle
    counts = [doc["page"]["object_count"] for doc in a]
    assert all(isinstance(c, int) and 0 <= c <= 20 for c in counts)
    assert {doc["tls"]["version"] for doc in a} == {"none", "1.3"}


def test_sobol_is_saltellis_scheme_from_salib() -> None:
    d = load_design(
        {
            "kind": "sobol",
            "samples": 8,
            "seed": 3,
            "fields": {"network.rtt_ms": {"low": 0, "high": 200}, "network.bandwidth_bps": {"low": 1e6, "high": 1e8}},
        }
    )
    assert scenario_count(d) == 8 * (2 + 2)
    problem = {"num_vars": 2, "names": ["a", "b"], "bounds": [[0, 200], [1e6, 1e8]]}
    matrix = saltelli.sample(problem, 8, calc_second_order=False, seed=3)
    got = [(doc["network"]["rtt_ms"], doc["network"]["bandwidth_bps"]) for _, doc in expand(d)]
    assert got == [(float(r), float(b)) for r, b in matrix.tolist()]


def test_a_bad_base_field_that_the_design_varies_is_mended_by_it() -> None:
    d = load_design({"scenario": {"network": {"rtt_ms": -5}}, "fields": {"network.rtt_ms": {"values": [1]}}})
    [(_, doc)] = list(expand(d))
    assert doc["network"]["rtt_ms"] == 1


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            {"fields": {"network.rtt_ms": {"values": [1]}, "network.rtt": {"values": [1]}}},
            "fields.network.rtt: not a field a study can vary; did you mean 'network.rtt_ms'?",
        ),
        (
            {"kind": "random", "samples": 5, "fields": {"network.rtt_ms": {"low": 0, "high": 20000}}},
            "fields.network.rtt_ms.high: 20000 is out of range; allowed: a number from 0 to 10,000 ms",
        ),
        (
            {"kind": "sobol", "samples": 6, "fields": {"network.rtt_ms": {"low": 0, "high": 10}}},
            "samples: 6 is not a power of 2",
        ),
        ({"kind": "random", "fields": {"network.rtt_ms": {"low": 0, "high": 10}}}, "samples: a random design needs"),
        ({"kind": "grid", "fields": {"network.rtt_ms": {"low": 0, "high": 10}}}, "a grid design needs values"),
        ({"preset": "h96-lam", "fields": {"network.rtt_ms": {"values": [1]}}}, "did you mean 'h96-lan'?"),
        ({"fields": {"network.rtt_ms": {"values": [1]}}, "sample": 3}, "sample: Extra inputs are not permitted"),
        (
            {"scenario": {"network": {"bandwidth_bps": -1}}, "fields": {"network.rtt_ms": {"values": [1]}}},
            "scenario.network.bandwidth_bps: Input should be greater than or equal to 1000 (got -1); "
            "allowed: a number from 1,000 to 100,000,000,000 bit/s",
        ),
    ],
)
def test_bad_designs_name_the_place_and_what_it_allows(spec: dict[str, object], message: str) -> None:
    with pytest.raises(StudyError) as info:
        load_design(spec)
    assert message in str(info.value)


# --- the DataFrame -----------------------------------------------------------------------------------------------


def test_dataframe_has_a_row_per_scenario_and_protocol_equal_to_predict() -> None:
    d = grid(network__rtt_ms=[10, 80], network__loss_rate=[0.0, 0.02])
    df = run_study(d, progress=False)
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == columns(d)
    assert list(df.columns[:4]) == ["scenario", "network.rtt_ms", "network.loss_rate", "protocol"]
    assert {f"breakdown_ms.{c}" for c in CATEGORIES} | {f"counts.{c}" for c in COUNT_NAMES} <= set(df.columns)
    assert len(df) == 4 * len(PROTOCOLS)
    assert df["error"].isna().all()
    for i, doc in expand(d):
        rows = df[df["scenario"] == i]
        expected = predict(doc)["results"]
        assert list(rows["protocol"]) == [r["protocol"] for r in expected]
        assert list(rows["network.rtt_ms"]) == [doc["network"]["rtt_ms"]] * 3
        for (_, row), r in zip(rows.iterrows(), expected, strict=True):
            assert row["page_load_ms"] == r["page_load_ms"]
            assert row["counts.round_trips"] == r["counts"]["round_trips"]
            assert row["breakdown_ms.propagation"] == r["breakdown_ms"]["propagation"]
            assert row["expected_with_loss.page_load_ms"] == r["expected_with_loss"]["page_load_ms"]
            lossy = doc["network"]["loss_rate"] > 0
            assert row["leading_ms"] == (r["expected_with_loss"]["page_load_ms"] if lossy else r["page_load_ms"])
    lossy_rows = df[df["network.loss_rate"] > 0]
    assert (lossy_rows["leading_ms"] > lossy_rows["page_load_ms"]).all()  # with loss the expected time leads
    assert str(df["counts.round_trips"].dtype) == "Int64"


def test_failed_scenarios_are_rows_with_their_error_and_the_rest_go_on() -> None:
    # a receive window below the segment size is refused: that combination fails, the others run
    d = grid(tcp__mss_bytes=[1460, 536], tcp__receive_window_bytes=[1000, 65535])
    df = run_study(d, progress=False)
    assert df is not None
    failed = df[df["error"].notna()]
    assert list(failed["scenario"]) == [0]
    assert failed["protocol"].isna().all() and failed["page_load_ms"].isna().all()
    assert "tcp.receive_window_bytes (1000) must be at least tcp.mss_bytes (1460)" in failed["error"].iloc[0]
    assert len(df[df["error"].isna()]) == 3 * len(PROTOCOLS)


def test_failed_scenarios_are_counted_in_the_shards(tmp_path: Path) -> None:
    d = grid(tcp__mss_bytes=[1460, 536], tcp__receive_window_bytes=[1000, 1200, 65535])
    run_study(d, tmp_path, shard_size=2, progress=False, frame=False)
    assert failed_scenarios(tmp_path) == 2  # 1460 with 1000 and with 1200


def test_the_model_exports_the_study_api_and_its_version() -> None:
    assert latency_lab.run_study is run_study and latency_lab.Design is Design
    assert {"Design", "run_study", "read_study", "load_design", "StudyError"} <= set(latency_lab.__all__)
    assert isinstance(latency_lab.__version__, str) and latency_lab.__version__[0].isdigit()


# --- Parquet shards, provenance, resume ----------------------------------------------------------------------------


def test_parquet_shards_carry_provenance_and_read_back(tmp_path: Path) -> None:
    d = grid(network__rtt_ms=[0, 10, 20, 30, 40])
    df = run_study(d, tmp_path, shard_size=2, progress=False)
    paths = sorted(tmp_path.iterdir())
    assert [p.name for p in paths] == ["shard-00000.parquet", "shard-00001.parquet", "shard-00002.parquet"]
    info = json.loads(pq.read_schema(paths[1]).metadata[METADATA_KEY])
    assert info["version"] == latency_lab.__version__
    assert info["engine"] == latency_lab.engine_backend()
    assert info["profiles"] == ["bsd"]
    assert info["design"] == json.loads(d.model_dump_json())
    assert (info["shard"], info["first"], info["stop"], info["shard_size"]) == (1, 2, 4, 2)
    assert list(pq.read_table(paths[1]).column("scenario").to_pylist()) == [2] * 3 + [3] * 3
    pd.testing.assert_frame_equal(read_study(tmp_path), df)
    assert provenance(d)["scenarios"] == 5


def test_a_rerun_reads_the_shards_written_and_runs_only_the_missing(tmp_path: Path) -> None:
    d = grid(network__rtt_ms=[0, 10, 20, 30, 40])
    first = run_study(d, tmp_path, shard_size=2, progress=False)
    kept = {p: p.stat().st_mtime_ns for p in (shard_path(tmp_path, 0), shard_path(tmp_path, 2))}
    for p in kept:  # an old time: rewriting the file would give it a new one
        os.utime(p, ns=(1_000_000_000, 1_000_000_000))
    shard_path(tmp_path, 1).unlink()
    again = run_study(d, tmp_path, shard_size=2, progress=False)
    pd.testing.assert_frame_equal(again, first)
    assert all(p.stat().st_mtime_ns == 1_000_000_000 for p in kept)
    assert shard_path(tmp_path, 1).exists()
    other = grid(network__rtt_ms=[0, 10, 20, 30, 41])
    with pytest.raises(StudyError, match="holds a shard of another study"):
        run_study(other, tmp_path, shard_size=2, progress=False)


def test_two_processes_give_the_same_frame(tmp_path: Path) -> None:
    d = load_design(
        {"kind": "random", "samples": 300, "seed": 1, "protocols": ["persistent"],
         "fields": {"network.rtt_ms": {"low": 0, "high": 200}}}
    )  # fmt: skip
    one = run_study(d, progress=False)
    two = run_study(d, tmp_path, jobs=2, shard_size=200, progress=False)
    pd.testing.assert_frame_equal(one, two)


def test_a_progress_bar_on_standard_error_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    d = grid(network__rtt_ms=[0, 10, 20])
    run_study(d, progress=True)
    err = capsys.readouterr().err
    assert "study: 100%" in err and "3/3" in err
    run_study(d)  # not a terminal: no bar by default
    assert capsys.readouterr().err == ""
