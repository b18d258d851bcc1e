"""Shared fixtures. Imports of the app happen inside fixtures, so model-only tests never need it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from flask import Flask
    from flask.testing import FlaskClient


@pytest.fixture
def app() -> Iterator[Flask]:
    """The Flask app in testing mode."""
    from app import create_app

    yield create_app({"TESTING": True})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A test client for :func:`app`."""
    return app.test_client()
