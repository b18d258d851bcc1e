"""latency-lab's web app: a thin Flask front end on :mod:`model`.

The app only parses requests, calls the model and renders the answer; every number and every
reason it shows comes from :func:`model.predict`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask, Response

_ROOT = Path(__file__).resolve().parent.parent

#: Sent with every response. The pages use no scripts and no inline styles.
SECURITY_HEADERS: dict[str, str] = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the Flask app; ``test_config`` overrides the embedded defaults (tests use it)."""
    app = Flask(
        __name__,
        template_folder=str(_ROOT / "templates"),
        static_folder=str(_ROOT / "static"),
    )
    app.config.from_mapping(
        # Largest number of events listed per protocol on the page.
        MAX_EVENTS_SHOWN=500,
    )
    if test_config is not None:
        app.config.from_mapping(test_config)

    from app import views

    app.register_blueprint(views.bp)

    @app.after_request
    def _security_headers(response: Response) -> Response:
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    return app
