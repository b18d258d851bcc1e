"""Compressed responses and long-cached, versioned static files.

- Pages and static files are compressed (flask-compress: brotli, zstd or gzip, whichever the
  client accepts first in that order). Blueprints named in ``COMPRESS_SKIP_BLUEPRINTS`` (default:
  the JSON API, whose in-process schemathesis run reads bodies undecoded) are sent as they are. Static files are compressed once per file version and algorithm and kept
  in memory: the plotly bundle (1.2 MB) costs the compressor once, not on every first view.
- Every ``url_for('static', filename=...)`` gets ``?v=<first 12 hex digits of the file's
  SHA-256>``: a changed file gets a new address, so a versioned address is cached for a year
  (``immutable``); an address without the current version is cached for five minutes only.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path
from typing import Any

from flask import Flask, Response, current_app, request
from flask_compress import Compress

#: Cache-Control of a static file asked for by its current version.
IMMUTABLE = "public, max-age=31536000, immutable"
#: Cache-Control of a static file asked for without (or with an old) version.
SHORT = "public, max-age=300"


class _StaticCompressed:
    """flask-compress's cache backend: compressed static files, keyed by algorithm, path and version.

    Keys of other responses (``cache_key`` gives them ``""``) are neither stored nor looked up:
    a page's body depends on more than its address (the ``HX-Request`` header, a POST body).
    """

    def __init__(self) -> None:
        self._data: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> bytes | None:
        with self._lock:
            return self._data.get(key)

    def set(self, key: str, value: bytes) -> None:
        if key.endswith(";"):
            return
        with self._lock:
            self._data[key] = value


class _Compress(Compress):
    """flask-compress, leaving out the responses of the blueprints in ``COMPRESS_SKIP_BLUEPRINTS``."""

    def after_request(self, response: Response | None) -> Response:
        if response is not None and request.blueprint in current_app.config["COMPRESS_SKIP_BLUEPRINTS"]:
            return response
        return super().after_request(response)


def _cache_key(req: Any) -> str:
    if req.endpoint == "static" and req.args.get("v"):
        return f"{req.path}?v={req.args['v']}"
    return ""


class Versions:
    """Content hashes of static files, computed once per file modification time."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._known: dict[str, tuple[float, str]] = {}
        self._lock = threading.Lock()

    def of(self, filename: str) -> str | None:
        """The version of ``static/<filename>``, ``None`` if there is no such file."""
        path = (self.root / filename).resolve()
        if not path.is_relative_to(self.root) or not path.is_file():
            return None
        mtime = path.stat().st_mtime
        with self._lock:
            known = self._known.get(filename)
            if known is not None and known[0] == mtime:
                return known[1]
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
        with self._lock:
            self._known[filename] = (mtime, digest)
        return digest


def init_app(app: Flask) -> None:
    """Compress responses and version and cache the static files of ``app``."""
    app.config.setdefault("COMPRESS_ALGORITHM", ["br", "zstd", "gzip"])
    app.config.setdefault("COMPRESS_ALGORITHM_STREAMING", ["br", "zstd", "gzip"])
    app.config.setdefault("COMPRESS_SKIP_BLUEPRINTS", ["api"])
    app.config.setdefault("COMPRESS_CACHE_BACKEND", _StaticCompressed)
    app.config.setdefault("COMPRESS_CACHE_KEY", _cache_key)
    app.config.setdefault(
        "COMPRESS_MIMETYPES",
        [
            "text/html",
            "text/css",
            "text/javascript",
            "application/javascript",
            "application/json",
            "application/problem+json",
            "text/csv",
            "image/svg+xml",
        ],
    )
    _Compress(app)
    assert app.static_folder is not None
    versions = Versions(Path(app.static_folder))
    app.extensions["static_versions"] = versions

    @app.url_defaults
    def _static_version(endpoint: str, values: dict[str, Any]) -> None:
        if endpoint == "static" and "filename" in values and "v" not in values:
            version = versions.of(values["filename"])
            if version is not None:
                values["v"] = version

    # Registered after flask-compress, so it runs before it (after_request runs in reverse order).
    @app.after_request
    def _static_caching(response: Response) -> Response:
        if request.endpoint != "static" or response.status_code not in (200, 304):
            return response
        filename = (request.view_args or {}).get("filename", "")
        current = versions.of(str(filename))
        versioned = current is not None and request.args.get("v") == current
        response.headers["Cache-Control"] = IMMUTABLE if versioned else SHORT
        if response.status_code == 200 and response.is_streamed:
            # A whole file in memory, so flask-compress compresses it once (see _StaticCompressed).
            response.direct_passthrough = False
            response.set_data(response.get_data())
        return response
