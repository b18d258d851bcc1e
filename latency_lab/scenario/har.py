"""A HAR file (HTTP Archive 1.2) read into the page the model predicts, and what-ifs on it (issue 28).

:func:`read_har` reads the text of a HAR (DevTools or Playwright in Chromium, Firefox, WebPageTest), refusing a
malformed or hostile one before any work with a :class:`HarError` naming what is wrong (the field's path and what it
allows); :func:`har_page` builds a :class:`HarPage` from it:

- the **document**: the first entry of the page (``log.pages[0]``: the entries whose ``pageref`` is its ``id``; all
  entries if the HAR has no pages) whose ``response.content.mimeType`` is HTML, in start order; the entries that
  started before it (redirects) are left out, and so are entries that failed (``response.status`` 0) and entries
  that started after the page's ``onLoad`` (a favicon), each said in :attr:`HarPage.notes`;
- each **object** (every other entry of the page, in start order): its origin (``scheme://host:port``), its size on
  the wire (:func:`wire_bytes`: the body's bytes as they were sent), the protocol its response came over
  (``h1``, ``h2``, ``h3``: ``response.httpVersion``, WebPageTest's ``_protocol``) and its **initiator** as a
  parent index (0 the HTML, k the k-th object, always an object that started earlier, so parents come first):
  Chrome's ``_initiator`` (``parser``: its ``url``; ``script``: the innermost call frame's ``url`` on its stack or
  the stacks it was called from), WebPageTest's ``_initiator`` (a URL); without one (Firefox, Playwright) the HTML;
- per **origin**: the protocol it spoke (the one most of its responses came over), its objects and bytes, and the
  network figures the HAR shows: an RTT estimate (the median TCP connect time of its new connections,
  :func:`tcp_connect_ms`) and its DNS time;
- the page's own measured times (``pageTimings.onContentLoad``, ``onLoad``) and a bandwidth estimate (the fastest
  large response: its bytes over ``timings.receive``).

:func:`to_scenario` turns a :class:`HarPage` and a :class:`WhatIf` (other protocols, RTT, rate, loss, origins removed,
preconnect) into a scenario document of :class:`~latency_lab.scenario.schema.Scenario`: each origin beside the
document's becomes one of ``page.origins`` (its own DNS lookup as the HAR shows it, connections and TLS handshakes;
coalesced onto the document's connection where the HAR shows its requests on that connection, RFC 9113 9.1.1) and
each object names its origin (``page.object_origins``); all origins share the document's path (one RTT and rate)
unless the what-if gives them their own (``origin_rtts``, ``origin_paths``: ``page.origins[].rtt_ms``); past :data:`~latency_lab.scenario.schema.MAX_ORIGINS` the rest are served by the
document's origin (the result names them). The initiator tree becomes ``page.object_parents`` (:func:`page_section`):
an object is requested once its initiator has arrived.

Pure: the standard library, pydantic and :mod:`latency_lab.scenario` only.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from annotated_types import Ge, Le
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from latency_lab.scenario.errors import Problem, did_you_mean, field_path
from latency_lab.scenario.json_input import BRACKET_TOKEN, JsonInputError, loads_strict, location_in_text
from latency_lab.scenario.limits import MAX_HAR_BYTES, MAX_HAR_CONTAINERS, MAX_HAR_DEPTH, MAX_HAR_ENTRIES, Limit
from latency_lab.scenario.schema import (
    MAX_DELAY_MS,
    MAX_DNS_MS,
    MAX_LOSS_RATE,
    MAX_OBJECT_BYTES,
    MAX_OBJECTS,
    MAX_ORIGINS,
    MAX_RATE_BPS,
    MIN_RATE_BPS,
    Protocol,
)

#: Longest time a HAR may give (ms): an hour. Past it a timing is refused as out of range.
MAX_HAR_MS = 3_600_000.0
#: Longest URL (characters).
MAX_URL_CHARS = 8192
#: Longest text of the other string fields read (a method, a MIME type, a protocol, a page id, a date).
MAX_TEXT_CHARS = 1000
#: Responses at least this large (bytes) give a bandwidth estimate (ten full segments: a short one is all latency).
BANDWIDTH_MIN_BYTES = 14_600
#: Protocols the HAR import's what-ifs compare when none are given: HTTP/1.1 as browsers use it, HTTP/2, HTTP/3.
DEFAULT_PROTOCOLS: tuple[Protocol, ...] = ("persistent_parallel", "h2", "h3")
#: The model's protocol for what an origin spoke in the HAR.
MODEL_PROTOCOL: dict[str, Protocol] = {"h1": "persistent_parallel", "h2": "h2", "h3": "h3"}
#: Connections a browser opens per origin (HTTP/1.1): the scenario's http.parallel_connections.
BROWSER_CONNECTIONS = 6

HttpVersion = Literal["h1", "h2", "h3"]
Kind = Literal["not_json", "too_large", "invalid", "limit"]


class HarError(ValueError):
    """A HAR refused: each problem names its path in the HAR (``log.entries[3].response.bodySize``) and what it
    allows. ``kind``: ``not_json`` (not JSON, or not UTF-8), ``too_large`` (over :data:`MAX_HAR_BYTES`), ``limit``
    (over another documented limit: :attr:`limit` says which) or ``invalid`` (a field missing, of the wrong type, out
    of range, or a page the model cannot take)."""

    def __init__(self, found: list[Problem], kind: Kind = "invalid", limit: Limit | None = None) -> None:
        super().__init__("\n".join(p.text for p in found))
        self.problems = found
        self.kind = kind
        self.limit = limit


#: Each refusal's problem type: a page the model cannot take (``har_page``: no HTML entry, a URL not http, an origin
#: to remove the page has not...), not JSON (``json_invalid``), over a limit (``limit_exceeded``).
PROBLEM_TYPES: dict[Kind, str] = {
    "invalid": "har_page",
    "not_json": "json_invalid",
    "too_large": "limit_exceeded",
    "limit": "limit_exceeded",
}


#: The path of a problem of the whole HAR (its size, its JSON).
WHOLE = "HAR"


def _refuse(path: str, message: str, allowed: str | None = None, kind: Kind = "invalid", value: Any = None) -> HarError:
    loc = tuple(path.split(".")) if path and path != WHOLE else ()
    problem = Problem(path=path, message=message, allowed=allowed, value=value, type=PROBLEM_TYPES[kind], loc=loc)
    return HarError([problem], kind)


# --- the parts of a HAR read (HAR 1.2, and the browsers' own fields) ------------------------------------


class _Har(BaseModel):
    """A part of a HAR: the fields read are checked, with JSON's types as they are (a size is a whole number, ``200``
    or ``200.0``, not ``"200"``; a time any number); every other field is ignored (HARs carry many)."""

    model_config = ConfigDict(extra="ignore", allow_inf_nan=False, populate_by_name=True, strict=True)


def _whole(value: Any) -> Any:
    """A whole float (``1234.0``) as its integer, as JSON Schema's ``integer`` takes it; anything else as given."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


