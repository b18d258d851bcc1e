"""The real stack's plumbing (issue 18): two network namespaces, the relay between their TUN devices,
nginx in the server namespace and tcpdump in the client namespace.

Everything here needs root (network namespaces, TUN devices, sysctls in the namespaces, binding port 80).
:func:`check` says which capability is missing, by name; :class:`Stack` builds the namespaces once and
:meth:`Stack.link` starts a relay for one path.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CLIENT_IP = "10.77.0.1"
SERVER_IP = "10.77.0.2"
TUN = "rs0"
CC = "cubic"
#: The endpoints run SCHED_FIFO at this priority (the relay at 30): the machine is shared, and a web server or
#: client that waits for a CPU behind another's build adds that wait to the page load time. They sleep on
#: the network nearly all the time, so they take little from the rest.
RT_PRIORITY = "20"
#: nginx's ports: HTTP/1.x and h2c (prior knowledge); HTTP/1.x over TLS (the version :meth:`Stack.serve` allows);
#: HTTP/1.x with TCP Fast Open on the listening socket (``listen ... fastopen=``, a port of its own so that the
#: other ports' listeners stay as they were)
PORT_H1 = 80
PORT_H2 = 8080
PORT_TLS = 443
PORT_TFO = 81
#: The browser's ports (issue 28, :mod:`validation.realstack.browser`): HTTP/1.1 over TLS and h2 over TLS (ALPN), in a
#: server block of their own that names the types a browser needs (text/html, text/css, image/png) so that the
#: other ports' responses keep their headers byte for byte
PORT_BROWSER_H1 = 4443
PORT_BROWSER_H2 = 8443
#: Set in both namespaces (each is per network namespace since Linux 4.15): no TCP timestamps (so a full segment carries the MSS of 1460 bytes and every
#: packet 40 bytes of headers, the model's packet_overhead_bytes), no cached metrics between connections
#: (an ssthresh saved by one connection would start the next in congestion avoidance), no ECN, buffers
#: large enough that neither the send buffer nor the receive buffer's autotuning limits a window.
SYSCTLS = {
    "net.ipv4.tcp_timestamps": "0",
    "net.ipv4.tcp_no_metrics_save": "1",
    "net.ipv4.tcp_ecn": "0",
    "net.ipv4.tcp_slow_start_after_idle": "1",
    "net.ipv4.tcp_rmem": "4096 8388608 33554432",
    "net.ipv4.tcp_wmem": "4096 8388608 33554432",
}
#: Set in the server namespace only: TCP Fast Open for listeners that ask for it (bit 2, server; bit 1, client,
#: the default), so that nginx's ``fastopen=`` listener accepts data on a SYN with a valid cookie
#: (net/ipv4/tcp_fastopen.c, tcp_try_fastopen). Listeners without TCP_FASTOPEN are unchanged.
SERVER_SYSCTLS = {"net.ipv4.tcp_fastopen": "3"}


#: The machine-wide lock every :class:`Stack` holds while it exists (flock): two benches at once would each time
#: the other's relay and nginx as their own path's delay. A second bench waits for the first, up to
#: :data:`LOCK_WAIT_S`, saying once on stderr whom it waits for.
LOCK_PATH = (
    Path("/run/lock/latency-lab-realstack.lock")
    if Path("/run/lock").is_dir()
    else Path("/tmp/latency-lab-realstack.lock")
)
LOCK_WAIT_S = 1800.0


class CaptureError(RuntimeError):
    """The capture missed packets (tcpdump's counts say so, or an object's last byte is not in it)."""


class Unavailable(RuntimeError):
    """The machine cannot run the real stack; the message names the missing capability."""


def _run(*args: str, ns: str | None = None, check: bool = True, **kw: Any) -> subprocess.CompletedProcess[str]:
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    return subprocess.run(cmd, check=check, text=True, capture_output=True, **kw)


def check() -> None:
    """Raise :class:`Unavailable` naming the first missing capability."""
    if os.geteuid() != 0:
        raise Unavailable("the real-stack bench needs root (network namespaces, TUN devices, sysctls); run it as root")
    tools = (
        ("ip", "iproute2"),
        ("gcc", "gcc"),
        ("nginx", "nginx-light"),
        ("tcpdump", "tcpdump"),
        ("openssl", "openssl"),
    )
    for tool, package in tools:
        if shutil.which(tool) is None:
            raise Unavailable(f"{tool} is missing: apt-get install {package} (scripts/test.sh installs it as root)")
    if not os.path.exists("/dev/net/tun"):
        raise Unavailable("/dev/net/tun is missing: this kernel or container has no TUN devices")
    try:
        fd = os.open("/dev/net/tun", os.O_RDWR)
        os.close(fd)
    except OSError as e:
        raise Unavailable(f"/dev/net/tun cannot be opened ({e.strerror}): TUN devices are not allowed here") from e
    name = f"llrs-probe-{os.getpid()}"
    r = _run("ip", "netns", "add", name, check=False)
    if r.returncode != 0:
        raise Unavailable(f"network namespaces are not available (ip netns add: {r.stderr.strip()})")
    _run("ip", "netns", "del", name, check=False)
    avail = Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text().split()
    if "cubic" not in avail:
        raise Unavailable(f"the kernel has no CUBIC congestion control (available: {' '.join(avail)})")


def lock(wait_s: float = LOCK_WAIT_S, path: Path | None = None) -> int:
    """Take the machine-wide real-stack lock (:data:`LOCK_PATH`); returns its file descriptor (closing it releases
    the lock, as does the process's end). Raises :class:`Unavailable` naming the holder after ``wait_s``."""
    path = LOCK_PATH if path is None else path
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    deadline, said = time.monotonic() + wait_s, False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode(errors="replace").strip() or "another process"
            if time.monotonic() >= deadline:
                os.close(fd)
                raise Unavailable(
                    f"another real-stack bench holds {path} ({holder}) for more than {wait_s:.0f} s"
                ) from None
            if not said:
                print(f"realstack: waiting for {path}, held by {holder}", file=sys.stderr, flush=True)
                said = True
            time.sleep(0.5)
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"pid {os.getpid()}: {' '.join(sys.argv)[:150]}\n".encode(), 0)
    return fd


