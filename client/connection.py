"""The client's side of one TCP connection: send messages, receive messages, answer pings.

A thin shell over the sans-I/O `protocol.Connection` (CLIENT role), like the server's session.
With a TLS context (`client_tls`) the connection is TLS, checked against the server's name.
"""

from __future__ import annotations

import os
import ssl
from collections import deque

import trio

from arbiter import protocol

RECEIVE_SIZE = 64 * 1024
MAX_FRAME = 4 * 1024 * 1024
"""Larger than the server's 64 KiB: we trust our server, and a finished long game's record may
exceed 64 KiB."""
LAST_ERROR_SECONDS = 1.0
"""How long a failed send looks for the server's last `error` in what is left to read: what a
reset connection still holds is there at once, so this only bounds a stream that is not TCP."""


class ServerError(Exception):
    """The server answered a request with an `error` frame."""

    def __init__(self, error: protocol.Error) -> None:
        super().__init__(f"{error.code}: {error.message}")
        self.code = error.code
        self.message = error.message


class ConnectionClosed(Exception):
    """The server closed the connection."""


class TLSFailed(Exception):
    """The TLS handshake with the server failed: retrying will not help (a certificate not
    trusted, a server that does not speak TLS)."""


def client_tls(ca_file: str | None = None) -> ssl.SSLContext:
    """What `--tls` connects with: the system's trusted authorities, or only `ca_file`'s (a
    private CA's PEM certificate). `OSError` or `ssl.SSLError` if that file cannot be used."""
    context = ssl.create_default_context(cafile=ca_file)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


class ClientConnection:
    def __init__(self, stream: trio.abc.Stream, name: str, session: str) -> None:
        self._stream = stream
        self.wire = protocol.Connection(protocol.CLIENT, max_frame=MAX_FRAME)
        self.name = name
        self.session = session
        self._pending: deque[protocol.Message] = deque()
        self._sending = trio.StrictFIFOLock()

    @classmethod
    async def open(
        cls,
        host: str,
        port: int,
        name: str,
        token: str | None = None,
        resume: str | None = None,
        *,
        tls: ssl.SSLContext | None = None,
    ) -> ClientConnection:
        """Connect and shake hands; `ServerError` if the server refuses us, `TLSFailed` if
        its TLS handshake fails.

        `resume` is the `session` of an earlier connection whose seats we take back.
        """
        stream = await open_stream(host, port, tls)
        connection = cls(stream, name, "")
        try:
            await connection.send(
                protocol.Hello(
                    version=protocol.PROTOCOL_VERSION, name=name, token=token, resume=resume
                )
            )
            welcome = await connection.receive()
            if not isinstance(welcome, protocol.Welcome):
                raise ConnectionClosed(f"expected welcome, got {welcome!r}")
        except ConnectionClosed as error:
            await trio.aclose_forcefully(stream)
            raise ConnectionClosed(
                f"{host}:{port} did not answer as an Arbiter server: {error}"
            ) from error
        except BaseException:
            await trio.aclose_forcefully(stream)
            raise
        connection.session = welcome.session
        return connection

    async def send(self, *messages: protocol.Message) -> None:
        """Send the messages in one write (pipelined requests share a TCP segment).

        A reset says the same as on receiving (`ConnectionClosed`): a server killed between
        accepting us and reading our `hello` is one a reconnecting client simply tries again.
        Sends wait their turn: a pong written by a receiving task must not interleave with a
        move written by another (trio would refuse the second writer outright).
        """
        try:
            async with self._sending:
                await self._stream.send_all(b"".join(self.wire.send(m) for m in messages))
        except trio.BrokenResourceError as error:
            raise await self._last_error() from error

    async def receive(self) -> protocol.Message:
        """The next message; pings are answered here, errors raise `ServerError`.

        A `game_over` error is dropped: it answers a move that crossed the end of its game, and
        the `game_over` message already said how that game ended.
        """
        if self._pending:
            return self._pending.popleft()
        return await self._read()

    async def answer_pings(self) -> None:
        """Answer pings until cancelled; other messages are kept, in order, for `receive`.

        Run it beside a thinking agent: the server measures our round trip with pings, and a
        pong held back by thinking time would read as network lag.
        """
        while True:
            self._pending.append(await self._read())

    async def _read(self) -> protocol.Message:
        while True:
            message = await self._next()
            if isinstance(message, protocol.Ping):
                await self.send(protocol.Pong(nonce=message.nonce))
            elif isinstance(message, protocol.Error):
                if message.code == protocol.ErrorCode.GAME_OVER:
                    continue  # a move crossed the end of its game, which game_over announced
                raise ServerError(message)
            else:
                return message

    async def _next(self) -> protocol.Message:
        """The next message of any kind, read as it comes; `ConnectionClosed` at the end."""
        while True:
            try:
                message = self.wire.next_message()
            except protocol.PeerError as error:
                raise ConnectionClosed(f"the server sent a bad frame ({error})") from error
            if message is protocol.CLOSED:
                raise ConnectionClosed("the server closed the connection")
            if message is not protocol.NEED_DATA:
                return message
            try:
                data = await self._stream.receive_some(RECEIVE_SIZE)
            except trio.BrokenResourceError as error:
                raise ConnectionClosed("connection reset by the server") from error
            self.wire.receive_data(data)

    async def _last_error(self) -> ServerError | ConnectionClosed:
        """Why a send failed: the `error` frame the server closed with, if it arrived before
        the reset (a server hanging up on a client that is still sending resets it, and the
        frame saying why waits unread behind whatever came before it), else the reset."""
        reset = ConnectionClosed("connection reset by the server")
        with trio.move_on_after(LAST_ERROR_SECONDS):
            try:
                while True:
                    message = await self._next()
                    if (
                        isinstance(message, protocol.Error)
                        and message.code != protocol.ErrorCode.GAME_OVER
                    ):
                        return ServerError(message)
            except (ConnectionClosed, trio.BusyResourceError, trio.ClosedResourceError):
                pass  # the end, or another task reads: that one meets the frame itself
        return reset

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> ClientConnection:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