#: An integer field: a JSON integer, or a whole number written as a float.
Whole = Annotated[int, BeforeValidator(_whole)]
#: A size that may be left out (the browsers' own fields), its range on the type so the schema says it.
OptionalSize = Annotated[int, Ge(-1), Le(MAX_OBJECT_BYTES), BeforeValidator(_whole)] | None

# Sizes are bytes and times ms; -1 is HAR's "not known".


class HarContent(_Har):
    size: Whole = Field(-1, ge=-1, le=MAX_OBJECT_BYTES, description="The body's bytes, decoded (HAR 1.2 content.size).")
    mimeType: str = Field("", max_length=MAX_TEXT_CHARS)


class HarRequest(_Har):
    method: str = Field("GET", max_length=MAX_TEXT_CHARS)
    url: str = Field(max_length=MAX_URL_CHARS)


class HarResponse(_Har):
    status: Whole = Field(ge=0, le=999)
    httpVersion: str = Field("", max_length=MAX_TEXT_CHARS)
    headersSize: Whole = Field(-1, ge=-1, le=MAX_OBJECT_BYTES)
    bodySize: Whole = Field(-1, ge=-1, le=MAX_OBJECT_BYTES)
    content: HarContent = Field(default_factory=HarContent)
    transferSize: OptionalSize = Field(None, alias="_transferSize")


class HarTimings(_Har):
    blocked: float = Field(-1, ge=-1, le=MAX_HAR_MS)
    dns: float = Field(-1, ge=-1, le=MAX_HAR_MS)
    connect: float = Field(-1, ge=-1, le=MAX_HAR_MS)
    ssl: float = Field(-1, ge=-1, le=MAX_HAR_MS)
    send: float = Field(-1, ge=-1, le=MAX_HAR_MS)
    wait: float = Field(-1, ge=-1, le=MAX_HAR_MS)
    receive: float = Field(-1, ge=-1, le=MAX_HAR_MS)


class CallFrame(_Har):
    url: str = Field("", max_length=MAX_URL_CHARS)


class CallStack(_Har):
    """Chrome's ``_initiator.stack``: call frames innermost first, and the (async) stack it was called from."""

    callFrames: list[CallFrame] = Field(default_factory=list, max_length=MAX_HAR_ENTRIES)
    parent: CallStack | None = None


class ChromeInitiator(_Har):
    """Chrome's ``_initiator``: ``type`` parser (``url``: the document or style sheet), script (``stack``), other."""

    type: str = Field("other", max_length=MAX_TEXT_CHARS)
    url: str | None = Field(None, max_length=MAX_URL_CHARS)
    stack: CallStack | None = None


class HarEntry(_Har):
    pageref: str | None = Field(None, max_length=MAX_TEXT_CHARS)
    startedDateTime: str = Field(max_length=MAX_TEXT_CHARS)
    request: HarRequest
    response: HarResponse
    timings: HarTimings = Field(default_factory=HarTimings)
    initiator: ChromeInitiator | str | None = Field(None, alias="_initiator", union_mode="left_to_right")
    protocol: str | None = Field(None, alias="_protocol", max_length=MAX_TEXT_CHARS)  # WebPageTest
    connection: str | None = Field(None, max_length=MAX_TEXT_CHARS)  # HAR 1.2: the connection's id (Chrome: a socket)
    bytes_in: OptionalSize = Field(None, alias="_bytesIn")  # WebPageTest


class PageTimings(_Har):
    onContentLoad: float | None = Field(None, ge=-1, le=MAX_HAR_MS)
    onLoad: float | None = Field(None, ge=-1, le=MAX_HAR_MS)


class HarPageRecord(_Har):
    id: str = Field(max_length=MAX_TEXT_CHARS)
    title: str = Field("", max_length=MAX_URL_CHARS)
    pageTimings: PageTimings = Field(default_factory=PageTimings)


