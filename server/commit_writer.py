"""The process that commits the server's group commits.

A thread in the server would share the interpreter lock with the event loop: under load, every
statement it runs waits for the loop to let go, and the loop for it. This process has its own.
`SQLiteStorage.run_writer` starts it as `python -m arbiter.server.commit_writer FD DB` and sends it
batches over the socket FD, each a msgpack array of writes, a write an array of `[sql, args]`
statements stored together; it commits each batch and answers with one entry per write: nil, the
id a keyed write's row was given (an integer), or `[error class name, message]`. It ends when
the socket closes (the server stopped, or was killed).

The batch logic itself is `server.database.commit_batch`.
"""

from __future__ import annotations

import signal
import socket
import sqlite3
import sys

import msgpack

from arbiter.server.database import commit_batch, open_database


def serve(sock: socket.socket, db: sqlite3.Connection) -> None:
    """Commit batches from `sock` until it closes."""
    batches = msgpack.Unpacker(raw=False)
    while data := sock.recv(1 << 20):
        batches.feed(data)
        for batch in batches:
            answer = [
                [type(a).__name__, str(a)] if isinstance(a, sqlite3.Error) else a
                for a in commit_batch(db, batch)
            ]
            sock.sendall(msgpack.packb(answer))


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    fd, path = argv
    with socket.socket(fileno=int(fd)) as sock:
        db = open_database(path)
        try:
            serve(sock, db)
        except ConnectionError:
            pass  # the server is gone
        finally:
            db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
