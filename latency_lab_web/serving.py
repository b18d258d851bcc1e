"""The README's server (``bash scripts/run.sh``): gunicorn's gevent worker with the app's own error answers.

scripts/gunicorn.conf.py names :class:`ProblemGeventWorker` as the ``worker_class`` (why gevent: see there); the app
itself does not import this module. What the worker adds to gunicorn's:

- **gunicorn's own error answers as the app's.** gunicorn answers some requests itself, before the app sees them: a
  request line over ``limit_request_line`` (414), more header fields than ``limit_request_fields`` or one over
  ``limit_request_field_size`` (431), a request it cannot parse (400: a bad request line, method, version or
  header), an unsupported transfer coding (501), and an error in the app before its answer started (500). Its
  answer is a small text/html page without the headers every other answer carries. Here gunicorn still decides
  the status and logs as before (its ``handle_error`` runs unchanged, writing into a buffer), and the client gets
  the same status as a problem document of the app's kinds (:data:`latency_lab_web.web.problems.KINDS`), with
  ``SECURITY_HEADERS``, ``Cache-Control: no-store`` and ``Connection: close``.
- **A chunked body held to the app's body limit as its chunk sizes arrive.** gunicorn reads a chunk of the size
  its line announces, waiting for all of it: a chunk size of ``ffffffffffffffffffff`` (or any over the limit)
  followed by a few bytes got no answer at all (issue 26). A body whose chunk sizes add up past
  ``API_MAX_BODY_BYTES`` is refused as soon as the size line arrives: werkzeug's 413, which the app answers as its
  ``max_body_bytes`` problem (latency_lab_web/web/request.py).
- **An answer's head and body in one write** (:class:`OneWrite`): gunicorn sends the status line and headers, then
  the body; the two go out in one ``send``.
- **Connections take turns.** gunicorn's gevent worker serves a kept-alive connection in a loop: answer, read the
  next request, answer. When the client has already sent its next request (a fast client on a near network, or
  pipelined requests) the read finds it without waiting, so the greenlet never yields and the worker's other
  connections wait until this one pauses: with wrk's 4 kept-alive connections on 2 workers, runs of up to 30
  answers on one connection took cached answers (0.4 ms of CPU each) to a p99 of 250-380 ms (2026-11-28,
  ``bench/api_load.py``). After each answer the greenlet now waits for the event loop to be idle
  (``gevent.idle()``): the connections whose requests are waiting are served first, one answer each in turn.
"""

from __future__ import annotations

import json
import re
from http import HTTPStatus
from typing import Any

import gevent  # type: ignore[import-untyped]
from gunicorn import util  # type: ignore[import-untyped]
from gunicorn.http.body import ChunkedReader  # type: ignore[import-untyped]
from gunicorn.workers.ggevent import GeventWorker  # type: ignore[import-untyped]
from werkzeug.exceptions import RequestEntityTooLarge

from latency_lab.scenario.limits import MAX_HAR_BYTES
from latency_lab_web import SECURITY_HEADERS
from latency_lab_web.web.har import HAR_PATHS, UPLOAD_FRAMING_BYTES
from latency_lab_web.web.problems import KINDS, PROBLEM_JSON, type_uri

#: gunicorn's status -> the problem kind the answer names (others: ``about:blank`` with gunicorn's reason).
_KIND_OF_STATUS = {
    400: "bad-request",
    414: "request-line-too-long",
    431: "header-fields-too-large",
    500: "internal-error",
}

_STATUS_LINE = re.compile(rb"HTTP/1\.[01] (\d{3}) ")


class _Buffer:
    """Where gunicorn's ``util.write_error`` writes its page instead of the client's socket."""

    def __init__(self) -> None:
        self.data = b""

    def gettimeout(self) -> float:
        return 0.0  # non-blocking already: write_nonblock leaves the blocking mode alone

    def sendall(self, data: bytes) -> None:
        self.data += data


def _detail(status: int, exc: BaseException, limits: dict[str, int]) -> str:
    if status == 414:
        return (
            f"the request line (method, path and query) is over {limits['limit_request_line']:,} bytes, the "
            "server's limit; the API refuses a query over max_query_bytes before that: use POST with a JSON body"
        )
    if status == 431:
        return (
            f"the request's header fields are too large: at most {limits['limit_request_fields']} fields of "
            f"at most {limits['limit_request_field_size']:,} bytes each ({exc})"
        )
    if status == 500:  # the app's error, not the client's: nothing of it is shown (gunicorn logs it)
        return "an internal error occurred; it is a bug, please report it"
    if status == 400:
        return f"the request is not valid HTTP/1.1: {exc}"
    return str(exc) or HTTPStatus(status).phrase