class HarCreator(_Har):
    name: str = Field("", max_length=MAX_TEXT_CHARS)
    version: str = Field("", max_length=MAX_TEXT_CHARS)


class HarLog(_Har):
    version: str = Field("", max_length=MAX_TEXT_CHARS)
    creator: HarCreator = Field(default_factory=HarCreator)
    pages: list[HarPageRecord] | None = Field(None, max_length=MAX_HAR_ENTRIES)
    entries: list[HarEntry] = Field(max_length=MAX_HAR_ENTRIES)


class HarDocument(_Har):
    """A HAR 1.2 document: the parts the import reads (``log.pages``, ``log.entries``)."""

    log: HarLog


# --- reading -------------------------------------------------------------------------------------------


def _allowed_words(err: Any) -> str | None:
    loc = [str(part) for part in err["loc"] if not isinstance(part, int)]
    last = loc[-1] if loc else ""
    if last in ("headersSize", "bodySize", "size", "_transferSize", "_bytesIn"):
        return f"a whole number of bytes from -1 (not known) to {MAX_OBJECT_BYTES:,}"
    if last in HarTimings.model_fields or last in PageTimings.model_fields:
        return f"a number of ms from -1 (not known) to {MAX_HAR_MS:,.0f}"
    if last == "status":
        return "a whole number from 0 to 999"
    if last == "entries":
        return f"an array of at most {MAX_HAR_ENTRIES:,} entries (the document and {MAX_OBJECTS:,} objects)"
    return None


def _problems(exc: ValidationError) -> list[Problem]:
    out: list[Problem] = []
    for err in exc.errors(include_url=False)[:20]:
        loc = tuple(err["loc"])
        given = err.get("input")
        got = json.dumps(given)[:100] if isinstance(given, int | float | str | bool) or given is None else None
        out.append(
            Problem(
                path=field_path(loc),
                message=str(err["msg"]).removeprefix("Value error, "),
                allowed=_allowed_words(err),
                value=given if got is not None else None,
                type=str(err["type"]),
                loc=loc,
                got=got,
            )
        )
    return out


def _check_depth(text: str) -> None:
    """:class:`HarError` at the first array or object nested past :data:`MAX_HAR_DEPTH`: a scan of the text that
    stops there (5 MB of brackets is refused in microseconds, where a scan to the end takes seconds)."""
    if text.count("[") + text.count("{") <= MAX_HAR_DEPTH:
        return
    depth = 0
    for m in BRACKET_TOKEN.finditer(text):
        c = text[m.start()]
        if c == "[" or c == "{":
            depth += 1
            if depth > MAX_HAR_DEPTH:
                path = field_path(location_in_text(text, m.start())) or WHOLE
                message = (
                    f"level {MAX_HAR_DEPTH + 1} of nested arrays and objects; at most {MAX_HAR_DEPTH} levels "
                    "allowed (max_har_depth)"
                )
                error = _refuse(path, message, f"at most {MAX_HAR_DEPTH} levels of nesting", "limit")
                error.limit = Limit(
                    "max_har_depth", MAX_HAR_DEPTH, MAX_HAR_DEPTH + 1, f"{path or 'the HAR'}: {message}"
                )
                raise error
        elif c == "]" or c == "}":
            depth -= 1


def read_har(data: bytes | str) -> HarDocument:
    """The HAR in ``data`` (its bytes, or text), checked: :class:`HarError` before any other work if it is over
    :data:`MAX_HAR_BYTES`, not UTF-8, not strict JSON (:func:`latency_lab.scenario.json_input.loads_strict`), nested
    deeper than :data:`MAX_HAR_DEPTH`, holds more than :data:`MAX_HAR_ENTRIES` entries or a field read is missing,
    of the wrong type or out of range."""
    size = len(data.encode() if isinstance(data, str) else data)
    if size > MAX_HAR_BYTES:
        message = f"the HAR is {size:,} bytes, at most {MAX_HAR_BYTES:,} allowed (max_har_bytes)"
        error = _refuse(
            WHOLE, message, f"a HAR of at most {MAX_HAR_BYTES:,} bytes (saved without contents)", "too_large"
        )
        error.limit = Limit("max_har_bytes", MAX_HAR_BYTES, size, message)
        raise error
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise _refuse(
                "", f"not UTF-8 text ({exc.reason} at byte {exc.start})", "a HAR: JSON in UTF-8", "not_json"
            ) from None
    else:
        text = data.removeprefix("\ufeff")  # HAR 1.2: readers ignore a byte order mark
    containers = text.count("{") + text.count("[")
    if containers > MAX_HAR_CONTAINERS:
        message = (
            f"the HAR holds {containers:,} objects and arrays ({{ and [ characters), at most {MAX_HAR_CONTAINERS:,} "
            f"allowed (max_har_containers: 200 an entry)"
        )
        error = _refuse(WHOLE, message, f"at most {MAX_HAR_CONTAINERS:,} objects and arrays", "limit")
        error.limit = Limit("max_har_containers", MAX_HAR_CONTAINERS, containers, message)
        raise error
    _check_depth(text)
    try:
        raw = loads_strict(text, max_depth=len(text))  # the nesting is checked: loads_strict need not scan again
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise _refuse(WHOLE, f"not JSON: {exc.msg} at {where}", "a HAR: a JSON object", "not_json") from None
    except JsonInputError as exc:
        if exc.limit is not None:  # pragma: no cover - the nesting is checked first
            raise HarError(exc.problems, "limit", exc.limit) from None
        raise HarError(exc.problems, "not_json" if exc.not_json else "invalid") from None
    except RecursionError:  # pragma: no cover - the depth is checked on the text first
        raise _refuse(WHOLE, f"nested too deep: at most {MAX_HAR_DEPTH} levels", None, "limit") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("log"), dict):
        raise _refuse("log", "a HAR is a JSON object with a log object", "an object with log.entries", value=None)
    entries = raw["log"].get("entries")
    if isinstance(entries, list) and len(entries) > MAX_HAR_ENTRIES:
        message = (
            f"the HAR has {len(entries):,} entries, at most {MAX_HAR_ENTRIES:,} allowed (max_har_entries: the "
            f"document and the model's {MAX_OBJECTS:,} objects, max_objects)"
        )
        error = _refuse("log.entries", message, _allowed_words({"loc": ("entries",)}), "limit")
        error.limit = Limit("max_har_entries", MAX_HAR_ENTRIES, len(entries), message)
        raise error
    try:
        return HarDocument.model_validate(raw)
    except ValidationError as exc:
        raise HarError(_problems(exc)) from None


