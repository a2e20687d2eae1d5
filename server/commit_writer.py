"""The process that commits the server's group commits.

A thread in the server would share the interpreter lock with the event loop: under load, every
statement it runs waits for the loop to let go, and the loop for it. This process has its own.
`SQLStorage.run_writer` starts it as `python -m arbiter.server.commit_writer FD`, with the store
(a SQLite file or a PostgreSQL URL) in its environment as `ARBITER_COMMIT_DB` (a command line is
anyone's to read in `ps`, and a URL may hold a password), and sends it batches over the socket
FD, each a msgpack array of writes, a write an array of `[sql, args]` statements stored
together; it commits each batch and answers with one entry per write: nil, the id a keyed
write's row was given (an integer), or `[error class name, message]`. It ends when the socket
closes (the server stopped, or was killed).

The batch logic itself is `server.database.commit_batch`.
"""

from __future__ import annotations

import os
import signal
import socket
import sys

import msgpack

from arbiter.server.database import commit_batch, open_database
from arbiter.server.sql import Connection

TARGET = "ARBITER_COMMIT_DB"
"""The environment variable that names the store to the process."""


def serve(sock: socket.socket, db: Connection) -> None:
    """Commit batches from `sock` until it closes."""
    batches = msgpack.Unpacker(raw=False)
    while data := sock.recv(1 << 20):
        batches.feed(data)
        for batch in batches:
            answer = [
                [type(a).__name__, str(a)] if isinstance(a, Exception) else a
                for a in commit_batch(db, batch)
            ]
            sock.sendall(msgpack.packb(answer))


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    (fd,) = argv
    with socket.socket(fileno=int(fd)) as sock:
        db = open_database(os.environ[TARGET])
        try:
            serve(sock, db)
        except ConnectionError:
            pass  # the server is gone
        finally:
            db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
