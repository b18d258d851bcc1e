"""Compressed responses and long-cached, versioned static files.

- Pages and static files are compressed (flask-compress: brotli, zstd or gzip, whichever the
  client accepts first in that order). Blueprints named in ``COMPRESS_SKIP_BLUEPRINTS`` (default:
  the JSON API, whose in-process schemathesis run reads bodies undecoded) are sent as they are.
- Every ``url_for('static', filename=...)`` gets ``?v=<first 12 hex digits of the file's
  SHA-256>``: a changed file gets a new address, so a versioned address is cached for a year
  (``immutable``); an address without the current version is cached for five minutes only.
- Static files are compressed once per algorithm for their *current* version and kept in memory
  (:class:`_StaticCompressed`): the plotly bundle (1.2 MB) costs the compressor once, not on every
  first view. An entry is keyed by the file itself (its path relative to ``static/``, however the
  request spelt it: ``/static/./style.css`` and ``/static/style.css`` are one file) and holds the
  version it was made from; a file's entry is replaced when its version changes, so the memory held
  is at most every static file compressed once per algorithm (about 1.3 MB, nearly all of it the
  plotly bundle), however many spellings and ``?v=`` are asked for. :class:`Versions` is keyed the
  same way.
- A request with another ``?v=`` (a page from before the file changed: an open tab, a page restored
  from the browser's history or cache) gets the current file, cached for five minutes. That is what
  such a page can use: the old file is gone, a 404 would leave the page without its scripts and
  styles, and a redirect to the current address would only add a round trip before the same bytes.
  Not ``immutable``, so the old address is asked again soon. The bytes it gets are the current
  version's, so they are compressed into (or read from) the current version's entry like any other:
  a wrong ``?v=`` costs the compressor once, not on every request.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, cast

from flask import Flask, Response, current_app, request
from flask_compress import Compress

#: Cache-Control of a static file asked for by its current version.
IMMUTABLE = "public, max-age=31536000, immutable"
#: Cache-Control of a static file asked for without (or with an old) version.
SHORT = "public, max-age=300"


class _StaticCompressed:
    """flask-compress's cache backend: each static file's current version, compressed, once per algorithm.

    flask-compress asks with ``<algorithm>;<key>``, the key from :func:`_cache_key`: ``<file>@<version>`` (the
    file's path relative to ``static/`` and its current version) for a static file, ``""`` for every other
    response (a page's body depends on more than its address: the ``HX-Request`` header, a POST body), which is
    neither stored nor looked up. One entry per algorithm and file, holding the version it was made from: a
    lookup with another version misses, and a new version replaces the old entry.
    """

    def __init__(self) -> None:
        self._data: dict[str, tuple[str, bytes]] = {}  # "<algorithm>;<path>" -> (version, compressed body)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._data)

    @property
    def size(self) -> int:
        """Bytes of compressed bodies held."""
        with self._lock:
            return sum(len(body) for _, body in self._data.values())

    @staticmethod
    def _parse(key: str) -> tuple[str, str] | None:
        """``(slot, version)`` of a key, ``None`` for a response that is not cached."""
        algorithm, _, rest = key.partition(";")
        if not rest:
            return None
        path, _, version = rest.rpartition("@")
        return f"{algorithm};{path}", version

    def get(self, key: str) -> bytes | None:
        parsed = self._parse(key)
        if parsed is None:
            return None
        slot, version = parsed
        with self._lock:
            held = self._data.get(slot)
        return held[1] if held is not None and held[0] == version else None

    def set(self, key: str, value: bytes) -> None:
        parsed = self._parse(key)
        if parsed is None:
            return
        slot, version = parsed
        with self._lock:
            self._data[slot] = (version, value)


class _SizedBody:
    """A static file's body with a length (werkzeug then does not call it streamed), read when iterated."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks = chunks

    def __len__(self) -> int:
        return 1  # only asked whether there is a length (werkzeug's Response.is_streamed)

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._chunks)

    def close(self) -> None:
        close = getattr(self._chunks, "close", None)
        if close is not None:
            close()


class _Compress(Compress):
    """flask-compress, leaving out the responses of the blueprints in ``COMPRESS_SKIP_BLUEPRINTS``."""

    def after_request(self, response: Response | None) -> Response:
        if response is not None and request.blueprint in current_app.config["COMPRESS_SKIP_BLUEPRINTS"]:
            return response
        return super().after_request(response)


def _cache_key(req: Any) -> str:
    """The key of :class:`_StaticCompressed` for a request (see there)."""
    if req.endpoint != "static":
        return ""
    versions: Versions = current_app.extensions["static_versions"]
    found = versions.find(str((req.view_args or {}).get("filename", "")))
    if found is None:
        return ""
    name, current = found
    return f"{name}@{current}"


class Versions:
    """Content hashes of static files, computed once per file modification time.

    Keyed by the file's path relative to the root (resolved: ``./style.css``, ``a/../style.css`` and
    ``style.css`` are one key), so the table holds at most one entry per static file however a request
    spells its name.
    """

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._known: dict[str, tuple[float, str]] = {}
        self._lock = threading.Lock()

    def find(self, filename: str) -> tuple[str, str] | None:
        """``(name, version)`` of ``static/<filename>``: its path relative to ``static/`` and its version;
        ``None`` if there is no such file."""
        path = (self.root / filename).resolve()
        if not path.is_relative_to(self.root) or not path.is_file():
            return None
        name = path.relative_to(self.root).as_posix()
        mtime = path.stat().st_mtime
        with self._lock:
            known = self._known.get(name)
            if known is not None and known[0] == mtime:
                return name, known[1]
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
        with self._lock:
            self._known[name] = (mtime, digest)
        return name, digest

    def of(self, filename: str) -> str | None:
        """The version of ``static/<filename>``, ``None`` if there is no such file."""
        found = self.find(filename)
        return None if found is None else found[1]

    def __len__(self) -> int:
        """Files whose version is known."""
        with self._lock:
            return len(self._known)


def compress_config() -> dict[str, Any]:
    """flask-compress's settings for the app: brotli, zstd or gzip; the API sent as it is; static files compressed
    once per version (:class:`_StaticCompressed`)."""
    return {
        "COMPRESS_ALGORITHM": ["br", "zstd", "gzip"],
        "COMPRESS_ALGORITHM_STREAMING": ["br", "zstd", "gzip"],
        "COMPRESS_SKIP_BLUEPRINTS": ["api"],
        "COMPRESS_CACHE_BACKEND": _StaticCompressed,
        "COMPRESS_CACHE_KEY": _cache_key,
        "COMPRESS_MIMETYPES": [
            "text/html",
            "text/css",
            "text/javascript",
            "application/javascript",
            "application/json",
            "application/problem+json",
            "text/csv",
            "image/svg+xml",
        ],
    }


def init_app(app: Flask) -> None:
    """Compress responses and version and cache the static files of ``app`` (its ``COMPRESS_*`` settings are
    declared in :func:`latency_lab_web.create_app`, from :func:`compress_config`)."""
    compress = _Compress(app)
    app.extensions["static_compressed"] = compress.cache  # a _StaticCompressed (tests read its size)
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
            # Sized, so flask-compress takes it as a whole body and looks in its cache (see _StaticCompressed);
            # read only on a miss (or when sent uncompressed), not on every request.
            body = _SizedBody(cast(Iterable[bytes], response.response))  # send_file's file wrapper: bytes
            response.direct_passthrough = False
            response.response = body
            response.call_on_close(body.close)  # a cache hit replaces the body without reading or closing it
        return response