# --- the page ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HarObject:
    """One response of the page: the document or an embedded object."""

    url: str
    origin: str  # scheme://host:port
    wire_bytes: int  # the body's bytes on the wire (see wire_bytes)
    size_field: str  # the HAR field wire_bytes was read from
    protocol: HttpVersion
    mime_type: str
    parent: int  # 0 the HTML, k the k-th object (k < own index); the document's own: -1
    initiator: str  # how the parent was found: parser, script, webpagetest, none (taken as the HTML), unknown


@dataclass(frozen=True, slots=True)
class HarOrigin:
    """An origin of the page and what the HAR shows of it."""

    origin: str
    protocol: HttpVersion  # the one most of its responses came over
    objects: int  # responses of the page from it (the document among them)
    wire_bytes: int
    rtt_ms: float | None  # the median TCP connect time of its new connections; None if it opened none the HAR shows
    dns_ms: float | None  # its longest DNS lookup; None if none shown
    coalesced: bool = False  # some of its requests went on a connection of the document's origin (h2/h3 reuse)


@dataclass(frozen=True, slots=True)
class HarPage:
    """A page read from a HAR: the document, its objects in start order (parents first), its origins."""

    document: HarObject
    objects: tuple[HarObject, ...]
    origins: tuple[HarOrigin, ...]  # the document's first
    on_load_ms: float | None  # pageTimings.onLoad, if the HAR has it
    on_content_load_ms: float | None
    bandwidth_bps: float | None  # the fastest large response's rate; None if none is large enough
    response_header_bytes: int | None  # median response.headersSize of the responses that give it
    creator: str  # log.creator: name and version
    notes: tuple[str, ...] = ()  # the entries left out, and why

    @property
    def parents(self) -> list[int]:
        """Each object's parent: 0 the HTML, k the k-th object (as ``page.object_parents`` will take it)."""
        return [o.parent for o in self.objects]

    @property
    def depth(self) -> int:
        """The initiator tree's depth: 0 for the HTML alone, 1 if every object hangs off the HTML, ..."""
        depths = [0]
        for o in self.objects:
            depths.append(depths[o.parent] + 1)
        return max(depths)

    @property
    def wire_bytes(self) -> int:
        return self.document.wire_bytes + sum(o.wire_bytes for o in self.objects)

    @property
    def secure(self) -> bool:
        return self.document.origin.startswith("https:")

    def summary(self) -> dict[str, Any]:
        """The page in a few numbers, and its origins: what the front ends print."""
        return {
            "document": self.document.url,
            "objects": len(self.objects),
            "wire_bytes": self.wire_bytes,
            "html_bytes": self.document.wire_bytes,
            "tree_depth": self.depth,
            "origins": [
                {
                    "origin": o.origin,
                    "protocol": o.protocol,
                    "objects": o.objects,
                    "wire_bytes": o.wire_bytes,
                    "rtt_ms": o.rtt_ms,
                    "dns_ms": o.dns_ms,
                }
                for o in self.origins
            ],
            "on_load_ms": self.on_load_ms,
            "on_content_load_ms": self.on_content_load_ms,
            "bandwidth_bps": self.bandwidth_bps,
            "creator": self.creator,
            "notes": list(self.notes),
        }


def http_version(entry: HarEntry) -> HttpVersion:
    """The protocol a response came over: WebPageTest's ``_protocol`` if given, else ``response.httpVersion``
    (``http/1.1``, ``HTTP/2``, ``h2``, ``http/2.0``, ``h3``, ``HTTP/3``, ``QUIC``...)."""
    text = (entry.protocol or entry.response.httpVersion).lower()
    if "3" in text.removeprefix("http/1") or "quic" in text:
        return "h3"
    if "2" in text or "spdy" in text:
        return "h2"
    return "h1"


def wire_bytes(entry: HarEntry) -> tuple[int, str]:
    """The body's bytes as they were sent (compressed, if it was), and the field they were read from, in this order:
    ``response.bodySize`` (HAR 1.2: the body received; Chrome and Firefox: as transferred), Chrome's
    ``response._transferSize`` less ``response.headersSize``, WebPageTest's ``_bytesIn`` less ``headersSize``, and
    last ``response.content.size`` (the decoded body: more than was sent if it was compressed); 0 if none is known."""
    r = entry.response
    headers = max(r.headersSize, 0)
    if r.bodySize >= 0:
        return r.bodySize, "response.bodySize"
    if r.transferSize is not None and r.transferSize >= 0:
        return max(r.transferSize - headers, 0), "response._transferSize - headersSize"
    if entry.bytes_in is not None and entry.bytes_in >= 0:
        return max(entry.bytes_in - headers, 0), "_bytesIn - headersSize"
    if r.content.size >= 0:
        return r.content.size, "response.content.size"
    return 0, "none"