def build(workdir: Path) -> tuple[Path, Path]:
    """Compile the relay and the nginx TCP_NODELAY shim with gcc into ``workdir``."""
    relay, shim = workdir / "relay", workdir / "nodelay.so"
    for cmd in (
        ["gcc", "-O2", "-Wall", "-o", str(relay), str(HERE / "relay.c")],
        ["gcc", "-O2", "-Wall", "-shared", "-fPIC", "-o", str(shim), str(HERE / "nodelay.c"), "-ldl"],
    ):
        r = subprocess.run(cmd, text=True, capture_output=True)
        if r.returncode != 0:
            raise Unavailable(f"gcc failed: {' '.join(cmd)}\n{r.stderr}")
    return relay, shim


def certificate(workdir: Path) -> tuple[Path, Path]:
    """A self-signed ECDSA P-256 certificate for the server's address, made now with openssl (key, cert)."""
    key, cert = workdir / "server.key", workdir / "server.crt"
    cmd = ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    cmd += ["-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", f"/CN={SERVER_IP}"]
    cmd += ["-addext", f"subjectAltName=IP:{SERVER_IP}"]
    r = subprocess.run(cmd, text=True, capture_output=True)
    if r.returncode != 0:
        raise Unavailable(f"openssl could not make the bench's certificate: {r.stderr.strip()[-500:]}")
    return key, cert


NGINX_CONF = """
worker_processes 1;
daemon off;
master_process off;
user root;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    server_tokens off;
    etag off;
    types {{ }}
    default_type application/octet-stream;
    keepalive_timeout 600s;
    keepalive_requests 100000;
    tcp_nodelay {nodelay};
    tcp_nopush off;
    sendfile {sendfile};
    sendfile_max_chunk 0;
    output_buffers 1 4m;
    postpone_output 1460;
    http2_chunk_size {h2_chunk};
    http2_max_requests 100000;
    ssl_certificate {cert};
    ssl_certificate_key {key};
    ssl_protocols {tls};
    ssl_session_tickets off;
    ssl_session_cache off;
    server {{
        listen {h1};
        listen {h2} http2;
        listen {tfo} fastopen=256;
        listen {tls_port} ssl;
        root {root};
    }}
    server {{
        listen {browser_h1} ssl;
        listen {browser_h2} ssl http2;
        root {root};
        types {{ text/html html; text/css css; image/png png; application/javascript js; }}
    }}
}}
"""


