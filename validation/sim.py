"""Run a model scenario through ns-3: the scenario document in, the model's output fields out.

``Simulator`` owns one worker process (:mod:`validation.worker`) that imports ns-3 once (about
15 s) and then runs scenario after scenario (a few ms to a few s each). ``simulate`` is the
one-shot form. The scenario is validated with :class:`latency_lab.Scenario` and resolved with
:func:`latency_lab.scenario.params.resolve`, so ns-3 gets exactly the numbers the model computes with.

What ns-3 is given (see ``harness.cc`` for the topology and the applications):

- two nodes joined by one point-to-point link per direction (rate and one-way delay each), device
  queues of 10^6 packets and no queue disc, so nothing is dropped (checked: zero drops, zero
  retransmissions, else :class:`SimulationError`);
- TcpNewReno, no timestamps, no SACK, window scaling only when ``receive_window_bytes`` > 65535
  (it adds 4 bytes to SYN and SYN-ACK only); SegmentSize = ``mss_bytes``, InitialCwnd,
  RcvBufSize = ``receive_window_bytes``, SndBufSize large enough for the whole page,
  DelAckCount = ``delayed_ack_segments`` and DelAckTimeout = ``delayed_ack_ms`` (a timer of 0:
  DelAckCount 1), TcpNoDelay = not ``nagle``; retransmission timers so long they never fire;
- per-packet overhead: ns-3 puts 20 (IP) + 20 (TCP) + 2 (PPP) = 42 bytes on the wire beyond the
  payload, fixed. ``PACKET_OVERHEAD_BYTES`` is that number; :mod:`validation.compare` runs the
  model with ``packet_overhead_bytes`` = 42 so both serialize the same bytes.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from latency_lab.mechanisms import connection_setup, tls
from latency_lab.scenario.params import Params, resolve
from latency_lab.scenario.schema import SEED_PROTOCOLS, Scenario
from validation.analyze import analyze

#: The validation grid's protocols (validation.grid; its results are stored in docs/validation/grid.json): the
#: seeds' five and HTTP/2 (streams on one TCP connection, latency_lab/protocols/multiplex.py).
GRID_PROTOCOLS = (*SEED_PROTOCOLS, "h2")
#: The protocols the harness runs: the grid's and persistent_parallel (issue 28: it joins the grid when the grid's
#: results are next regenerated; tests/validation/test_ns3.py compares it). h3 is refused: ns-3 3.44 has no QUIC.
SIMULATED_PROTOCOLS = (*GRID_PROTOCOLS, "persistent_parallel")

#: Bytes ns-3's point-to-point link puts on the wire beyond the TCP payload (IP 20 + TCP 20 + PPP 2).
PACKET_OVERHEAD_BYTES = 42

ROOT = Path(__file__).resolve().parent


class SimulationError(RuntimeError):
    """ns-3 could not run the scenario as the model defines it (a crash, a drop, a retransmission)."""


def ns3_available() -> bool:
    """Whether the ``ns3`` package is installed (without importing it: that takes 15 s)."""
    return importlib.util.find_spec("ns3") is not None


def _handshake(p: Params) -> str:
    h = p.handshake
    if isinstance(h, bool):  # older Params: True for three_way
        return "three_way" if h else "none"
    return str(h)


def unsupported(p: Params, protocol: str | None = None) -> list[str]:
    """What of the resolved scenario the harness cannot build in ns-3 (empty: all of it), for ``protocol`` (None: what
    any of ``SIMULATED_PROTOCOLS`` cannot)."""
    out = []
    if getattr(p, "origin_dns_ms", ()):
        if _handshake(p) == "none":
            out.append(
                "page.origins with tcp.handshake 'none' (the harness opens its connections before the page, for one "
                "origin)"
            )
    if _handshake(p) not in ("three_way", "none", "fast_open"):
        out.append(f"tcp.handshake {_handshake(p)!r} (ns-3 has no T/TCP)")
    if getattr(p, "pages", 1) != 1:
        out.append("session.pages > 1 (the harness loads one page)")
    if getattr(p, "preconnect", False) and (p.dns_ms > 0 or _handshake(p) == "fast_open"):
        out.append(
            "http.preconnect with a DNS lookup or tcp.handshake 'fast_open' (the harness preconnects at the start)"
        )
    if getattr(p, "tls_tickets", 0) > 0 and getattr(p, "tls", "none") != "none":
        out.append("tls.session_tickets > 0 (the harness's server writes no NewSessionTicket messages)")
    if getattr(p, "mux_headers_alone", False) and protocol in (None, "h2"):
        out.append("multiplex.headers_alone on h2 (the harness writes each response's header with its first frame)")
    if getattr(p, "window_packets", False):
        out.append("tcp.window_counts_packets (ns-3's congestion window counts bytes)")
    settings = getattr(p, "mux_server_settings", 0) > 0 or getattr(p, "mux_settings_ack", 0) > 0
    if settings and protocol in (None, "h2"):
        out.append(
            "multiplex.server_settings_bytes or multiplex.settings_ack_bytes on h2 (the harness's server writes no "
            "SETTINGS records)"
        )
    if any(u != p.object_urgency[0] or not inc for u, inc in zip(p.object_urgency, p.object_incremental, strict=True)):
        if protocol in (None, "h2"):
            out.append(
                "page.object_urgency or page.object_incremental on h2 other than every object of one urgency and "
                "incremental (the harness's server writes a batch's responses a frame each in turn)"
            )
    hints = any(getattr(p, "object_early_hint", ())) or any(getattr(p, "origin_early_preconnect", ()))
    if hints and protocol in (None, "h2", "h3"):  # the model's HTTP/1.x schedules get no 103: those run as they are
        out.append(
            "page.object_early_hint or page.origins' early_hint_preconnect on h2 and h3 (the harness's server sends "
            "no 103 Early Hints response)"
        )
    streamed = ("h2", "h3", "pipelined", "persistent_parallel", "http10_parallel")
    if getattr(p, "object_named_at", ()) and protocol in (None, *streamed):  # the others ask one object at a time
        out.append(
            "page.object_named_at_bytes before a parent's end on h2, h3, pipelined, persistent_parallel and "
            "http10_parallel (the harness's client asks for an object once its parent has arrived whole)"
        )
    if getattr(p, "proxy", None) is not None:
        out.append("proxy.architecture 'split_proxy' (the harness builds one client-server path, no proxies)")
    if any(getattr(p, "origin_path", ())):
        out.append(
            "page.origins[].rtt_ms or bandwidth_bps, an origin's own path (the harness builds one client-server path: "
            "every origin's server on it)"
        )
    return out


def differences(p: Params) -> list[str]:
    """Where ns-3's TCP is not the TCP the scenario's profile describes (the comparison still runs)."""
    out = []
    if p.profile.name != "ns3":
        out.append(f"tcp.profile is {p.profile.name!r}: ns-3 runs its own TCP, not the {p.profile.name} rules")
    restart = getattr(p, "idle_restart", "keep")
    if restart != "keep":
        out.append(f"tcp.idle_restart {restart!r}: ns-3 keeps its window after idle")
    return out


#: The protocols whose connections the server closes after its response (latency_lab.protocols.base:
#: fetch_on_new_connection): where header_flush_persistent_only leaves the header with the data.
CLOSING_PROTOCOLS = ("http10", "http10_parallel")


def header_flush(p: Params, protocol: str) -> bool:
    """Whether the server flushes the header on its own for ``protocol`` (seed 000, 2.2)."""
    return bool(p.header_flush) and not (getattr(p, "flush_persistent_only", False) and protocol in CLOSING_PROTOCOLS)


def setup_text(p: Params, protocol: str, *, quickack: bool = True) -> str:
    """The harness's input for one protocol: ``key value`` pairs (see ``harness.cc``)."""
    bad = unsupported(p, protocol)
    if bad:
        raise SimulationError("the ns-3 harness cannot build: " + "; ".join(bad))
    sizes = [p.html, *p.objects]
    total = sum(sizes) + len(sizes) * (p.header + p.request)
    sndbuf = min(max(1 << 20, 2 * total + (1 << 16)), (1 << 31) - 1)
    # Timers (connect, retransmission) and the run's end, far beyond anything the page can take (s).
    rtt_s = (p.d_up + p.d_down) / 1000.0
    tx_s = 2 * total * max(p.k_up, p.k_down) / 1000.0
    stop_s = 10_000.0 + 20 * len(sizes) * (rtt_s + 1.0) + 4 * tx_s
    fields: list[tuple[str, Any]] = [
        ("protocol", protocol),
        ("d_up_ms", repr(p.d_up)),
        ("d_down_ms", repr(p.d_down)),
        ("b_up", repr(8000.0 / p.k_up)),
        ("b_down", repr(8000.0 / p.k_down)),
        ("mss", p.mss),
        ("iw", p.iw),
        ("rwnd", p.rwnd),
        ("dack_ms", repr(p.dack_ms)),
        ("dack_segments", p.dack_segments),
        ("nagle", int(p.nagle)),
        ("handshake", int(_handshake(p) in ("three_way", "fast_open"))),
        ("fast_open", int(_handshake(p) == "fast_open")),
        ("tfo_syn_max", fast_open_syn_max(p)),
        ("mux_request", p.mux_request),
        ("frame", p.frame),
        ("request", p.request),
        ("header", p.header),
        ("header_flush", int(header_flush(p, protocol))),
        ("write", p.write),
        ("server_think", repr(p.server_think)),
        ("client_think", repr(p.client_think)),
        ("conn_overhead", repr(p.conn_overhead)),
        ("parallel", p.parallel),
        ("sndbuf", sndbuf),
        ("stop_s", repr(stop_s)),
        ("quickack", int(quickack)),
        ("pipeline_one", int(getattr(p, "pipeline_one_write", False))),
        ("preconnect", int(getattr(p, "preconnect", False))),
    ]
    fields.extend(_secure_fields(p))
    parents = getattr(p, "object_parents", ())
    if any(parents):  # page.object_parents: each object requested once its parent has arrived (harness.cc Done)
        fields.append(("parents", f"{len(parents)} " + " ".join(str(k) for k in parents)))
    dns = getattr(p, "origin_dns_ms", ())
    if dns:  # page.origins: each one's lookup, preconnect hint and h2 coalescing; each object's origin
        coalesce = p.origin_coalesce or (False,) * len(dns)
        each = zip(dns, p.origin_preconnected, coalesce, strict=True)
        fields.append(("origins", f"{len(dns)} " + " ".join(f"{d!r} {int(pre)} {int(co)}" for d, pre, co in each)))
        if p.object_origins:
            fields.append(("object_origins", f"{len(p.object_origins)} " + " ".join(map(str, p.object_origins))))
    text = " ".join(f"{k} {v}" for k, v in fields)
    return text + f" sizes {len(sizes)} " + " ".join(str(s) for s in sizes)