def origin_of(url: str) -> str:
    """``scheme://host:port`` of an http(s) URL, the port written even when it is the scheme's default."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}:{port}"


def _initiator_url(entry: HarEntry) -> tuple[str | None, str]:
    """The URL of the response whose arrival revealed this one, and how it was found."""
    init = entry.initiator
    if isinstance(init, str):  # WebPageTest: the initiator's URL
        return (init or None), "webpagetest"
    if init is None:
        return None, "none"
    if init.url:
        return init.url, init.type or "parser"
    stack = init.stack
    seen = 0
    while stack is not None and seen < MAX_HAR_DEPTH:  # the innermost frame with a URL, then the stacks it came from
        for frame in stack.callFrames:
            if frame.url:
                return frame.url, init.type or "script"
        stack = stack.parent
        seen += 1
    return None, "none" if init.type == "other" else "unknown"


def tcp_connect_ms(t: HarTimings) -> float:
    """A new connection's TCP handshake (ms): ``connect`` less ``ssl`` (HAR 1.2: connect includes the TLS
    handshake), or ``connect`` itself where ``ssl`` is not known or not less (Playwright gives ssl on plain http)."""
    return t.connect - t.ssl if 0 < t.ssl < t.connect else t.connect


def _started(entry: HarEntry, i: int) -> datetime:
    try:
        return datetime.fromisoformat(entry.startedDateTime)
    except ValueError:
        raise _refuse(
            f"log.entries[{i}].startedDateTime",
            f"not a date and time: {entry.startedDateTime[:40]!r}",
            "an ISO 8601 date and time, as 2026-11-29T09:00:00.000Z",
        ) from None


def _is_html(entry: HarEntry) -> bool:
    mime = entry.response.content.mimeType.split(";")[0].strip().lower()
    return mime in ("text/html", "application/xhtml+xml")


def har_page(har: HarDocument) -> HarPage:
    """The page of a HAR (its first page): the document, the objects, the origins; :class:`HarError` if the HAR has
    no such page, no HTML entry in it, or a URL that is not http or https."""
    log = har.log
    page = log.pages[0] if log.pages else None
    indexed = list(enumerate(log.entries))
    if page is not None and any(e.pageref is not None for e in log.entries):
        indexed = [(i, e) for i, e in indexed if e.pageref == page.id]
        if not indexed:
            raise _refuse(
                "log.pages[0].id",
                f"no entry belongs to the page {page.id[:80]!r} (no entry's pageref names it)",
                "a page with its entries",
            )
    if not indexed:
        raise _refuse("log.entries", "the HAR has no entries", "a page's entries: its HTML document and its objects")
    for i, e in indexed:
        try:
            parts = urlsplit(e.request.url)
            good = parts.scheme.lower() in ("http", "https") and bool(parts.hostname) and parts.port != 0
        except ValueError:  # a bad port ("http://a:x/", past 65535) or a bad IPv6 address ("http://[::1/")
            good = False
        if not good:
            raise _refuse(
                f"log.entries[{i}].request.url",
                f"not an http or https URL: {e.request.url[:80]!r}",
                "an http:// or https:// URL with a host",
                value=e.request.url[:200],
            )
    times = {i: _started(e, i) for i, e in indexed}
    try:
        indexed.sort(key=lambda ie: (times[ie[0]], ie[0]))
    except TypeError:  # dates with and without a time zone
        raise _refuse(
            "log.entries", "the entries' startedDateTime mix times with and without a time zone", "ISO 8601 times"
        ) from None
    notes: list[str] = []
    first_html = next((k for k, (_, e) in enumerate(indexed) if _is_html(e) and e.response.status > 0), None)
    if first_html is None:
        where = "the page's entries" if page is not None else "the entries"
        raise _refuse(
            "log.entries",
            f"no HTML document among {where}: no entry's response.content.mimeType is text/html",
            "a page whose document is an HTML entry",
        )
    if first_html:
        notes.append(f"{first_html} entries before the HTML document left out (redirects)")
    timings = page.pageTimings if page is not None else PageTimings()
    on_load = timings.onLoad if timings.onLoad is not None and timings.onLoad >= 0 else None
    on_content = timings.onContentLoad if timings.onContentLoad is not None and timings.onContentLoad >= 0 else None
    start = times[indexed[first_html][0]]
    kept: list[tuple[int, HarEntry]] = []
    failed = late = 0
    for i, e in indexed[first_html:]:
        if e.response.status == 0:
            failed += 1
            continue
        if on_load is not None and kept and (times[i] - start).total_seconds() * 1000 > on_load:
            late += 1
            continue
        kept.append((i, e))
    if failed:
        notes.append(f"{failed} failed or blocked requests left out (response.status 0)")
    if late:
        notes.append(f"{late} requests that started after onLoad left out")
    if len(kept) - 1 > MAX_OBJECTS:  # pragma: no cover - the entries are capped at MAX_HAR_ENTRIES
        raise _refuse("log.entries", f"more than {MAX_OBJECTS:,} objects", f"at most {MAX_OBJECTS:,} objects")
    seen_at: dict[str, int] = {}  # a URL -> the first response of it: 0 the HTML, k the k-th object
    built: list[HarObject] = []
    unknown = 0
    for k, (_, e) in enumerate(kept):
        size, how = wire_bytes(e)
        if k == 0:
            parent, kind = -1, "document"
        else:
            url, kind = _initiator_url(e)
            parent = seen_at.get(url, -1) if url is not None else 0
            if parent < 0:  # an initiator the page has not loaded (a frame, or one left out): the HTML
                parent, kind = 0, "unknown"
                unknown += 1
        built.append(
            HarObject(
                url=e.request.url,
                origin=origin_of(e.request.url),
                wire_bytes=size,
                size_field=how,
                protocol=http_version(e),
                mime_type=e.response.content.mimeType[:100],
                parent=parent,
                initiator=kind,
            )
        )
        seen_at.setdefault(e.request.url, k)
    if unknown:
        notes.append(f"{unknown} objects whose initiator the page did not load hang off the HTML")
    origins: list[HarOrigin] = []
    home_connections = {e.connection for o, (_, e) in zip(built, kept, strict=True) if o.origin == built[0].origin}
    home_connections.discard(None)
    for name in dict.fromkeys(o.origin for o in built):
        mine = [(o, e) for o, (_, e) in zip(built, kept, strict=True) if o.origin == name]
        connects = [tcp_connect_ms(e.timings) for _, e in mine if e.timings.connect > 0]
        dns = [e.timings.dns for _, e in mine if e.timings.dns > 0]
        protocol = Counter(o.protocol for o, _ in mine).most_common(1)[0][0]
        origins.append(
            HarOrigin(
                origin=name,
                protocol=protocol,
                objects=len(mine),
                wire_bytes=sum(o.wire_bytes for o, _ in mine),
                rtt_ms=round(statistics.median(connects), 3) if connects else None,
                dns_ms=round(max(dns), 3) if dns else None,
                coalesced=name != built[0].origin and any(e.connection in home_connections for _, e in mine),
            )
        )
    rates = [
        o.wire_bytes * 8 / (e.timings.receive / 1000)
        for o, (_, e) in zip(built, kept, strict=True)
        if o.wire_bytes >= BANDWIDTH_MIN_BYTES and e.timings.receive >= 1
    ]
    headers = [e.response.headersSize for _, e in kept if e.response.headersSize > 0]
    return HarPage(
        document=built[0],
        objects=tuple(built[1:]),
        origins=tuple(origins),
        on_load_ms=on_load,
        on_content_load_ms=on_content,
        bandwidth_bps=round(max(rates)) if rates else None,
        response_header_bytes=round(statistics.median(headers)) if headers else None,
        creator=f"{log.creator.name} {log.creator.version}".strip(),
        notes=tuple(notes),
    )


def load_har(data: bytes | str) -> HarPage:
    """:func:`read_har` then :func:`har_page`: a HAR's text in, its page out; :class:`HarError` if refused."""
    return har_page(read_har(data))


