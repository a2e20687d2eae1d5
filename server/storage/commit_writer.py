"""The process that commits the server's group commits.

A thread in the server would share the interpreter lock with the event loop: under load, every
statement it runs waits for the loop to let go, and the loop for it. This process has its own.
`SQLStorage.run_writer` starts it as `python -m arbiter.server.storage.commit_writer FD`, with the
store (a SQLite file or a PostgreSQL URL) in its environment as `ARBITER_COMMIT_DB` (a command line
is anyone's to read in `ps`, and a URL may hold a password), and sends it batches over the socket
FD, each a msgpack array `[number, writes]`, a write an array of `[sql, args]` statements stored
together; it commits each batch and answers with one entry per write: nil, the id a keyed
write's row was given (an integer), or `[error class name, message]`. It ends when the socket
closes (the server stopped, or was killed).

A process that dies (killed, or its database connection lost) leaves its batch unanswered: the
server starts another and sends the batch again. The first batch a process gets may be such a
resend, so for that one it reads the commit log first
(`server.storage.group_commit.commit_batch`). A connection the database dropped is found after a
batch that met errors (a probe query fails): the process then ends without answering, so that batch
too is sent again, on a new connection.

The batch logic itself is `server.storage.group_commit.commit_batch`.
"""

from __future__ import annotations

import os
import signal
import socket
import sys

import msgpack

from arbiter.server.storage.engine import open_database
from arbiter.server.storage.errors import CannotOpen
from arbiter.server.storage.group_commit import commit_batch
from arbiter.server.storage.sql_connection import Connection

TARGET = "ARBITER_COMMIT_DB"
"""The environment variable that names the store to the process."""


def serve(sock: socket.socket, db: Connection) -> None:
    """Commit batches from `sock` until it closes, or until the database connection is lost."""
    batches = msgpack.Unpacker(raw=False)
    resend = True  # the first batch may be one a process before this one did not answer
    while data := sock.recv(1 << 20):
        batches.feed(data)
        for number, writes in batches:
            answers = commit_batch(db, number, writes, resend=resend)
            resend = False
            if any(isinstance(answer, list) for answer in answers) and not _connected(db):
                raise ConnectionLost("the database connection was lost")
            sock.sendall(msgpack.packb(answers))


class ConnectionLost(Exception):
    """The database dropped this process's connection: its batch goes to a new process."""


def _connected(db: Connection) -> bool:
    """Whether the connection still answers (a refused write leaves it so; a dropped one not)."""
    try:
        db.execute("SELECT 1").fetchall()
    except db.Error:
        return False
    return True


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    (fd,) = argv
    with socket.socket(fileno=int(fd)) as sock:
        try:
            db = open_database(os.environ[TARGET])
        except CannotOpen as error:
            print(f"the commit process cannot open the store: {error}", file=sys.stderr)
            return 1
        try:
            serve(sock, db)
        except ConnectionError:
            pass  # the server is gone
        except ConnectionLost as error:
            print(f"the commit process stops: {error}", file=sys.stderr)
            return 1
        finally:
            db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
