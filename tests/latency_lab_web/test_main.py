"""``python -m latency_lab_web``: host 127.0.0.1, port from $PORT or 8000."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from latency_lab_web import __main__ as entry


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(Flask, "run", lambda self, **kwargs: calls.append(kwargs))
    return calls


def test_default_port(monkeypatch: pytest.MonkeyPatch, runs: list[dict[str, Any]]) -> None:
    monkeypatch.delenv("PORT", raising=False)
    entry.main()
    assert runs == [{"host": "127.0.0.1", "port": 8000, "debug": False}]


def test_port_from_env(monkeypatch: pytest.MonkeyPatch, runs: list[dict[str, Any]]) -> None:
    monkeypatch.setenv("PORT", "8123")
    entry.main()
    assert runs[0]["port"] == 8123


@pytest.mark.parametrize("port", ["abc", "0", "70000"])
def test_bad_port_exits(monkeypatch: pytest.MonkeyPatch, runs: list[dict[str, Any]], port: str) -> None:
    monkeypatch.setenv("PORT", port)
    with pytest.raises(SystemExit):
        entry.main()
    assert runs == []
