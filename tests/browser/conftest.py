"""Real-browser fixtures: the real app in a real HTTP server, driven by Debian's headless Chromium.

- ``live_server``: :func:`latency_lab_web.create_app` served by werkzeug on 127.0.0.1 and a free port, in a background
  thread, for the whole session; its base URL.
- ``browser``: one headless Chromium per session, launched from ``/usr/bin/chromium`` (``CHROMIUM`` in the
  environment overrides it) through Playwright for Python. Playwright's own browser download is not used.
  The browser resolves no host but 127.0.0.1 and localhost, so the app must work offline.
- ``page`` (JavaScript on) and ``nojs_page`` (JavaScript off): a fresh context and page per test, with a
  :class:`BrowserLog` recording console errors, uncaught exceptions, Content-Security-Policy violations,
  failed requests, requests to any other host and server errors. At the end of the test the log must be
  clean, or the test errors at teardown with the list. A test that expects an error response (an invalid
  field answered with 400, logged by Chromium as "Failed to load resource") says so with
  :meth:`BrowserLog.allow`.

Chromium or Playwright missing is a failure with a message saying how to install them, never a skip:
``bash scripts/test.sh`` installs both.
"""

from __future__ import annotations

import os
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Page, Playwright, Request, Response

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost"})
#: How long a step or an expectation may wait for the page (ms). Generous: CI has 2 cores shared with the server.
TIMEOUT_MS = 20_000
EXPECT_TIMEOUT_MS = 10_000

