"""latency-lab's web app: a thin Flask front end on :mod:`latency_lab`.

The app only parses requests, calls the model and renders the answer; every number and every
reason it shows comes from :func:`latency_lab.analysis.predict`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, Response, g, request
from werkzeug.routing import RequestRedirect

from latency_lab.scenario import limits

#: Sent with every response. The pages use no inline scripts and no inline styles (plotly.js's global
#: rules come from a static stylesheet: see latency_lab_web/templates/base.html). img-src allows blob: for plotly.js's PNG
#: download, connect-src 'self' for htmx's requests.
SECURITY_HEADERS: dict[str, str] = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}


class _App(Flask):
    """Flask, with the answer to "is this view or hook a coroutine function?" kept per function: Flask asks it of
    every view and hook on every request (``inspect.iscoroutinefunction``, seven times a predict: 1.5 % of its time,
    issue 26). At most :attr:`_SYNC_KEPT` functions are kept (the app registers some 150 views and hooks)."""

    _SYNC_KEPT = 4096

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sync: dict[Callable[..., Any], Callable[..., Any]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        try:
            return self._sync[func]
        except KeyError:
            pass
        except TypeError:  # an unhashable callable: asked every time
            return super().ensure_sync(func)
        sync = super().ensure_sync(func)
        if len(self._sync) < self._SYNC_KEPT:
            self._sync[func] = sync
        return sync


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the Flask app; ``test_config`` overrides the embedded defaults (tests use it)."""
    from latency_lab_web import api, calculator, compare, exercises, gallery, teaching
    from latency_lab_web.web import assets, filters, problems
    from latency_lab_web.web.cache import ResponseCache

    app = _App(
        __name__,
        # inside the package (latency_lab_web/templates, latency_lab_web/static), so an installed copy has them: the shared templates
        # (base.html; each blueprint has its own folder) and the stylesheets, scripts and vendored bundles
        template_folder="templates",
        static_folder="static",
    )
    # Every setting the app reads, declared here once (tests override them with test_config).
    app.config.from_mapping(
        # Largest number of events listed per protocol on the page.
        MAX_EVENTS_SHOWN=500,
        # Compression (flask-compress) and the static files' compressed copies (latency_lab_web/web/assets.py).
        **assets.compress_config(),
        # JSON API (see latency_lab_web/api/views.py and the limits on /api/docs).
        API_MAX_BODY_BYTES=64 * 1024,  # a request body; over it: 413
        API_MAX_QUERY_BYTES=4096,  # a query string; over it: 414
        API_CACHE_BYTES=16 * 1024 * 1024,  # the answers cache (per process); 0 turns it off
        API_CACHE_MAX_ENTRY_BYTES=1024 * 1024,  # larger answers are not cached
        # The calculator's caches (latency_lab_web/calculator/views.py; per process, least recently used out first, each value one
        # bytes object counted by its length). Results, UTF-8: about 57 KB for a preset's page, 0.58 MB for a
        # 400-object page, 2 MB at most (1,000 objects, seven protocols): some 290 preset pages or 8 of the
        # largest. Sweeps, pickled: about 3.4 KB each, some 600.
        PAGE_CACHE_BYTES=16 * 1024 * 1024,  # 0 turns it off
        PAGE_CACHE_MAX_ENTRY_BYTES=2 * 1024 * 1024,  # larger values are not cached (none so far)
        SWEEP_CACHE_BYTES=2 * 1024 * 1024,  # 0 turns it off
    )
    if test_config is not None:
        app.config.from_mapping(test_config)
    # Werkzeug stops reading a body over this size and raises 413 (answered as a problem under /api/).
    app.config["MAX_CONTENT_LENGTH"] = int(app.config["API_MAX_BODY_BYTES"])

    assets.init_app(app)  # compression; versioned, long-cached static files

    app.register_blueprint(calculator.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(teaching.bp)
    app.register_blueprint(gallery.bp)
    app.register_blueprint(compare.bp)
    app.register_blueprint(exercises.bp)
    problems.register(app)
    filters.register(app)
    app.extensions["api_cache"] = ResponseCache(
        int(app.config["API_CACHE_BYTES"]), int(app.config["API_CACHE_MAX_ENTRY_BYTES"])
    )

    @app.before_request
    def _open_budget() -> None:
        # every request draws its engine steps from one budget (latency_lab.scenario.limits: the hard limit inside the engine)
        g.budget = limits.budget()
        g.budget.__enter__()

    @app.teardown_request
    def _close_budget(exc: BaseException | None) -> None:
        held = g.pop("budget", None)
        if held is not None:
            held.__exit__(None, None, None)

    @app.after_request
    def _security_headers(response: Response) -> Response:
        # each one unless the view set its own: one pass over the response's headers (four ``setdefault`` calls,
        # each a case-insensitive search and a missed lookup, were 7 % of a cached predict's time: issue 26)
        present = {name.lower() for name in response.headers.keys()}
        missing = [(name, value) for name, value in SECURITY_HEADERS.items() if name.lower() not in present]
        if missing:
            response.headers.extend(missing)
        return response

    @app.after_request
    def _routing_redirect_on_this_site(response: Response) -> Response:
        # werkzeug's routing redirects (merged slashes, a missing trailing slash) build an absolute address from the
        # request's Host header, which the client chose: answer the path and query alone, on this site
        if isinstance(request.routing_exception, RequestRedirect) and "Location" in response.headers:
            target = urlsplit(response.headers["Location"])
            path = "/" + target.path.lstrip("/")  # never "//host": a network-path reference
            response.headers["Location"] = path + (f"?{target.query}" if target.query else "")
        return response

    return app
