"""The workers: clients that run agents for the server, and the seats they host.

A worker is a connection signed in under a `worker` account that said `worker` (a version 2
message) with its number of slots. When a seat is to be played by an agent the server runs (a
challenge to `hosted:AGENT`, a tournament entrant run by the server), `host` picks the worker
with the most free slots and sends it a `host` frame: the seat's registered name and a fresh
ticket for it (a `local` account's token, replaced at every hosting, so it is good for that seat
alone), the game, the time control, and what to run. The worker's agent signs in with that
ticket like any client (its `hello` marks the connection hosted: `hosts`), seeks and plays;
the worker reports its end (`host_ended`) and the slot is free again.

The server stays the referee: a hosted seat's moves reach its match as every move does. What
differs is its clock: its moves cost the CPU seconds the worker measured, written on each move
by the worker as it passes, on the connection only the worker holds the ticket for (the agent
talks to the worker, never to the server).

A worker whose connection ends takes its agents with it: each seat it hosted in a live match
loses by default with the sentence "worker lost", at once rather than after the grace period,
since no one can take the seat back; so does a seat whose agent ended mid-game (its
`host_ended`), with the worker's sentence for how ("crash: memory limit 512 MiB exceeded").
Its moves already played stand.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import trio

from arbiter import protocol
from arbiter.protocol import ErrorCode, TimeControl
from arbiter.server.common import logs
from arbiter.server.connection.session import Session
from arbiter.server.storage.accounts import Account
from arbiter.server.storage.interface import Storage

log = logging.getLogger(__name__)

WORKER_LOST = "worker lost"
"""The ending of a hosting whose worker's connection ended."""
HOSTED_PREFIX = "hosted:"
"""A seek's `opponent` that names an agent for a worker to run: `hosted:random`."""
MAX_SLOTS = 256
"""The most seats one worker may say it hosts at once."""


class NoWorker(Exception):
    """No worker has a free slot; the sentence says how many are connected."""


@dataclass(eq=False)
class Hosting:
    """One seat a worker hosts: from the `host` frame to its `host_ended`."""

    id: int
    worker: Session
    name: str
    opponent: str | None = None
    """The one player a seat hosted for a challenge may meet (None for a tournament's)."""
    author: str | None = None
    """Whose submission it runs (None for a built-in agent): who may read its log."""
    began: float = field(default_factory=time.time)
    """When it was hosted (seconds since the epoch): its matches began after."""
    online: trio.Event = field(default_factory=trio.Event)
    """Set when the agent signs in with the seat's ticket (after any fetch and build)."""
    ended: trio.Event = field(default_factory=trio.Event)
    ending: str = ""
    """Why the agent ended, as the worker said (or `WORKER_LOST`)."""
    log: str = ""
    """The end of what the agent printed on stderr, as the worker sent it."""
    on_end: Callable[[str], None] | None = None
    """Called with the ending, once, when the hosting ends."""

    def end(self, ending: str) -> None:
        if not self.ended.is_set():
            self.ending = ending
            self.ended.set()
            if self.on_end is not None:
                self.on_end(ending)