async def open_stream(host: str, port: int, tls: ssl.SSLContext | None = None) -> trio.abc.Stream:
    """A TCP stream to the server, over TLS with `tls`: `OSError` with a sentence if nothing
    answers there, `TLSFailed` if the TLS handshake fails."""
    try:
        stream = await trio.open_tcp_stream(host, port)
    except OSError as error:
        raise OSError(
            f"cannot connect to {host}:{port} ({_first_cause(error)}):"
            " is an Arbiter server listening there?"
        ) from error
    if tls is None:
        return stream
    return await _secure(stream, tls, host, port)


async def _secure(
    stream: trio.abc.Stream, tls: ssl.SSLContext, host: str, port: int
) -> trio.SSLStream[trio.abc.Stream]:
    secure = trio.SSLStream(stream, tls, server_hostname=host)
    try:
        await secure.do_handshake()
    except trio.BrokenResourceError as error:
        await trio.aclose_forcefully(stream)
        raise TLSFailed(_tls_sentence(host, port, error.__cause__)) from error
    return secure


def _tls_sentence(host: str, port: int, cause: BaseException | None) -> str:
    if isinstance(cause, ssl.SSLCertVerificationError):
        return (
            f"{host}:{port}'s certificate is not trusted ({cause.verify_message}): with a"
            " private CA, name its certificate with --tls-ca FILE"
        )
    if isinstance(cause, ssl.SSLError):
        why = cause.reason or str(cause)
        return (
            f"TLS with {host}:{port} failed ({why.lower().replace('_', ' ')}):"
            " does that server serve TLS (arbiter-server --tls-cert)?"
        )
    return f"{host}:{port} closed the connection during the TLS handshake: does it serve TLS?"


def _first_cause(error: BaseException) -> str:
    """Why a connection failed, from trio's "all attempts failed" and the errors behind it."""
    cause: BaseException | None = error
    while isinstance(cause, BaseExceptionGroup) or (
        cause is not None and cause.__cause__ is not None
    ):
        cause = cause.exceptions[0] if isinstance(cause, BaseExceptionGroup) else cause.__cause__
    if isinstance(cause, OSError) and cause.errno is not None and cause.errno > 0:
        return os.strerror(cause.errno).lower()  # trio's own text repeats the address
    if isinstance(cause, OSError) and cause.strerror:
        return cause.strerror.lower()  # name resolution: negative codes of their own
    return str(cause)
