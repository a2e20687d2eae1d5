"""Token checks that keep a real player's hello fast while others guess.

A token check is a scrypt hash (~30-100 ms of CPU on a thread), run at most
`Admission.token_checks` at once. Guesses spread over many addresses, each under its own
backoff (`admission.TokenGate`), could still keep those threads busy and make every honest
hello queue behind them. So:

- a token verified lately is remembered, as a keyed hash of the name, the stored hash and the
  token (never the token itself), for the life of the process and at most `VERIFIED_KEPT` of
  them, least recently used dropped first: a returning player needs no scrypt at all. Renewing
  a token changes the stored hash, so the old token is no longer found;
- an address whose checks failed within `token_backoff_max` seconds is a suspect: suspects'
  checks go one at a time, at most `Admission.suspect_token_checks_per_second` server-wide;
  past `SUSPECT_WAIT` seconds' worth of them waiting, one more is refused (`TokensBusy`).
  Guessers therefore hold at most one of the threads, and the others stay free for the
  addresses that have not failed;
- an address's checks go one at a time, so the next one knows whether this one failed: one
  address with many connections cannot put many guesses past the pacing at once. A guesser
  still gets one check at full speed from every address it has not failed from lately, which
  is what a first hello from a new address waits behind; a returning player waits for nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets

import trio

from arbiter.server import accounts
from arbiter.server.accounts import Account, Credentials
from arbiter.server.admission import Admission, Pace, TokenGate
from arbiter.server.recent import Recent

VERIFIED_KEPT = 4096
"""Verified tokens remembered, ~200 bytes each: registered names are teams and admins, tens or
hundreds (`accounts.lookalike`), so a returning player is found unless thousands came since."""
SUSPECT_WAIT = 2.0
"""Seconds' worth of suspects' checks (at their pace) that may wait their turn; one more is
refused. A client's hello deadline is seconds, and a longer queue would only hold guessers'
sockets."""


class TokensBusy(Exception):
    """A suspect's check refused: `SUSPECT_WAIT` seconds of suspects' checks wait already. The
    sentence says when to retry."""


class TokenChecks:
    """Checks tokens (`check`), remembering verified ones, with suspects paced apart."""

    def __init__(self, admission: Admission) -> None:
        self.gate = TokenGate(admission)
        """Failed checks per address, and their backoff."""
        self._threads = trio.CapacityLimiter(admission.token_checks)
        self._addresses: dict[str, trio.Lock] = {}
        """Addresses with a check under way; the others from the same address wait their turn."""
        self._suspects = trio.Lock()
        """One suspect's check at a time: its turn is booked once it holds this, so checks
        that waited long for a slow one do not then start together."""
        rate = admission.suspect_token_checks_per_second
        self._pace = Pace(rate, 1.0, trio.current_time())
        self._queue_bound = math.ceil(rate * SUSPECT_WAIT)
        """Suspects' checks that may wait for their turn."""
        self._verified: Recent[bytes, Account] = Recent(VERIFIED_KEPT)
        self._key = secrets.token_bytes(32)
        """What the remembered hashes are keyed with: this process's alone."""

    async def check(self, found: Credentials | None, token: str, address: str) -> Account | None:
        """The account if `token` is `found`'s token, else None (a failure counted against
        `address`). `TokensBusy` if `address` is a suspect and the suspects' queue is full."""
        remembered = None if found is None else self._remembered(found, token)
        if remembered is not None:
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
                return await self._hash(found, token)
        finally:
            idle = not turn.locked() and not turn.statistics().tasks_waiting
            if idle and self._addresses.get(address) is turn:
                del self._addresses[address]

    async def _check_suspect(self, found: Credentials | None, token: str) -> Account | None:
        """One at a time, each begun at its turn of the pace; refused if the queue already
        holds `SUSPECT_WAIT` seconds of turns."""
        if self._suspects.statistics().tasks_waiting >= self._queue_bound:
            raise TokensBusy(
                "the server is checking many tokens from addresses whose checks failed:"
                f" try again in {SUSPECT_WAIT:g} s"
            )
        async with self._suspects:
            turn = self._pace.reserve(trio.current_time(), math.inf)
            assert turn is not None  # booked however far ahead
            await trio.sleep_until(turn)
            return await self._hash(found, token)

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
