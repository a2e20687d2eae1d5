"""Token checks that keep a real player's hello fast, and the loop's core free, while others guess.

A token check is a scrypt hash (~30-100 ms of CPU on a thread), run at most
`Admission.token_checks` at once (one: the loop keeps the other core). Guesses spread over many
addresses, each under its own backoff (`admission.TokenGate`), would still keep that thread busy
and the machine's cores hot. So:

- a token verified lately is remembered, as a keyed hash of the name, the stored hash and the
  token (never the token itself), for the life of the process and at most `VERIFIED_KEPT` of
  them, least recently used dropped first: a returning player needs no scrypt at all. Renewing
  a token changes the stored hash, so the old token is no longer found;
- every other check waits its turn of one server-wide pace, `Admission.token_checks_per_second`,
  so guesses from any number of addresses cost at most that many hashes a second. Past
  `TOKEN_WAIT` seconds' worth of checks waiting, one more is refused (`TokensBusy`: the
  `hello` is answered `rate_limited` with when to retry). Addresses that verified a token
  lately (`TRUSTED_KEPT` of them) go first and are never refused for the queue: a flood of
  guesses delays a classroom that played yesterday by one check at most;
- an address whose checks failed within `token_backoff_max` seconds is a suspect: suspects'
  checks go one at a time, at most `Admission.suspect_token_checks_per_second` server-wide,
  before they join the queue; past `SUSPECT_WAIT` seconds' worth of them waiting, one more is
  refused. Guessers that failed therefore hold at most one place in the queue;
- an address's checks go one at a time, so the next one knows whether this one failed: one
  address with many connections cannot put many guesses past the pacing at once.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets

import trio

from arbiter.server.common.recent import Recent
from arbiter.server.connection.admission import Admission, Pace, TokenGate
from arbiter.server.storage import accounts
from arbiter.server.storage.accounts import Account, Credentials

TOKEN_WAIT = 4.0
"""Seconds' worth of checks (at `token_checks_per_second`) that may wait their turn; one more
is refused. A client gives up on a hello after seconds, so a longer queue would only hold
guessers' sockets, while a refusal says at once when to come back."""
TRUSTED_KEPT = 4096
"""Addresses that verified a token lately, whose checks go first: a classroom or two of NATs
and homes, remembered least recently used first out."""
VERIFIED_KEPT = 4096
"""Verified tokens remembered, ~200 bytes each: registered names are teams and admins, tens or
hundreds (`accounts.lookalike`), so a returning player is found unless thousands came since."""
SUSPECT_WAIT = 2.0
"""Seconds' worth of suspects' checks (at their pace) that may wait their turn; one more is
refused. A client's hello deadline is seconds, and a longer queue would only hold guessers'
sockets."""


class TokensBusy(Exception):
    """A check refused: enough checks wait their turn already. The sentence says when to
    retry."""


