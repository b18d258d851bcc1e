"""``python -m latency_lab har``: a HAR's page and the model's prediction, what-ifs, and refusals (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from latency_lab.cli import main
from latency_lab.scenario.har import load_har
from latency_lab.scenario.limits import MAX_HAR_BYTES

DATA = Path(__file__).parents[1] / "data" / "har"
HAR = str(DATA / "webpagetest.har")


def test_har_prints_the_page_and_the_predictions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["har", HAR]) == 0
    out = capsys.readouterr().out
    page = load_har(Path(HAR).read_bytes())
    assert f"{len(page.objects)} objects, {page.wire_bytes:,} bytes on the wire" in out
    assert f"initiator tree depth {page.depth}" in out
    for o in page.origins:
        assert o.origin in out
    assert "page.origins: each origin's own DNS lookup" in out
    assert "the HAR's protocol; measured onLoad 2310.0" in out
    for protocol in ("persistent_parallel", "h2", "h3"):
        assert f"  {protocol} " in out


def test_har_what_ifs_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["har", HAR, "--json", "--protocols", "h2,h3", "--rtt-ms", "150", "--loss-rate", "0.01"]
    assert main([*argv, "--remove-origin", "https://ads.example:443", "--preconnect"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["protocol"] for r in doc["results"]] == ["h2", "h3"]
    assert doc["scenario"]["network"]["rtt_ms"] == 150
    assert doc["scenario"]["network"]["loss_rate"] == 0.01
    assert doc["scenario"]["http"]["preconnect"] is True
    assert doc["removed_objects"] == 2
    assert all(r["expected_with_loss_ms"] > r["page_load_ms"] for r in doc["results"])


def test_har_early_hints_what_if(capsys: pytest.CaptureFixture[str]) -> None:
    """--early-hints: the 103 names the HTML's style sheets and scripts and preconnects the other origins (h2)."""
    argv = ["har", HAR, "--json", "--protocols", "h2"]
    assert main(argv) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main([*argv, "--early-hints"]) == 0
    hinted = json.loads(capsys.readouterr().out)
    assert "object_early_hint" not in plain["scenario"]["page"] or not any(
        plain["scenario"]["page"]["object_early_hint"]
    )
    assert any(hinted["scenario"]["page"]["object_early_hint"])
    assert all(o["early_hint_preconnect"] for o in hinted["scenario"]["page"]["origins"])
    assert hinted["results"][0]["page_load_ms"] <= plain["results"][0]["page_load_ms"]


CDN, ADS = "https://cdn.news-static.example:443", "https://ads.example:443"


def test_har_origin_rtt_what_if_a_cdn_nearby(capsys: pytest.CaptureFixture[str]) -> None:
    """--origin-rtt ORIGIN=MS: that origin on a path of its own (page.origins[].rtt_ms); the static CDN at 5 ms makes
    h2 faster than at the HAR's 46 ms shared path; --origin-paths: each other origin at its own connect time."""
    argv = ["har", HAR, "--json", "--protocols", "h2"]
    assert main(argv) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main([*argv, "--origin-rtt", f"{CDN}=5"]) == 0
    near = json.loads(capsys.readouterr().out)
    assert main([*argv, "--origin-paths"]) == 0
    shown = json.loads(capsys.readouterr().out)
    page = load_har(Path(HAR).read_bytes())
    names = [o.origin for o in page.origins][1:]
    assert [o["rtt_ms"] for o in plain["scenario"]["page"]["origins"]] == [None, None]
    assert [o["rtt_ms"] for o in near["scenario"]["page"]["origins"]] == [5.0 if n == CDN else None for n in names]
    assert [o["rtt_ms"] for o in shown["scenario"]["page"]["origins"]] == [o.rtt_ms for o in page.origins][1:]
    assert f"page.origins: {CDN} on a path of its own, RTT 5 ms (as given)" in near["notes"]
    assert near["results"][0]["page_load_ms"] < plain["results"][0]["page_load_ms"] - 40  # its round trips 41 ms less
    # the text answer says it too
    assert main(["har", HAR, "--protocols", "h2", "--origin-rtt", f"{CDN}=5"]) == 0
    assert f"{CDN} on a path of its own, RTT 5 ms" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--origin-rtt", f"{CDN}=abc"], "origin_rtts[0]: not ORIGIN=MS with MS a round trip"),
        (["--origin-rtt", "https://cdn.example:443=5"], "did you mean"),
        (["--origin-rtt", "https://news.example:443=5"], "is the document's own origin"),
        (["--origin-rtt", f"{CDN}=5", "--loss-rate", "0.01"], "origin_rtts cannot be used with loss_rate above 0"),
        (["--origin-paths", "--loss-rate", "0.01"], "origin_paths cannot be used with loss_rate above 0"),
    ],
)
def test_bad_origin_path_what_ifs_exit_2(argv: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["har", HAR, *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--rtt-ms", "-5"], "--rtt-ms: Input should be greater than or equal to 0"),
        (["--protocols", "h9"], "--protocols: Input should be 'http10'"),
        (["--loss-rate", "0.5"], "--loss-rate: Input should be less than or equal to 0.2"),
        (["--remove-origin", "https://ads.exampel:443"], "did you mean 'https://ads.example:443'?"),
    ],
)
def test_bad_what_ifs_exit_2(argv: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["har", HAR, *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_bad_hars_exit_2_naming_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.har"
    doc = json.loads(Path(HAR).read_text())
    doc["log"]["entries"][2]["response"]["bodySize"] = -7
    bad.write_text(json.dumps(doc))
    assert main(["har", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "log.entries[2].response.bodySize" in err and "from -1 (not known)" in err
    bad.write_text("not json")
    assert main(["har", str(bad)]) == 2
    assert "not JSON" in capsys.readouterr().err
    bad.write_bytes(b" " * (MAX_HAR_BYTES + 10))
    assert main(["har", str(bad)]) == 2
    assert "max_har_bytes" in capsys.readouterr().err
    assert main(["har", str(tmp_path / "missing.har")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_the_readmes_har_example_prints_what_the_readme_shows(capsys: pytest.CaptureFixture[str]) -> None:
    """The README's HAR command prints its shown block line for line (the note cut where the README cuts it), and its
    what-if sentence gives the CDN's path's h2 time."""
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    command = next(line for line in readme.splitlines() if line.startswith(".venv/bin/python -m latency_lab har "))
    argv = command.split("-m latency_lab ", 1)[1].split()
    block = readme.split(command, 1)[1].split("```\n", 2)[2].split("\n```", 1)[0].splitlines()
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    start = out.index(block[0])
    for shown, printed in zip(block, out[start:], strict=False):
        assert printed.startswith(shown.removesuffix("..."))
    assert len(out) - start == len(block)
    assert main([*argv, "--origin-rtt", f"{CDN}=20"]) == 0
    h2 = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("  h2 "))
    was = next(line for line in block if line.startswith("  h2 ")).split()[1]
    assert f"h2 {float(was):,.1f} → {float(h2.split()[1]):,.1f} ms" in " ".join(readme.split())
