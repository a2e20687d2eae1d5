"""`logs`: what a match's hosted agents printed on stderr, for their authors and admins alone.

An agent's stderr may hold its author's debugging output, its search's secrets, or a stack
trace of its code: an opponent or a spectator must not read it. So each kept log carries the
author of the submission that ran (`storage.seat_logs`), and only that author (or an admin)
gets it; a built-in agent's log has no author and is an admin's alone.
"""

from __future__ import annotations

from arbiter import protocol
from arbiter.protocol import ErrorCode
from arbiter.server.connection.session import Session
from arbiter.server.storage.accounts import Account
from arbiter.server.storage.interface import Storage
from arbiter.server.storage.seat_logs import SeatLog


def readable(logs: list[SeatLog], account: Account) -> list[SeatLog]:
    """The logs `account` may read: every one for an admin, else its own submissions'."""
    return [kept for kept in logs if account.role == "admin" or kept.author == account.name]


async def answer(
    storage: Storage, session: Session, account: Account | None, request: protocol.Logs
) -> None:
    """Send `match_logs`, or an `error` with the sentence that says why not."""
    if account is None:
        session.send_error(
            ErrorCode.NOT_ALLOWED,
            "logs needs a registered name: say hello with the name and its token",
            ref="logs",
        )
        return
    shown = readable(await storage.seat_logs(request.match), account)
    if not shown and account.role != "admin":
        session.send_error(
            ErrorCode.NOT_ALLOWED,
            f"match {request.match} has no hosted seat of yours: an agent's log is shown to its"
            " author and to admins only",
            ref="logs",
        )
        return
    entries = [
        {"seat": kept.seat, "player": kept.player, "author": kept.author, "log": kept.log}
        for kept in shown
    ]
    session.send(protocol.MatchLogs(match=request.match, logs=entries))
