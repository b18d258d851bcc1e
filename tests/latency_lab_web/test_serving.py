"""latency_lab_web/serving.py's :class:`OneWrite`: an answer's head and body leave in one ``sendall``, in order.

The socket is a real one (a connected pair); the test counts the ``sendall`` calls that reach it. The served
whole (gunicorn with :class:`latency_lab_web.serving.ProblemGeventWorker`) is tests/latency_lab_web/test_server.py.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from gunicorn import util  # type: ignore[import-untyped]

from latency_lab_web.serving import OneWrite

HEAD = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"


class CountingSocket:
    """A real socket whose ``sendall`` calls are counted (everything else is the socket's own)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.sendalls: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.sendalls.append(bytes(data))
        self.sock.sendall(data)

    def __getattr__(self, name: str) -> object:
        return getattr(self.sock, name)


@pytest.fixture
def pair() -> Iterator[tuple[CountingSocket, socket.socket]]:
    a, b = socket.socketpair()
    b.settimeout(5)
    try:
        yield CountingSocket(a), b
    finally:
        a.close()
        b.close()


def received(peer: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        part = peer.recv(size - len(data))
        if not part:
            break
        data += part
    return data


def test_head_and_body_leave_in_one_sendall(pair: tuple[CountingSocket, socket.socket]) -> None:
    sock, peer = pair
    out = OneWrite(sock)
    util.write(out, HEAD)  # as gunicorn's Response.send_headers writes the head
    assert sock.sendalls == []  # held
    util.write(out, b"hello")  # the body's first write
    assert sock.sendalls == [HEAD + b"hello"]
    util.write(out, b" more")  # later writes go straight through
    out.flush()
    assert sock.sendalls == [HEAD + b"hello", b" more"]
    assert received(peer, len(HEAD) + 10) == HEAD + b"hello more"


def test_a_head_without_a_body_is_sent_by_flush(pair: tuple[CountingSocket, socket.socket]) -> None:
    sock, peer = pair
    out = OneWrite(sock)
    util.write(out, HEAD)
    out.flush()
    out.flush()  # nothing more to send
    assert sock.sendalls == [HEAD]
    assert received(peer, len(HEAD)) == HEAD


def test_anything_else_asked_of_the_socket_sends_the_head_first(pair: tuple[CountingSocket, socket.socket]) -> None:
    sock, peer = pair
    out = OneWrite(sock)
    util.write(out, HEAD)
    out.send(b"x")  # another method of the socket (gunicorn's sendfile path, a shutdown): the held head goes first
    assert sock.sendalls == [HEAD]
    assert received(peer, len(HEAD) + 1) == HEAD + b"x"
    util.write(out, b"body")  # nothing is held any more: straight through
    assert sock.sendalls == [HEAD, b"body"]


def test_a_chunked_body_joins_the_head(pair: tuple[CountingSocket, socket.socket]) -> None:
    sock, peer = pair
    out = OneWrite(sock)
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    util.write(out, head)
    util.write(out, b"abc", chunked=True)
    util.write(out, b"", chunked=True)  # the last chunk
    assert sock.sendalls == [head + b"3\r\nabc\r\n", b"0\r\n\r\n"]
    assert received(peer, len(head) + 13) == head + b"3\r\nabc\r\n0\r\n\r\n"