#: Injected before any page script: reports every CSP violation to the test, whatever the console says.
_CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", function (e) {
  window.__latencyLabCsp(e.violatedDirective + " blocked " + (e.blockedURI || "inline") +
                         " at " + e.sourceFile + ":" + e.lineNumber);
});
"""


def _fail_install(what: str) -> None:
    pytest.fail(
        f"{what}: the browser tests need Debian's chromium at {CHROMIUM} and Playwright for Python "
        "(run `bash scripts/test.sh`, which installs both, or `apt-get install -y chromium` and "
        "`.venv/bin/pip install -r requirements-dev.txt`)",
        pytrace=False,
    )


@pytest.fixture(scope="session")
def live_server() -> Iterator[str]:
    """The app served over real HTTP on a free local port; yields ``http://127.0.0.1:PORT``."""
    from werkzeug.serving import make_server

    from latency_lab_web import create_app

    server = make_server("127.0.0.1", 0, create_app(), threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        _fail_install("Playwright for Python is not installed")
    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    """One headless Chromium for the session; it can reach no host but the local one."""
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        _fail_install(f"no Chromium executable at {CHROMIUM}")
    browser = playwright.chromium.launch(
        executable_path=CHROMIUM,
        headless=True,
        args=[
            # Offline: every other host fails to resolve (and shows up as a failed request).
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
            "--disable-dev-shm-usage",  # containers often have a small /dev/shm
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    )
    try:
        yield browser
    finally:
        browser.close()


@dataclass
class BrowserLog:
    """What went wrong in a page while a test drove it; :meth:`problems` lists what was not allowed."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    csp_violations: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)
    server_errors: list[str] = field(default_factory=list)
    responses: list[Response] = field(default_factory=list)
    allowed: list[re.Pattern[str]] = field(default_factory=list)

    def allow(self, pattern: str) -> None:
        """Accept console errors matching ``pattern`` (a regular expression) in this test."""
        self.allowed.append(re.compile(pattern))

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            location = message.location
            self.console_errors.append(f"{message.text} ({location.get('url', '')}:{location.get('lineNumber', '')})")

    def on_csp_violation(self, description: str) -> None:
        self.csp_violations.append(description)

    def on_request(self, request: Request) -> None:
        host = urlsplit(request.url).hostname
        if request.url.startswith(("http:", "https:", "ws:", "wss:")) and host not in LOCAL_HOSTS:
            self.foreign_requests.append(request.url)

    def on_request_failed(self, request: Request) -> None:
        reason = request.failure or ""
        # A navigation or a newer htmx request may cancel a request still running: not an error.
        if "ERR_ABORTED" in reason and urlsplit(request.url).hostname in LOCAL_HOSTS:
            return
        self.failed_requests.append(f"{request.method} {request.url}: {reason}")

    def on_response(self, response: Response) -> None:
        self.responses.append(response)
        if response.status >= 500:
            self.server_errors.append(f"{response.status} {response.request.method} {response.url}")

    def problems(self, allow: tuple[str, ...] = ()) -> list[str]:
        """Each distinct problem once, with how often it happened (``(x12)``); console errors matching
        :meth:`allow`'s patterns or ``allow`` (regular expressions) are accepted."""
        allowed = [*self.allowed, *(re.compile(a) for a in allow)]
        console = [m for m in self.console_errors if not any(p.search(m) for p in allowed)]
        found = Counter(
            [f"console error: {m}" for m in console]
            + [f"uncaught exception: {m}" for m in self.page_errors]
            + [f"CSP violation: {m}" for m in self.csp_violations]
            + [f"failed request: {m}" for m in self.failed_requests]
            + [f"request to a non-local host: {m}" for m in self.foreign_requests]
            + [f"server error: {m}" for m in self.server_errors]
        )
        return [text if n == 1 else f"{text} (x{n})" for text, n in found.items()]


def open_page(browser: Browser, base_url: str, log: BrowserLog, *, javascript: bool = True) -> Iterator[Page]:
    """A page in a fresh context (as the ``page`` fixture's) whose events go to ``log``; the context is closed
    when the generator ends. The log is not judged here: the caller judges it (:func:`_open_page` does)."""
    context = browser.new_context(
        base_url=base_url,
        java_script_enabled=javascript,
        viewport={"width": 1280, "height": 900},
        locale="en-GB",
    )
    context.set_default_timeout(TIMEOUT_MS)
    context.on("console", log.on_console)
    context.on("weberror", lambda error: log.page_errors.append(str(error.error)))
    context.on("request", log.on_request)
    context.on("requestfailed", log.on_request_failed)
    context.on("response", log.on_response)
    context.expose_function("__latencyLabCsp", log.on_csp_violation)
    context.add_init_script(_CSP_LISTENER)
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()


def _open_page(browser: Browser, base_url: str, log: BrowserLog, *, javascript: bool) -> Iterator[Page]:
    yield from open_page(browser, base_url, log, javascript=javascript)
    problems = log.problems()
    if problems:
        pytest.fail("the browser reported:\n  " + "\n  ".join(problems), pytrace=False)


@pytest.fixture
def browser_log() -> BrowserLog:
    """The log of this test's page(s); see :class:`BrowserLog`."""
    return BrowserLog()


@pytest.fixture
def page(browser: Browser, live_server: str, browser_log: BrowserLog) -> Iterator[Page]:
    """A page with JavaScript, in a fresh context whose base URL is the live server."""
    yield from _open_page(browser, live_server, browser_log, javascript=True)


@pytest.fixture
def nojs_page(browser: Browser, live_server: str, browser_log: BrowserLog) -> Iterator[Page]:
    """A page with JavaScript disabled, in a fresh context whose base URL is the live server."""
    yield from _open_page(browser, live_server, browser_log, javascript=False)


@dataclass
class Measured:
    """What :func:`page_states` read from a page, and the page's log (judged by each test reading it)."""

    value: Any
    log: BrowserLog

    def assert_clean(self, allow: tuple[str, ...] = ()) -> None:
        """Fail (as the ``page`` fixture's teardown would) if the page's log holds a problem not in ``allow``."""
        problems = self.log.problems(allow)
        if problems:
            pytest.fail("the browser reported:\n  " + "\n  ".join(problems), pytrace=False)


@pytest.fixture(scope="session")
def page_states(browser: Browser, live_server: str) -> Callable[..., Measured]:
    """Read-only checks of one page at one window, shared by every test of the session that reads it (issue 26:
    test_accessibility's axe runs and test_fits_the_window's measures loaded the same 33 page states apart, and
    the gallery's pages three times at each window). ``page_states(path, window, axe=False)``: the first call for
    ``(path, window)`` opens a page (JavaScript on, a fresh context, as ``page``) and takes every measure of
    :func:`tests.browser.windows.read_state` (axe-core's two runs only when ``axe`` is asked: they are most of a
    state's cost), then closes it; a later call gets the same :class:`Measured` (its ``value`` that dict, and the
    page's :class:`BrowserLog`, which each test judges with :meth:`Measured.assert_clean`), unless it asks for axe
    and the state was read without it: then the state is read again, with axe. A read that raises is not kept (the
    next test asking tries again). scripts/test.sh's xdist scheduler (tests/conftest.py) runs the modules that share
    states on one worker."""
    from tests.browser.windows import read_state

    done: dict[tuple[str, tuple[int, int]], Measured] = {}

    def get(path: str, window: tuple[int, int], *, axe: bool = False) -> Measured:
        key = (path, window)
        if key not in done or (axe and done[key].value["axe"] is None):
            log = BrowserLog()
            pages = open_page(browser, live_server, log)
            try:
                value = read_state(next(pages), path, window, axe=axe)
            finally:
                pages.close()  # closes the context
            done[key] = Measured(value, log)
        return done[key]

    return get


def pytest_collection_modifyitems(config: Any, items: list[pytest.Item]) -> None:
    """Every test in this folder is marked ``browser`` (``-m "not browser"`` leaves them out)."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.browser)