class Workers:
    """The connected workers, their free slots, and the seats they host."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.expected = False
        """Whether this server started workers of its own (`--workers`): then its tournaments
        wait for a worker rather than run their agents themselves."""
        self._free: dict[Session, int] = {}
        """Each worker's free slots."""
        self._slots: dict[Session, int] = {}
        """Each worker's slots, free or not."""
        self._hostings: dict[int, Hosting] = {}
        self._by_name: dict[str, Hosting] = {}
        self._next_id = 1
        self._freed = trio.Event()
        """Set (and replaced) whenever a slot becomes free or a worker arrives."""

    @property
    def connected(self) -> int:
        return len(self._free)

    @property
    def slots(self) -> int:
        """The seats the connected workers host at once, free or not."""
        return sum(self._slots.values())

    def announce(self, session: Session, account: Account | None, slots: int) -> None:
        """Answer `worker`: `session` hosts up to `slots` seats from now on."""
        if account is None or account.role != "worker":
            session.send_error(
                ErrorCode.NOT_ALLOWED,
                "only a connection signed in under a worker account may host agents"
                " (arbiter-server admin add NAME --role worker)",
                ref="worker",
            )
            return
        if not 1 <= slots <= MAX_SLOTS:
            session.send_error(
                ErrorCode.BAD_FIELD,
                f"a worker hosts 1 to {MAX_SLOTS} seats at once, not {slots}",
                ref="worker",
            )
            return
        busy = sum(1 for hosting in self._hostings.values() if hosting.worker is session)
        self._free[session] = slots - busy
        self._slots[session] = slots
        logs.event(log, "worker_ready", worker=session.name, slots=slots)
        self._wake()

    async def host(
        self,
        name: str,
        game: str,
        control: TimeControl,
        run: dict[str, Any],
        *,
        tournament: str | None = None,
        opponent: str | None = None,
        author: str | None = None,
    ) -> Hosting:
        """Have a worker run `run` as `name` (`author`'s submission, if any); `NoWorker` if none
        has a free slot."""
        worker = max(self._free, key=lambda session: self._free[session], default=None)
        if worker is None or self._free[worker] <= 0:
            raise NoWorker(
                f"no worker has a free slot ({self.connected} connected): try again later"
            )
        self._free[worker] -= 1  # taken before the ticket's write, which waits
        hosting = Hosting(self._next_id, worker, name, opponent, author)
        self._next_id += 1
        self._hostings[hosting.id] = hosting
        self._by_name[name] = hosting
        try:
            ticket = await self.storage.issue_local_token(name)
        except BaseException:
            self._release(hosting, "its ticket could not be issued")
            if worker in self._free:
                self._free[worker] += 1
            raise
        if worker.closed:
            self._release(hosting, WORKER_LOST)
            return hosting
        worker.send(
            protocol.Host(
                host=hosting.id,
                name=name,
                ticket=ticket,
                game=game,
                time=control.to_wire(),
                run=run,
                tournament=tournament,
                opponent=opponent,
            )
        )
        logs.event(log, "seat_hosted", worker=worker.name, host=hosting.id, player=name)
        return hosting

    async def wait_for_slot(self) -> None:
        """Until a slot may have become free (or a worker arrived): ask again then."""
        await self._freed.wait()

    def free_name(self, base: str) -> str:
        """`base-1`, `base-2`...: the first seat name no hosting uses now."""
        number = 1
        while f"{base}-{number}" in self._by_name:
            number += 1
        return f"{base}-{number}"

    def hosts(self, name: str, account: Account | None) -> bool:
        """Whether a connection signed in as `account` is a seat a worker hosts (its ticket is
        that name's token, which only the hosting's worker was given); if so, its hosting is
        marked online."""
        if account is None or account.role != "local" or name not in self._by_name:
            return False
        self._by_name[name].online.set()
        return True

    def opponent_of(self, name: str) -> str | None:
        """The one opponent the seat hosted as `name` was hosted to meet, if any: its seeks
        are challenges to that player whatever its agent asked, so a program that ignores
        `ARBITER_OPPONENT` still meets the player the hosting is for."""
        hosting = self._by_name.get(name)
        return None if hosting is None else hosting.opponent

    def ended(
        self, session: Session, host_id: int, ending: str, log_text: str = ""
    ) -> Hosting | None:
        """Answer `host_ended`: the worker's agent ended, its slot is free. The hosting, or
        None after telling the worker it has no such hosting."""
        hosting = self._hostings.get(host_id)
        if hosting is None or hosting.worker is not session:
            session.send_error(
                ErrorCode.BAD_FIELD, f"no hosting {host_id} of yours is running", ref="host_ended"
            )
            return None
        logs.event(log, "hosted_seat_ended", host=host_id, player=hosting.name, ending=ending)
        hosting.log = log_text
        self._release(hosting, ending)
        if session in self._free:
            self._free[session] += 1
        self._wake()
        return hosting

    def leave(self, session: Session) -> list[Hosting]:
        """`session` closed: if it was a worker, the seats it hosted (each ends
        `WORKER_LOST`)."""
        self._slots.pop(session, None)
        if self._free.pop(session, None) is None:
            return []
        lost = [hosting for hosting in self._hostings.values() if hosting.worker is session]
        for hosting in lost:
            self._release(hosting, WORKER_LOST)
        if lost:
            logs.event(log, "worker_lost", worker=session.name, seats=len(lost))
        return lost

    def _release(self, hosting: Hosting, ending: str) -> None:
        self._hostings.pop(hosting.id, None)
        if self._by_name.get(hosting.name) is hosting:
            del self._by_name[hosting.name]
        hosting.end(ending)

    def _wake(self) -> None:
        self._freed.set()
        self._freed = trio.Event()