class Stack:
    """Two namespaces joined by TUN devices; a relay per path (:meth:`link`), nginx per configuration."""

    def __init__(self, workdir: Path | None = None) -> None:
        check()
        self._lock: int | None = lock()
        try:
            self._tmp = tempfile.TemporaryDirectory(prefix="realstack-") if workdir is None else None
            self.work: Path = Path(self._tmp.name) if self._tmp is not None else Path(str(workdir))
            self.work.mkdir(parents=True, exist_ok=True)
            self.root = self.work / "www"
            self.root.mkdir(exist_ok=True)
            self.relay_bin, self.shim = build(self.work)
            self.key, self.cert = certificate(self.work)
            tag = f"{os.getpid()}"
            self.client_ns, self.server_ns = f"llrs-{tag}-c", f"llrs-{tag}-s"
            self.nginx: subprocess.Popen[str] | None = None
            self.nginx_key: tuple[Any, ...] | None = None
            for ns in (self.client_ns, self.server_ns):
                _run("ip", "netns", "add", ns)
                _run("ip", "link", "set", "lo", "up", ns=ns)
                for key, val in {**SYSCTLS, **(SERVER_SYSCTLS if ns == self.server_ns else {})}.items():
                    _run("sysctl", "-q", "-w", f"{key}={val}", ns=ns)
        except BaseException:
            os.close(self._lock)
            raise

    # -- the link -------------------------------------------------------------------------------------
    @contextmanager
    def link(
        self, up_delay_ms: float, up_bps: float, down_delay_ms: float, down_bps: float
    ) -> Iterator[dict[str, Any]]:
        """A relay for one path; yields a dict that holds the relay's statistics once it has stopped."""
        args = [str(self.relay_bin), self.client_ns, self.server_ns, TUN]
        args += [f"{up_delay_ms * 1000:.3f}", f"{up_bps:.0f}", f"{down_delay_ms * 1000:.3f}", f"{down_bps:.0f}"]
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        if line != "ready":
            proc.kill()
            raise Unavailable(f"the relay did not start: {line} {proc.stderr.read() if proc.stderr else ''}")
        for ns, me, peer in ((self.client_ns, CLIENT_IP, SERVER_IP), (self.server_ns, SERVER_IP, CLIENT_IP)):
            _run("ip", "addr", "add", me, "peer", peer, "dev", TUN, ns=ns)
            _run("ip", "link", "set", TUN, "txqueuelen", "10000", "up", ns=ns)
            # CUBIC by route (RTAX_CC_ALGO, "congctl"): this kernel defaults to BBR, and a namespace may set
            # its default only to an algorithm in the global tcp_allowed_congestion_control (EPERM otherwise,
            # tcp_set_default_congestion_control); a route's algorithm applies to active and passive opens
            # (tcp_init_congestion_control, tcp_ca_openreq_child) and leaves the host's settings alone.
            _run("ip", "route", "replace", f"{peer}/32", "dev", TUN, "src", me, "congctl", "lock", CC, ns=ns)
            # no pacing qdisc (fq would pace CUBIC at its pacing rate): a plain FIFO before the relay
            _run("tc", "qdisc", "replace", "dev", TUN, "root", "pfifo", "limit", "10000", ns=ns)
        stats: dict[str, Any] = {}
        try:
            yield stats
        finally:
            proc.send_signal(signal.SIGTERM)
            out, _err = proc.communicate(timeout=10)
            lines = [x for x in out.splitlines() if x.startswith("{")]
            if lines:
                stats.update(json.loads(lines[-1]))
            # the TUN devices went with the relay; the addresses with them

    # -- the server -----------------------------------------------------------------------------------
    def serve(self, nagle: bool, header_flush: bool, h2_chunk: int = 16384, tls: str = "1.3") -> None:
        """nginx in the server namespace with this configuration (restarted only when it changes); its TLS port
        speaks TLS ``tls`` ("1.2" or "1.3") only, without session tickets or a session cache (every handshake
        is a full one, and TLS 1.2's server Finished is not preceded by a NewSessionTicket)."""
        key = (nagle, header_flush, h2_chunk, tls)
        if self.nginx is not None and self.nginx_key == key and self.nginx.poll() is None:
            return
        self.stop_server()
        conf = self.work / "nginx.conf"
        conf.write_text(
            NGINX_CONF.format(
                work=self.work,
                root=self.root,
                ip=SERVER_IP,
                h1=PORT_H1,
                h2=PORT_H2,
                nodelay="off" if nagle else "on",
                sendfile="on" if header_flush else "off",
                h2_chunk=h2_chunk,
                tfo=PORT_TFO,
                tls_port=PORT_TLS,
                browser_h1=PORT_BROWSER_H1,
                browser_h2=PORT_BROWSER_H2,
                tls=f"TLSv{tls}",
                cert=self.cert,
                key=self.key,
            )
        )
        env = dict(os.environ)
        if not nagle:
            env["LD_PRELOAD"] = str(self.shim)
        cmd = [
            "ip",
            "netns",
            "exec",
            self.server_ns,
            "chrt",
            "-f",
            RT_PRIORITY,
            "nginx",
            "-c",
            str(conf),
            "-p",
            str(self.work),
        ]
        self.nginx = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.nginx_key = key

    def wait_server(self) -> None:
        """Wait until nginx listens on all its ports (on every address of the server namespace)."""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            assert self.nginx is not None
            if self.nginx.poll() is not None:
                err = self.nginx.stderr.read() if self.nginx.stderr else ""
                raise RuntimeError(f"nginx exited: {err} {(self.work / 'nginx-error.log').read_text()[-2000:]}")
            r = _run("ss", "-Htln", ns=self.server_ns, check=False)
            if all(
                f":{port} " in r.stdout
                for port in (PORT_H1, PORT_H2, PORT_TFO, PORT_TLS, PORT_BROWSER_H1, PORT_BROWSER_H2)
            ):
                return
            time.sleep(0.05)
        raise RuntimeError("nginx did not start listening within 10 s")

    def stop_server(self) -> None:
        if self.nginx is not None and self.nginx.poll() is None:
            self.nginx.send_signal(signal.SIGQUIT)
            try:
                self.nginx.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.nginx.kill()
                self.nginx.wait()
        self.nginx = None

    # -- capture and clients --------------------------------------------------------------------------
    @contextmanager
    def capture(self, path: Path) -> Iterator[dict[str, int]]:
        """tcpdump on the client's TUN device for the duration (headers only, each packet written as it comes,
        SCHED_FIFO like the endpoints); yields a dict that holds tcpdump's own counts once it has stopped.
        After the body the capture runs on until its file has stopped growing for 0.2 s (at most 5 s), so
        that the last packets are in it; a capture that lost packets raises :class:`CaptureError`."""
        cmd = ["ip", "netns", "exec", self.client_ns, "chrt", "-f", RT_PRIORITY, "tcpdump", "-i", TUN, "-n"]
        cmd += ["-s", "96", "-B", "16384", "-U", "-w", str(path), "--immediate-mode", "--time-stamp-precision=nano"]
        cmd += ["tcp"]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        assert proc.stderr is not None
        line = proc.stderr.readline()  # "listening on rs0, ..." once the capture runs
        if "listening" not in line:
            proc.kill()
            raise RuntimeError(f"tcpdump did not start: {line}{proc.stderr.read()}")
        counts: dict[str, int] = {}
        try:
            yield counts
        finally:
            size, still, deadline = -1, time.monotonic(), time.monotonic() + 5
            while time.monotonic() < deadline:
                now = path.stat().st_size if path.exists() else 0
                if now != size:
                    size, still = now, time.monotonic()
                elif time.monotonic() - still >= 0.2:
                    break
                time.sleep(0.05)
            proc.send_signal(signal.SIGINT)
            _out, err = proc.communicate(timeout=10)
            for n, what in re.findall(r"(\d+) packets? (captured|received by filter|dropped by kernel)", err):
                counts[what.replace(" ", "_")] = int(n)
        if counts.get("dropped_by_kernel", 0) or counts.get("captured", 0) < counts.get("received_by_filter", 0):
            raise CaptureError(f"tcpdump lost packets: {counts}")

    def counters(self) -> dict[str, dict[str, int]]:
        """Each namespace's TCP counters (/proc/net/netstat TcpExt and /proc/net/snmp Tcp: loss probes,
        delayed ACKs, HyStart exits, retransmissions...), by namespace: "client" and "server"."""
        out: dict[str, dict[str, int]] = {}
        for side, ns in (("client", self.client_ns), ("server", self.server_ns)):
            text = _run("cat", "/proc/net/netstat", "/proc/net/snmp", ns=ns).stdout.splitlines()
            vals: dict[str, int] = {}
            for head, row in zip(text[::2], text[1::2], strict=False):
                names, nums = head.split(), row.split()
                if names[0] in ("TcpExt:", "Tcp:") and names[0] == nums[0]:
                    for k, v in zip(names[1:], nums[1:], strict=True):
                        vals[f"{names[0][:-1]}.{k}"] = int(v)
            out[side] = vals
        return out

    def in_client(self, *args: str, timeout: float = 300, priority: str = RT_PRIORITY) -> str:
        """Run a client in the client namespace (SCHED_FIFO at ``priority``, as nginx's by default); its standard
        output."""
        r = _run("chrt", "-f", priority, *args, ns=self.client_ns, check=False, timeout=timeout)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(args[:3])} failed in the client namespace: {r.stderr.strip()[-2000:]}")
        return r.stdout

    def close(self) -> None:
        self.stop_server()
        for ns in (self.client_ns, self.server_ns):
            for pid in _run("ip", "netns", "pids", ns, check=False).stdout.split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except ProcessLookupError:
                    pass
            _run("ip", "netns", "del", ns, check=False)
        if self._tmp is not None:
            self._tmp.cleanup()
        if self._lock is not None:
            os.close(self._lock)  # releases the flock
            self._lock = None

    def __enter__(self) -> Stack:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
