"""A hosted agent that attacks its sandbox on its first turn, run by a worker as `--program
NAME=COMMAND` (`python hostile_program.py KIND`). Until then it plays as any agent does: told
where and as whom by its environment, it seeks one game against its opponent.

    fork        forks without end
    allocate    allocates 10 GB
    write       writes 10 GB into its scratch folder
    print       prints 1 GB
    sleep       sleeps for ever
    parent      kills its parent
    segfault    reads address 0
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time

import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection

GB = 1000**3


def attack(kind: str) -> None:
    """Do what `kind` names; none of them returns in a working sandbox."""
    if kind == "fork":
        while True:
            with contextlib.suppress(OSError):
                os.fork()
    elif kind == "allocate":
        hoard = bytearray(10 * GB)
        hoard[-1] = 1
    elif kind == "write":
        block = b"x" * 1024 * 1024
        with open("/scratch/big", "wb") as file:
            file.writelines(block for _ in range(10 * 1000))
    elif kind == "print":
        line = "x" * 1000 * 1000
        for _ in range(1000):
            print(line)
    elif kind == "sleep":
        time.sleep(10**6)
    elif kind == "parent":
        os.kill(os.getppid(), signal.SIGKILL)
        time.sleep(60)
    elif kind == "segfault":
        ctypes.string_at(0)


async def main(kind: str) -> None:
    host, port = os.environ["ARBITER_SERVER"].rsplit(":", 1)
    control = protocol.TimeControl.parse(os.environ["ARBITER_TIME"])
    async with await ClientConnection.open(
        host, int(port), os.environ["ARBITER_NAME"], os.environ["ARBITER_TOKEN"]
    ) as connection:
        seek = protocol.Seek(
            game=os.environ["ARBITER_GAME"],
            time=control.to_wire(),
            opponent=os.environ["ARBITER_OPPONENT"],
        )
        await connection.send(seek)
        while not isinstance(await connection.receive(), protocol.YourTurn):
            pass
        attack(kind)


if __name__ == "__main__":
    trio.run(main, sys.argv[1])
