"""The inside end of a sandbox's one channel: a loopback listener for the agent, relayed over
stdio.

An agent that speaks Arbiter's protocol connects to ARBITER_SERVER over TCP, but a sandbox has
no network, only a loopback of its own. So this relay runs as the sandbox's first process: it
listens on 127.0.0.1:PORT inside the sandbox's network namespace, starts the agent's command
with ARBITER_SERVER pointing there, accepts its one connection and copies bytes both ways
between that connection and its own stdin and stdout, which the outside end (`link.py`)
connects to the server. Every form of agent (an agent module, a Player module run by
`arbiter tournament play`, a program in any language) runs unchanged.

The agent's stdin is empty and its stdout goes to stderr with its stderr: only the relay writes
to the channel, so nothing the agent prints can pass for a frame. The relay ends as the agent
does, with its status, or by the same signal, so the outside can tell a segfault from an exit.

This file runs by path (`python -I -S relay.py`), not as part of the `arbiter` package: it
needs only the standard library, and a bare interpreter starts in a few milliseconds.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import selectors
import signal
import socket
import subprocess
import sys

CHUNK = 65536
PR_SET_DUMPABLE = 4


def serve(port: int, command: list[str]) -> int:
    """Relay the agent `command`'s one connection to 127.0.0.1:`port`; its exit status."""
    _refuse_tracing()
    listener = socket.create_server(("127.0.0.1", port))
    environment = {**os.environ, "ARBITER_SERVER": f"127.0.0.1:{port}"}
    agent = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=2, env=environment)
    connection = _accept(listener, agent)
    listener.close()
    if connection is not None:
        with connection:
            _copy(connection)
    return agent.wait()


def _refuse_tracing() -> None:
    """Make this process one the agent (the same user) may not trace or read the memory of, so
    it cannot take over the channel; the agent's own process starts traceable again."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def _accept(listener: socket.socket, agent: subprocess.Popen[bytes]) -> socket.socket | None:
    """The agent's connection, or None if it ends before connecting."""
    ended = os.pidfd_open(agent.pid)
    with selectors.DefaultSelector() as selector:
        selector.register(listener, selectors.EVENT_READ)
        selector.register(ended, selectors.EVENT_READ)
        ready = {key.fileobj for key, _ in selector.select()}
    os.close(ended)
    if listener not in ready:
        return None
    connection, _ = listener.accept()
    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return connection


def _copy(connection: socket.socket) -> None:
    """Bytes from stdin to the connection and from the connection to stdout, as they come; each
    direction's end is passed on (a half-close stays a half-close), until both have ended."""
    with selectors.DefaultSelector() as selector:
        selector.register(0, selectors.EVENT_READ)
        selector.register(connection, selectors.EVENT_READ)
        while selector.get_map():
            for key, _ in selector.select():
                if key.fileobj == 0:
                    data = os.read(0, CHUNK)
                    if not data or not _send(connection, data):
                        selector.unregister(0)
                        _shut(connection)
                else:
                    if not _receive_to_stdout(connection):
                        selector.unregister(connection)
                        _shut(_channel())  # the outside end sees the agent's end now


def _channel() -> socket.socket:
    """stdout, the channel's socket (stdin is the same one)."""
    return socket.socket(fileno=os.dup(1))


def _send(connection: socket.socket, data: bytes) -> bool:
    try:
        connection.sendall(data)
    except OSError:
        return False
    return True


def _shut(connection: socket.socket) -> None:
    with contextlib.suppress(OSError):
        connection.shutdown(socket.SHUT_WR)


def _receive_to_stdout(connection: socket.socket) -> bool:
    """Copy what the agent sent to stdout; False at its end (or the channel's)."""
    try:
        data = connection.recv(CHUNK)
        if data:
            _write_all(1, data)
    except OSError:
        return False
    return bool(data)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _end_as(status: int) -> None:
    """Exit as the agent did: with its status, or killed by its signal."""
    if status < 0:
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    sys.exit(status)


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit("usage: relay.py PORT -- COMMAND...")
    _end_as(serve(int(sys.argv[1]), sys.argv[3:]))