class TokenChecks:
    """Checks tokens (`check`), remembering verified ones; the rest paced server-wide, those
    of trusted addresses first, suspects' paced apart before that."""

    def __init__(self, admission: Admission) -> None:
        self.gate = TokenGate(admission)
        """Failed checks per address, and their backoff."""
        now = trio.current_time()
        self._threads = trio.CapacityLimiter(admission.token_checks)
        self._addresses: dict[str, trio.Lock] = {}
        """Addresses with a check under way; the others from the same address wait their turn."""
        rate = admission.token_checks_per_second
        self._pace = Pace(rate, 1.0, now)
        self._queue_bound = math.ceil(rate * TOKEN_WAIT)
        """Checks of untrusted addresses that may wait for their turn."""
        self._lines = (trio.lowlevel.ParkingLot(), trio.lowlevel.ParkingLot())
        """Checks waiting for the turn: trusted addresses' first, then the others'."""
        self._turn_taken = False
        """Whether a check holds the turn (booking its moment of the pace)."""
        self._trusted: Recent[str, bool] = Recent(TRUSTED_KEPT)
        """Addresses that verified a token lately."""
        self._suspects = trio.Lock()
        """One suspect's check at a time: its turn is booked once it holds this, so checks
        that waited long for a slow one do not then start together."""
        suspect_rate = admission.suspect_token_checks_per_second
        self._suspect_pace = Pace(suspect_rate, 1.0, now)
        self._suspect_bound = math.ceil(suspect_rate * SUSPECT_WAIT)
        """Suspects' checks that may wait for their turn."""
        self._verified: Recent[bytes, Account] = Recent(VERIFIED_KEPT)
        self._key = secrets.token_bytes(32)
        """What the remembered hashes are keyed with: this process's alone."""

    async def check(self, found: Credentials | None, token: str, address: str) -> Account | None:
        """The account if `token` is `found`'s token, else None (a failure counted against
        `address`). `TokensBusy` if too many checks wait their turn already."""
        remembered = None if found is None else self._remembered(found, token)
        if remembered is not None:
            self._trusted.put(address, True)
            return remembered
        if self.gate.suspect(address, trio.current_time()):
            account = await self._check_suspect(found, token)
        else:
            account = await self._check_first(found, token, address)
        if account is None:
            self.gate.failed(address, trio.current_time())
        else:
            assert found is not None
            self._verified.put(self._memo(found, token), account)
            self._trusted.put(address, True)
        return account

    async def _check_first(
        self, found: Credentials | None, token: str, address: str
    ) -> Account | None:
        """A check from an address that has not failed lately: one at a time per address, so
        the next learns whether this one failed (and is then paced as a suspect's)."""
        turn = self._addresses.setdefault(address, trio.Lock())
        try:
            async with turn:
                if self.gate.suspect(address, trio.current_time()):
                    return await self._check_suspect(found, token)
                trusted = self._trusted.get(address) is not None
                return await self._paced(found, token, trusted)
        finally:
            idle = not turn.locked() and not turn.statistics().tasks_waiting
            if idle and self._addresses.get(address) is turn:
                del self._addresses[address]

    async def _check_suspect(self, found: Credentials | None, token: str) -> Account | None:
        """One at a time, each joining the queue at its turn of the suspects' pace; refused if
        `SUSPECT_WAIT` seconds of such turns wait already."""
        if self._suspects.statistics().tasks_waiting >= self._suspect_bound:
            raise TokensBusy(
                "the server is checking many tokens from addresses whose checks failed:"
                f" try again in {SUSPECT_WAIT:g} s"
            )
        async with self._suspects:
            turn = self._suspect_pace.reserve(trio.current_time(), math.inf)
            assert turn is not None  # booked however far ahead
            await trio.sleep_until(turn)
            return await self._paced(found, token, trusted=False)

    async def _paced(self, found: Credentials | None, token: str, trusted: bool) -> Account | None:
        """The check at its moment of the server-wide pace, booked in turn (trusted addresses
        first); refused if an untrusted one finds `TOKEN_WAIT` seconds of checks waiting."""
        trusted_line, others = self._lines
        waiting = len(trusted_line) + len(others)
        if not trusted and waiting >= self._queue_bound:
            raise TokensBusy(
                "the server is busy checking tokens:"
                f" try again in {math.ceil(waiting / self._pace.rate)} s"
            )
        if self._turn_taken or waiting:
            await (trusted_line if trusted else others).park()
        else:
            self._turn_taken = True
        try:
            moment = self._pace.reserve(trio.current_time(), math.inf)
            assert moment is not None  # booked however far ahead
            await trio.sleep_until(moment)
        finally:
            self._pass_turn()
        return await self._hash(found, token)

    def _pass_turn(self) -> None:
        """Hand the turn to the first waiting check, trusted addresses' first."""
        if not any(line.unpark() for line in self._lines):
            self._turn_taken = False

    async def _hash(self, found: Credentials | None, token: str) -> Account | None:
        return await trio.to_thread.run_sync(
            accounts.check_token, found, token, limiter=self._threads
        )

    def _remembered(self, found: Credentials, token: str) -> Account | None:
        account = self._verified.get(self._memo(found, token))
        return account if account == found.account else None

    def _memo(self, found: Credentials, token: str) -> bytes:
        """A keyed hash of what was verified: fast, and of no use outside this process."""
        text = b"\0".join((found.account.name.encode(), found.digest, token.encode()))
        return hmac.digest(self._key, text, hashlib.sha256)
