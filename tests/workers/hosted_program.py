"""A hosted agent that misbehaves on purpose, run by a worker as `--program NAME=COMMAND`.

It speaks the protocol itself, told where and as whom by its environment (`ARBITER_SERVER`,
`ARBITER_NAME`, `ARBITER_TOKEN`, `ARBITER_GAME`, `ARBITER_TIME`, `ARBITER_OPPONENT`), seeks one
game against its opponent and plays each turn's first legal move after its behaviour:

    sleep SECONDS      sleep (no CPU) before each move
    burn SECONDS       keep the CPU busy before each move
    forge SECONDS      burn, then send the move with a CPU figure of 0
    late SECONDS       sleep before connecting (an interpreter slow to start), then move at once
"""

from __future__ import annotations

import os
import sys
import time

import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection


def behave(kind: str, seconds: float) -> float | None:
    """Spend the move's time as `kind` says; the CPU figure to send with the move (a forger's)."""
    if kind == "late":
        return None
    if kind == "sleep":
        time.sleep(seconds)
        return None
    until = time.process_time() + seconds
    while time.process_time() < until:
        pass
    return 0.0 if kind == "forge" else None


async def main(kind: str, seconds: float) -> None:
    host, port = os.environ["ARBITER_SERVER"].rsplit(":", 1)
    control = protocol.TimeControl.parse(os.environ["ARBITER_TIME"])
    if kind == "late":
        await trio.sleep(seconds)
    async with await ClientConnection.open(
        host, int(port), os.environ["ARBITER_NAME"], os.environ["ARBITER_TOKEN"]
    ) as connection:
        await connection.send(
            protocol.Seek(
                game=os.environ["ARBITER_GAME"],
                time=control.to_wire(),
                opponent=os.environ["ARBITER_OPPONENT"],
            )
        )
        while True:
            message = await connection.receive()
            if isinstance(message, protocol.GameOver):
                return
            if isinstance(message, protocol.YourTurn) and message.legal:
                cpu = behave(kind, seconds)
                move = protocol.Move(match=message.match, move=message.legal[0], cpu=cpu)
                await connection.send(move)


if __name__ == "__main__":
    trio.run(main, sys.argv[1], float(sys.argv[2]))