# --- what-ifs ------------------------------------------------------------------------------------------


class WhatIf(BaseModel):
    """What to change on the HAR's page before predicting it; every field left out keeps what the HAR shows."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)

    protocols: list[Protocol] | None = Field(
        None,
        min_length=1,
        max_length=8,
        strict=False,
        json_schema_extra={"uniqueItems": True},  # to_scenario refuses a repeat
        description="The protocols to predict (each once); default: persistent_parallel (HTTP/1.1 as browsers), "
        "h2 and h3, and the one the HAR's document came over among them.",
    )
    rtt_ms: float | None = Field(
        None,
        ge=0,
        le=MAX_DELAY_MS,
        description="Round trip (ms); default: the HAR's estimate for the document's origin.",
    )
    bandwidth_bps: float | None = Field(
        None,
        ge=MIN_RATE_BPS,
        le=MAX_RATE_BPS,
        description="Bottleneck rate (bit/s); default: the HAR's estimate, else 1,544,000.",
    )
    loss_rate: float | None = Field(
        None, ge=0, le=MAX_LOSS_RATE, description="Probability a packet is lost (0 to 0.2); default 0."
    )
    remove_origins: list[str] = Field(
        default_factory=list,
        max_length=100,
        strict=False,
        description="Origins (scheme://host:port, as the page summary lists them) whose objects are dropped, with "
        "the objects they initiated: a third party removed.",
    )
    preconnect: bool = Field(
        False,
        description="Preconnect hints: the browser's connections open at the click, beside the HTML's "
        "(persistent_parallel), and so do every other origin's DNS lookup, connection and TLS handshake.",
    )
    early_hints: bool = Field(
        False,
        description="103 Early Hints (RFC 8297) on h2 and h3: the document's server answers first with a 103 naming "
        "the style sheets and scripts the HTML names (rel=preload: page.object_early_hint) and every other origin "
        "(rel=preconnect: early_hint_preconnect). A HAR records no 103 of its own.",
    )
    origin_rtts: list[str] = Field(
        default_factory=list,
        max_length=100,
        strict=False,
        description="Origins put on a path of their own at the round trip given, each ORIGIN=MS (the origin as the "
        "page summary lists it, scheme://host:port; 0 to 10,000 ms): a CDN nearby, a third party far away "
        "(page.origins[].rtt_ms). Their rate stays the network's; a coalesced origin no longer coalesces (another "
        "address). Not with loss_rate above 0.",
    )
    origin_paths: bool = Field(
        False,
        description="Every other origin on a path of its own at the round trip the HAR shows for it (its median TCP "
        "connect time, the page summary's rtt_ms), where it shows one and the origin is not coalesced onto the "
        "document's connection; origin_rtts take precedence. Not with loss_rate above 0.",
    )


def _origin_rtts(w: WhatIf, names: list[str], document: str) -> dict[str, float]:
    """The what-if's ``origin_rtts`` (ORIGIN=MS each) by origin, each checked: an origin of the page beside the
    document's, a round trip within the network's range, and no loss (the loss analysis costs the network's path
    only). :class:`HarError` naming the item otherwise."""
    out: dict[str, float] = {}
    others = ", ".join(name for name in names if name != document) or "none: the page has one origin"
    for i, item in enumerate(w.origin_rtts):
        name, sep, ms = item.rpartition("=")
        try:
            rtt = float(ms) if sep else -1.0
        except ValueError:
            rtt = -1.0
        if not (0 <= rtt <= MAX_DELAY_MS):
            raise _refuse(
                f"origin_rtts[{i}]",
                f"not ORIGIN=MS with MS a round trip: {item[:200]!r}",
                f"ORIGIN=MS, the origin one of {others}, MS 0 to {MAX_DELAY_MS:,}",
                value=item[:200],
            )
        if name not in names or name == document:
            why = "is the document's own origin (its RTT is rtt_ms)" if name == document else "is not an origin of it"
            raise _refuse(
                f"origin_rtts[{i}]",
                f"the page's {name[:100]!r} {why}{did_you_mean(name, names) if name not in names else ''}",
                others,
                value=item[:200],
            )
        out[name] = rtt
    if (out or w.origin_paths) and w.loss_rate:
        option = "origin_rtts" if out else "origin_paths"
        raise _refuse(
            option,
            f"{option} cannot be used with loss_rate above 0 ({w.loss_rate:g}): the loss analysis costs the "
            "network's path only",
            "loss_rate 0, or no origin on a path of its own",
            value=w.origin_rtts if out else True,
        )
    return out


def _shown_rtt(origin: HarOrigin, wanted: bool) -> float | None:
    """``origin_paths``: the origin's round trip as the HAR shows it (clamped to the largest), unless it was not
    wanted, the HAR shows none, or the origin is coalesced onto the document's connection (its address)."""
    if not wanted or origin.rtt_ms is None or origin.coalesced:
        return None
    return min(origin.rtt_ms, float(MAX_DELAY_MS))


