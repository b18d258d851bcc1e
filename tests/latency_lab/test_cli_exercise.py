"""``python -m latency_lab exercise``: list, show, check; bad input exits 2 naming the field."""

from __future__ import annotations

import json

import pytest

from latency_lab.cli import main
from latency_lab.studies import exercises


def test_lists_every_template(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["exercise"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in exercises.TEMPLATES)


def test_checks_an_answer(capsys: pytest.CaptureFixture[str]) -> None:
    v = exercises.variant("slow_start", "s42")
    assert main(["exercise", "slow_start", "--seed", "s42", "--answer", str(v.answer)]) == 0
    assert "Correct" in capsys.readouterr().out
    assert main(["exercise", "slow_start", "--seed", "s42", "--answer", str(v.answer * 2)]) == 1


def test_json_hides_the_answer_on_request(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["exercise", "loss", "--seed", "7", "--json", "--hide"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "answer" not in doc and "solution" not in doc and doc["question"]
    assert main(["exercise", "loss", "--seed", "7", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["answer"] == pytest.approx(exercises.variant("loss", "7").answer)


@pytest.mark.parametrize(("argv", "field"), [(["nope"], "template"), (["loss", "--seed", "a b"], "seed")])
def test_bad_input_exits_2(argv: list[str], field: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["exercise", *argv]) == 2
    assert f"error: {field}:" in capsys.readouterr().err
