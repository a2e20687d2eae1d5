"""Who is registered, known in memory: a `hello` under a name that nobody registered, nor
anything that looks like it, needs no read of the store.

Every `hello` asks whether its name is registered or passes for a registered one
(`accounts.name_key`). Asked of the store, each is a query on the one connection that moves'
reads share, and a name that is not registered reads every account's name to look for a
lookalike: a crowd of hellos (a flood of new connections, wrong tokens sprayed from many
addresses) queues every real player's hello behind its own.

`Registry` keeps the registered names by key, read again when a name is asked for and the last
read is `FRESH_SECONDS` old, and each registered name's credentials for as long. Accounts are
made and renewed by `arbiter-server admin`, maybe in another process while the server runs: an
account is known, and a renewed token taken, within that time. However many hellos find the
registry stale at once, one read serves them all.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import trio

from arbiter.server.storage.accounts import Credentials, name_key

FRESH_SECONDS = 1.0
"""How long what was read answers hellos: at most one read of the names a second, and one of a
registered name's credentials, however many hellos come."""

ReadNames = Callable[[], Awaitable[list[str]]]
ReadCredentials = Callable[[str], Awaitable[Credentials | None]]


class Registry:
    """The registered names by key, and credentials lately read, from two reads of the store."""

    def __init__(self, read_names: ReadNames, read_credentials: ReadCredentials) -> None:
        self._read_names = read_names
        self._read_credentials = read_credentials
        self._by_key: dict[str, str] = {}
        """A registered name's key -> the name."""
        self._keys: dict[str, str] = {}
        """Each registered name -> its key, so a read works out only the new names' keys."""
        self._names_read_at = -FRESH_SECONDS
        self._credentials: dict[str, tuple[float, Credentials | None]] = {}
        """A registered name -> when its credentials were read, and them."""
        self._reading: dict[str, trio.Event] = {}
        """Reads under way ("" for the names) and what their waiters wait for."""

    async def credentials(self, name: str, certain: bool = False) -> Credentials | None:
        """`name`'s credentials, or those of the registered name it passes for (the caller
        tells by `account.name`), or None if it is not registered.

        `certain`: for a name not known, ask the store itself. A hello with a token is about to
        cost a token check anyway, and must not be refused for an account made a moment ago."""
        registered = await self._registered(name_key(name))
        if registered is None:
            if not certain:
                return None
            found = await self._read_credentials(name)
            if found is not None:
                self.forget(found.account.name)
            return found
        kept = self._credentials.get(registered)
        if kept is None or self._stale(kept[0]):
            await self._once(registered, self._read_credentials_of)
            kept = self._credentials.get(registered)
        return None if kept is None else kept[1]

    def forget(self, name: str) -> None:
        """`name` was just registered or given a new token by this server: read it again."""
        self._names_read_at = -FRESH_SECONDS
        self._credentials.pop(name, None)

    async def _registered(self, key: str) -> str | None:
        if self._stale(self._names_read_at):
            await self._once("", self._read_all_names)
        return self._by_key.get(key)

    @staticmethod
    def _stale(read_at: float) -> bool:
        return time.monotonic() - read_at >= FRESH_SECONDS

    async def _once(self, what: str, read: Callable[[str], Awaitable[None]]) -> None:
        """Run `read(what)`, or wait for the one under way."""
        under_way = self._reading.get(what)
        if under_way is not None:
            await under_way.wait()
            return
        done = self._reading[what] = trio.Event()
        try:
            await read(what)
        finally:
            del self._reading[what]
            done.set()

    async def _read_all_names(self, _: str) -> None:
        read_at = time.monotonic()
        names = await self._read_names()
        self._keys = {name: self._keys.get(name) or name_key(name) for name in names}
        self._by_key = {key: name for name, key in self._keys.items()}
        self._names_read_at = read_at

    async def _read_credentials_of(self, name: str) -> None:
        read_at = time.monotonic()
        self._credentials[name] = (read_at, await self._read_credentials(name))
        if len(self._credentials) > len(self._keys):  # names no longer registered
            self._credentials = {n: c for n, c in self._credentials.items() if n in self._keys}