@dataclass(frozen=True, slots=True)
class HarScenario:
    """A scenario document made from a HAR's page, and what was done to make it."""

    document: dict[str, Any]
    har_protocol: Protocol  # the model's protocol for the one the HAR's document came over
    merged_origins: list[str]  # origins past MAX_ORIGINS, whose objects the document's origin serves in the scenario
    removed_objects: int  # objects dropped with the origins removed (and the objects they initiated)
    parents: list[int]  # the kept objects' initiator tree (page.object_parents)
    notes: list[str] = field(default_factory=list)


def page_section(
    html_bytes: int,
    object_bytes: list[int],
    parents: list[int],
    origins: list[dict[str, Any]] | None = None,
    object_origins: list[int] | None = None,
) -> dict[str, Any]:
    """The scenario's ``page`` section: the sizes, the initiator tree as ``page.object_parents`` (each object is
    requested once its initiator has arrived) and, where the page has other origins than the document's, those
    (``page.origins``) and each object's (``page.object_origins``)."""
    section: dict[str, Any] = {"html_bytes": html_bytes, "object_bytes": object_bytes, "object_parents": parents}
    if origins:
        section["origins"] = origins
        section["object_origins"] = object_origins
    return section


def render_blocking(mime_type: str) -> bool:
    """Whether a response of ``mime_type`` is a style sheet or a script: what a server names in a 103 Early Hints."""
    mime = mime_type.split(";")[0].strip().lower()
    return mime == "text/css" or "javascript" in mime or "ecmascript" in mime


def _kept(page: HarPage, removed: set[str]) -> tuple[list[HarObject], list[int]]:
    """The objects not from a removed origin nor initiated by a dropped one, and their parents renumbered."""
    new_index = {0: 0}  # old index (0 the HTML, k the k-th object) -> new
    kept: list[HarObject] = []
    parents: list[int] = []
    for k, o in enumerate(page.objects, start=1):
        if o.origin in removed or o.parent not in new_index:
            continue
        kept.append(o)
        parents.append(new_index[o.parent])
        new_index[k] = len(kept)
    return kept, parents