def fast_open_syn_max(p: Params) -> int:
    """The most data a Fast Open SYN carries, as the model computes it (:mod:`latency_lab.mechanisms.connection_setup`)."""
    return connection_setup.fast_open_syn_data_bytes(p.mss, connection_setup.syn_option_bytes(p.rwnd, fast_open=True))


#: Which connection (numbered from 0 in opening order) is the first to resume a TLS session (latency_lab.mechanisms.tls.resumed).
RESUME_FROM = {"none": 1 << 30, "after_first": 1, "all": 0}


def _secure_fields(p: Params) -> list[tuple[str, Any]]:
    """DNS and TLS keys: the lookup time, and both handshakes' flights as :func:`latency_lab.mechanisms.tls.handshake` defines them."""
    out: list[tuple[str, Any]] = []
    dns_ms = getattr(p, "dns_ms", 0.0)
    if dns_ms > 0:
        out.append(("dns_ms", repr(dns_ms)))
    version = getattr(p, "tls", "none")
    if version == "none":
        return out
    for key, resumed in (("tls_full", False), ("tls_resumed", True)):
        hs = tls.handshake(
            version, resumed, p.tls_early_data, p.tls_client_hello, p.tls_server_flight, p.tls_false_start
        )
        out.append((key, f"{len(hs.flights)} {' '.join(str(f) for f in hs.flights)} {hs.ready}"))
    out.append(("tls_resume_from", RESUME_FROM[p.tls_resumption]))
    return out


