"""Sign-in: a connection's `hello` answered, its name checked, a dropped session's seats given
back.

A name registered as an account (`server.storage.accounts`) is only played under with its token;
other names are free for casual play. A registered name has one live connection, the newest: a
newer `hello` under it closes the older one, whose seats wait in their grace period for this
`hello`'s `resume`. Token checks are paced per address (`server.connection.token_checks`), so a
guesser cannot try tokens fast.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import trio

from arbiter import protocol
from arbiter.protocol import ErrorCode
from arbiter.server.connection.admission import Admission
from arbiter.server.connection.session import Session
from arbiter.server.connection.token_checks import TokenChecks, TokensBusy
from arbiter.server.play import messages
from arbiter.server.play.match import Reconnected
from arbiter.server.play.seating import Seating
from arbiter.server.storage.accounts import Account
from arbiter.server.storage.interface import Storage


class SignIn:
    """Who said hello under which registered name; answers `hello`."""

    def __init__(
        self,
        storage: Storage,
        seating: Seating,
        admission: Admission,
        replaced: Callable[[Session], None],
    ) -> None:
        self.storage = storage
        self.seating = seating
        self._replaced = replaced
        """What becomes of an older connection a newer `hello` under its name replaced (the
        lobby forgets it)."""
        self.accounts: dict[Session, Account] = {}
        """Sessions that said hello with a registered name and its token."""
        self._signed_in: dict[str, Session] = {}
        """The one live session of each registered name: a newer hello replaces it."""
        self._tokens = TokenChecks(admission)
        """Token checks: a few at once, guessers' paced apart, verified tokens remembered."""

    async def hello(self, session: Session, hello: protocol.Hello) -> None:
        refusal = await self._refusal(session, hello)
        if refusal is not None:
            code, sentence = refusal
            session.drop(code, sentence, ref="hello")
            return
        session.name = hello.name
        account = self.accounts.get(session)
        if account is not None:
            self._sign_in(account.name, session)
        session.send(messages.welcome(session.token, hello.version))
        session.welcomed.set()
        if hello.resume is not None:
            self._resume(session, hello.resume)

    async def _refusal(
        self, session: Session, hello: protocol.Hello
    ) -> tuple[ErrorCode, str] | None:
        """Why this `hello` is refused (the code and a sentence), or None."""
        if hello.version not in protocol.VERSIONS:
            versions = " and ".join(map(str, protocol.VERSIONS))
            return (
                ErrorCode.VERSION_MISMATCH,
                f"this server speaks protocol versions {versions}, not {hello.version}",
            )
        wait = self._tokens.gate.wait(session.address, trio.current_time())
        if hello.token is not None and wait > 0:
            return (
                ErrorCode.RATE_LIMITED,
                f"too many failed token checks from {session.address}: try again in"
                f" {math.ceil(wait)} s",
            )
        try:
            refusal = await self._check_name(session, hello)
        except TokensBusy as busy:
            return ErrorCode.RATE_LIMITED, str(busy)
        return None if refusal is None else (ErrorCode.BAD_NAME, refusal)

    async def _check_name(self, session: Session, hello: protocol.Hello) -> str | None:
        """Why the name cannot be played under, or None (then a registered one is remembered).

        A failed token check counts against the client's address (`TokenChecks`); `TokensBusy`
        if the address failed lately and enough checks of such addresses wait already."""
        found = await self.storage.account_credentials(hello.name, hello.token is not None)
        if found is not None and found.account.name != hello.name:
            return f"{hello.name!r} is too like the registered name {found.account.name!r}"
        if hello.token is None:
            if found is None:
                return None
            return f"{hello.name!r} is a registered player: say hello with its token"
        account = await self._tokens.check(found, hello.token, session.address)
        if account is None:
            return f"wrong token for {hello.name!r}, or no such registered player"
        self.accounts[session] = account
        return None

    async def verify(self, name: str, token: str, address: str) -> Account | None:
        """The account if `token` is `name`'s, checked and paced as a `hello`'s token is (the
        web page's sign-in); `TokensBusy` while `address` must wait."""
        wait = self._tokens.gate.wait(address, trio.current_time())
        if wait > 0:
            raise TokensBusy(
                f"too many failed token checks from {address}: try again in {math.ceil(wait)} s"
            )
        found = await self.storage.account_credentials(name, True)
        if found is not None and found.account.name != name:
            found = None  # a lookalike's credentials: never another name's account
        return await self._tokens.check(found, token, address)

    def _sign_in(self, name: str, session: Session) -> None:
        """One live connection per registered name: the newest; an older one is dropped, its
        seats going to the grace period at once (so this hello's `resume` finds them)."""
        older = self._signed_in.get(name)
        self._signed_in[name] = session
        if older is None or older is session:
            return
        older.drop(
            ErrorCode.SESSION_REPLACED,
            f"a newer connection said hello as {name!r}: this one closes",
        )
        self._replaced(older)

    def _resume(self, session: Session, session_id: str) -> None:
        """Give the seats of a dropped session to this one, if it plays under the same name
        (a registered name's token was checked by `_check_name`)."""
        seats = self.seating.resume(session, session_id)
        if not seats:
            session.send_error(
                ErrorCode.UNKNOWN_SESSION,
                "no seat to resume for that session under this name: it never held one, or its"
                " grace period is over, or its games have ended; this connection goes on as a"
                " new session",
                ref="hello",
            )
            return
        for match, seat in seats:
            match.deliver(Reconnected(seat, session))

    def leave(self, session: Session) -> None:
        """`session` closed: its name is free for another connection."""
        account = self.accounts.pop(session, None)
        if account is not None and self._signed_in.get(account.name) is session:
            del self._signed_in[account.name]