def problem_answer(status: int, exc: BaseException, path: str, limits: dict[str, int]) -> bytes:
    """The whole HTTP answer (status line, headers, body) of one of gunicorn's errors, as a problem document."""
    name = _KIND_OF_STATUS.get(status)
    kind = KINDS.get(name) if name else None
    try:
        phrase = HTTPStatus(status).phrase  # gunicorn's own reason for a 501 is "Bad Request"
    except ValueError:  # pragma: no cover - gunicorn answers standard statuses only
        phrase = "Error"
    body: dict[str, Any] = {
        "type": type_uri(kind.name) if kind else "about:blank",
        "title": kind.title if kind else phrase,
        "status": status,
        "detail": _detail(status, exc, limits),
        "instance": path,
        "errors": [],
    }
    payload = json.dumps(body, separators=(",", ":")).encode()
    headers = {
        "Content-Type": PROBLEM_JSON,
        "Content-Length": str(len(payload)),
        "Cache-Control": "no-store",
        "Connection": "close",
        **SECURITY_HEADERS,
    }
    head = f"HTTP/1.1 {status} {phrase}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    return head.encode("latin-1") + payload


def bound_chunked_body(req: Any, most: int) -> None:
    """Make ``req``'s chunked body (if it has one) raise werkzeug's 413 as soon as its chunk sizes add up past
    ``most`` bytes, before waiting for the chunks' bytes (gunicorn's reader asks its ``parse_chunk_size`` for each
    size line, so the reader's own method is wrapped; nothing is read here)."""
    reader = getattr(getattr(req, "body", None), "reader", None)
    if not isinstance(reader, ChunkedReader):
        return
    parse = reader.parse_chunk_size
    announced = 0

    def bounded(unreader: Any, data: bytes | None = None) -> tuple[int, bytes | None]:
        nonlocal announced
        size, rest = parse(unreader, data)
        announced += size
        if announced > most:
            req.must_close = True  # the rest of the body is never read: the connection cannot carry another request
            raise RequestEntityTooLarge(f"the chunk sizes announce {announced:,} bytes, at most {most:,} allowed")
        return size, rest

    reader.parse_chunk_size = bounded


class OneWrite:
    """The client's socket while one answer is written: gunicorn writes an answer's status line and headers with one
    ``sendall`` and its body with the next; the first is held and sent with the second, in one system call and one
    TCP segment (a 10-object predict's answer: 440 bytes of head, 21 KB of body). Anything else asked of the socket
    (``shutdown``, ``sendfile``, ``fileno``...) sends what is held first; :meth:`flush` sends it when no body came
    (a HEAD, a 304). Issue 26: two writes an answer cost the worker a second ``send`` and the client a second
    wake-up."""

    __slots__ = ("_held", "_sock", "_waiting")

    def __init__(self, sock: Any) -> None:
        self._sock = sock
        self._held = b""
        self._waiting = True  # the first write (the head) not yet seen

    def sendall(self, data: bytes) -> None:
        if self._waiting:
            self._waiting = False
            self._held = bytes(data)
            return
        if self._held:
            data, self._held = self._held + data, b""
        self._sock.sendall(data)

    def flush(self) -> None:
        """Send what is held (nothing after the second write)."""
        self._waiting = False
        if self._held:
            held, self._held = self._held, b""
            self._sock.sendall(held)

    def __getattr__(self, name: str) -> Any:
        self.flush()  # in order: the head before whatever the socket is asked to do
        return getattr(self._sock, name)


class ProblemGeventWorker(GeventWorker):
    """gunicorn's gevent worker whose own error answers are problem+json with the app's security headers and whose
    chunked bodies are held to the app's ``API_MAX_BODY_BYTES`` (see the module's docstring)."""

    def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> Any:
        most = getattr(self.wsgi, "config", {}).get("API_MAX_BODY_BYTES")
        if most is not None:
            if getattr(req, "path", None) in HAR_PATHS:  # a HAR: its own limit (the views check it again)
                most = max(int(most), MAX_HAR_BYTES + UPLOAD_FRAMING_BYTES)
            bound_chunked_body(req, int(most))
        client = OneWrite(sock)
        try:
            keep_alive = super().handle_request(listener_name, req, client, addr)
        finally:
            client.flush()
        gevent.idle()  # the worker's other connections with a request waiting go first (the module's docstring)
        return keep_alive

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        page = _Buffer()
        super().handle_error(req, page, addr, exc)  # gunicorn's status choice and logging, its page kept here
        found = _STATUS_LINE.match(page.data)
        if found is None:  # pragma: no cover - gunicorn wrote nothing (or a format this does not know): keep it
            answer = page.data
        else:
            status = int(found.group(1))
            path = str(getattr(req, "path", "") or "")  # "" when the request could not be read
            limits = {
                name: int(getattr(self.cfg, name))
                for name in ("limit_request_line", "limit_request_fields", "limit_request_field_size")
            }
            answer = problem_answer(status, exc, path, limits)
        try:
            util.write_nonblock(client, answer)
        except Exception:
            self.log.debug("Failed to send error message.")