def as_scenario(doc: Scenario | dict[str, Any]) -> Scenario:
    """A validated scenario the harness can run: the seed protocols and HTTP/2 (``SIMULATED_PROTOCOLS``) over TCP,
    with DNS, TLS 1.2/1.3 and TCP Fast Open (``harness.cc``'s ``TfoSocket``).

    Refused: h3 (ns-3 3.44 has no QUIC), and the rfc5681 and linux profiles (ns-3 runs its own TCP; only the
    model's ns3 and bsd profiles are compared with it).
    """
    s = doc if isinstance(doc, Scenario) else Scenario.model_validate(doc)
    missing = [
        what
        for what, present in (
            (
                f"protocols {[p for p in s.protocols if p not in SIMULATED_PROTOCOLS]}",
                set(s.protocols) - set(SIMULATED_PROTOCOLS),
            ),
            (f"the {s.tcp.profile} profile", s.tcp.profile in ("rfc5681", "linux")),
        )
        if present
    ]
    if missing:
        raise ValueError(f"the ns-3 harness does not simulate {', '.join(missing)} (issue 7's variants)")
    return s


class Simulator:
    """One ns-3 worker process; use as a context manager, call :meth:`run` as often as needed."""

    def __init__(self, *, python: str | None = None, timeout_s: float = 600.0) -> None:
        self.python = python or sys.executable
        self.timeout_s = timeout_s
        self.proc: subprocess.Popen[str] | None = None
        self.tmp: tempfile.TemporaryDirectory[str] | None = None
        self.startup_s: float | None = None
        self._n = 0

    # ---------------------------------------------------------------- process
    def start(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            return
        if not ns3_available():
            raise SimulationError("the ns3 package is not installed (pip install -r requirements-validation.txt)")
        # ns-3's loader globs the working directory recursively for libraries: give it an empty one.
        self.tmp = tempfile.TemporaryDirectory(prefix="llab-ns3-")
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT.parent) + os.pathsep + env.get("PYTHONPATH", "")
        self.proc = subprocess.Popen(
            [self.python, str(ROOT / "worker.py")],
            cwd=self.tmp.name,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr(),
            text=True,
            env=env,
        )
        hello = self._read()
        if not hello.get("ready"):
            raise SimulationError(f"ns-3 worker did not start: {hello}")
        self.startup_s = hello.get("startup_s")

    @staticmethod
    def _stderr() -> Any:
        """Where the worker's stderr goes: LLAB_NS3_STDERR=1 to this process's, =PATH to a file."""
        where = os.environ.get("LLAB_NS3_STDERR")
        if not where:
            return subprocess.DEVNULL
        if where == "1":
            return None
        return open(where, "a")

    def close(self) -> None:
        if self.proc is not None:
            if self.proc.stdin:
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None
        if self.tmp is not None:
            self.tmp.cleanup()
            self.tmp = None

    def __enter__(self) -> Simulator:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _read(self) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdout is not None
        result: list[str] = []

        def reader() -> None:
            assert self.proc is not None and self.proc.stdout is not None
            result.append(self.proc.stdout.readline())

        th = threading.Thread(target=reader, daemon=True)
        th.start()
        th.join(self.timeout_s)
        if th.is_alive():
            self.proc.kill()
            self.proc = None
            raise SimulationError(f"ns-3 worker gave no answer in {self.timeout_s:.0f} s")
        line = result[0] if result else ""
        if not line:
            code = self.proc.wait()
            self.proc = None
            raise SimulationError(f"ns-3 worker died (exit status {code}); rerun with LLAB_NS3_STDERR=1 to see why")
        reply: dict[str, Any] = json.loads(line)
        return reply

    # ------------------------------------------------------------------- runs
    def run_trace(self, setup: str) -> str:
        """Run one harness setup; the raw trace text."""
        self.start()
        assert self.proc is not None and self.proc.stdin is not None
        self._n += 1
        self.proc.stdin.write(json.dumps({"id": self._n, "setup": setup}) + "\n")
        self.proc.stdin.flush()
        reply = self._read()
        if "error" in reply:
            raise SimulationError(reply["error"])
        trace: str = reply["trace"]
        return trace

    def run(self, scenario: Scenario | dict[str, Any], protocol: str, *, quickack: bool = True) -> dict[str, Any]:
        """One protocol of a scenario through ns-3: the model's output fields as ns-3 measured them."""
        s = as_scenario(scenario)
        p = resolve(s)
        trace = self.run_trace(setup_text(p, protocol, quickack=quickack))
        try:
            out = analyze(trace, p)
        except ValueError as exc:  # a drop, a retransmission, an object that never completed
            raise SimulationError(f"{protocol}: {exc}") from exc
        out["protocol"] = protocol
        return out

    def predict(self, scenario: Scenario | dict[str, Any], *, quickack: bool = True) -> dict[str, Any]:
        """Like :func:`latency_lab.analysis.predict`: every protocol the scenario asks for, ``{"scenario", "results"}``."""
        s = as_scenario(scenario)
        results = [self.run(s, proto, quickack=quickack) for proto in s.protocols]
        return {"scenario": s.model_dump(mode="json"), "results": results}


def simulate(scenario: Scenario | dict[str, Any], protocols: list[str] | None = None) -> dict[str, Any]:
    """One-shot: start a worker, run the scenario's protocols (or ``protocols``), stop it."""
    s = as_scenario(scenario)
    if protocols is not None:
        bad = [p for p in protocols if p not in SIMULATED_PROTOCOLS]
        if bad:
            raise ValueError(f"ns-3 runs {', '.join(SIMULATED_PROTOCOLS)}, not {bad}")
        s = s.model_copy(update={"protocols": protocols})
    with Simulator() as sim:
        return sim.predict(s)