def to_scenario(page: HarPage, what_if: WhatIf | None = None) -> HarScenario:
    """The scenario document of ``page`` with ``what_if`` applied (the other origins as ``page.origins``).

    From the HAR: the HTML's and objects' bytes on the wire; TLS 1.3 for an https document (a HAR does not say the
    version); network.rtt_ms from the document origin's connect times (else the HAR's other origins', else the
    default); network.bandwidth_bps from the fastest large response (else the default); dns from the document
    origin's lookup; http.response_header_bytes from the median headersSize; Linux's TCP (tcp.profile linux) and a
    browser's 6 connections (http.parallel_connections). :class:`HarError` if ``what_if`` removes an origin the page
    does not have, or the document's own.
    """
    w = what_if or WhatIf()
    notes: list[str] = []
    names = [o.origin for o in page.origins]
    for i, name in enumerate(w.remove_origins):
        if name not in names:
            raise _refuse(
                f"remove_origins[{i}]",
                f"the page has no origin {name[:100]!r}{did_you_mean(name, names)}",
                ", ".join(names[1:]) or "none: the page has one origin",
                value=name[:200],
            )
        if name == page.document.origin:
            raise _refuse(
                f"remove_origins[{i}]",
                f"{name} is the document's own origin; it cannot be removed",
                ", ".join(names[1:]) or "none: the page has one origin",
                value=name,
            )
    given_rtt = _origin_rtts(w, names, page.document.origin)
    removed = set(w.remove_origins)
    kept, parents = _kept(page, removed)
    dropped = len(page.objects) - len(kept)
    if removed:
        notes.append(
            f"removed {', '.join(sorted(removed))}: {dropped} objects dropped (theirs and what they initiated)"
        )
    other_origins = [name for name in dict.fromkeys(o.origin for o in kept) if name != page.document.origin]
    own, merged = other_origins[:MAX_ORIGINS], other_origins[MAX_ORIGINS:]
    if merged:
        notes.append(
            f"at most {MAX_ORIGINS} origins beside the document's: the objects of {', '.join(merged)} are served by "
            f"{page.document.origin}"
        )
    har_origin = {o.origin: o for o in page.origins}
    paths = {name: given_rtt.get(name, _shown_rtt(har_origin[name], w.origin_paths)) for name in own}
    if own:
        shared = "one RTT and rate for all" if not any(v is not None for v in paths.values()) else "unless given below"
        notes.append(
            "page.origins: each origin's own DNS lookup (as the HAR shows it), connections and TLS handshakes, over "
            f"the document's path ({shared})"
        )
    for name, rtt in paths.items():
        if rtt is not None:
            how = "as given" if name in given_rtt else "its connect time in the HAR"
            moved = " (no longer coalesced: another address)" if har_origin[name].coalesced else ""
            notes.append(f"page.origins: {name} on a path of its own, RTT {rtt:g} ms ({how}){moved}")
    index = {name: k for k, name in enumerate(own, start=1)}
    origins = [
        {
            "dns_ms": min(har_origin[name].dns_ms or 0.0, float(MAX_DNS_MS)),
            "preconnected": w.preconnect,
            "coalesce_with_html": har_origin[name].coalesced and paths[name] is None,
            # a HAR records no 103 Early Hints (HAR 1.2: the final response only): only the what-if gives one
            "early_hint_preconnect": w.early_hints,
            "rtt_ms": paths[name],
            "bandwidth_bps": None,
        }
        for name in own
    ]
    object_origins = [index.get(o.origin, 0) for o in kept]
    har_protocol = MODEL_PROTOCOL[page.document.protocol]
    protocols = list(w.protocols) if w.protocols is not None else list(DEFAULT_PROTOCOLS)
    if len(set(protocols)) != len(protocols):
        raise _refuse("protocols", "protocols must not repeat", "each protocol once", value=protocols)
    home = page.origins[0]
    network: dict[str, Any] = {}
    rtt = w.rtt_ms
    if rtt is None:
        rtt = home.rtt_ms
        if rtt is None:
            others = [o.rtt_ms for o in page.origins if o.rtt_ms is not None]
            rtt = statistics.median(others) if others else None
            if rtt is not None:
                notes.append("network.rtt_ms: the median of the other origins' connect times (none for the document's)")
        if rtt is None:
            notes.append("network.rtt_ms: the default (the HAR shows no new connection's connect time)")
    if rtt is not None:
        network["rtt_ms"] = min(rtt, float(MAX_DELAY_MS))
    rate = w.bandwidth_bps if w.bandwidth_bps is not None else page.bandwidth_bps
    if rate is not None:
        network["bandwidth_bps"] = float(min(max(rate, MIN_RATE_BPS), MAX_RATE_BPS))
    else:
        notes.append("network.bandwidth_bps: the default (no response large enough to estimate the rate)")
    if w.loss_rate is not None:
        network["loss_rate"] = w.loss_rate
    http: dict[str, Any] = {"parallel_connections": BROWSER_CONNECTIONS, "preconnect": w.preconnect}
    if page.response_header_bytes is not None:
        http["response_header_bytes"] = min(page.response_header_bytes, 65_536)
    document: dict[str, Any] = {
        "protocols": protocols,
        "network": network,
        "tcp": {"profile": "linux"},
        "http": http,
        "tls": {"version": "1.3" if page.secure else "none"},
        "page": page_section(page.document.wire_bytes, [o.wire_bytes for o in kept], parents, origins, object_origins),
    }
    if home.dns_ms is not None:
        document["dns"] = {"lookup": "resolver", "resolver_rtt_ms": min(home.dns_ms, float(MAX_DELAY_MS))}
    if w.early_hints and kept:
        hints = [parent == 0 and render_blocking(o.mime_type) for o, parent in zip(kept, parents, strict=True)]
        document["page"]["object_early_hint"] = hints
        notes.append(
            f"early hints: a 103 names the HTML's {sum(hints)} style sheets and scripts and preconnects "
            f"{len(origins)} other origins (h2 and h3 only)"
        )
    return HarScenario(
        document=document,
        har_protocol=har_protocol,
        merged_origins=merged,
        removed_objects=dropped,
        parents=parents,
        notes=notes,
    )
