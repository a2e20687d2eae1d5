"""The lobby listing: open seeks, live matches and tournaments, as `lobby_listing` shows them
(the tournaments list their own entries: `server.play.tournament_desk.Listed`).

A listing is built only when someone asks for one or a follower is due a fresh one
(`server.play.lobby_feed`), never on the per-move path. It must fit one frame (64 KiB, the default
limit of every client) however much the server holds (10,000 seeks, thousands of matches): each
list stops at `protocol.MAX_LISTED` entries or `LIST_BYTES` of encoded entries, whichever comes
first, and says how many it left out. Only the entries shown are built, so a listing costs the
same with 10,000 seeks open as with 50.

A seek's `unpaired` compares it with the oldest other open seek of its game: two seeks of one
game that differ in options, time control or a challenge never pair, and nothing else would say
so (a bot on the default `move=10` and a client seeking `move=2` would wait forever).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any, TypeVar

import msgpack

from arbiter import protocol
from arbiter.games import describe_options
from arbiter.server.play import messages
from arbiter.server.play.match import Match
from arbiter.server.play.seeks import Seek, Seeks
from arbiter.server.play.tournament_desk import Listed

LIST_BYTES = 20 * 1024
"""Encoded bytes of one list's entries: three lists and the envelope stay under 64 KiB."""
UNPAIRED_LEN = 200
"""Characters of an `unpaired` sentence (two long names and their options could pass it)."""

T = TypeVar("T")


def listing(
    seeks: Seeks,
    matches: Collection[Match],
    tournaments: Sequence[Listed],
    now: float,
    following: bool,
) -> protocol.LobbyListing:
    """The listing as it stands at `now` (the live matches' clocks run)."""
    shown_seeks = _bounded(seeks.casual(), lambda seek: seek_entry(seek, seeks))
    shown_matches = _bounded(matches, lambda match: match_entry(match, now))
    shown_tournaments = _bounded(tournaments, lambda tournament: tournament.listed())
    return protocol.LobbyListing(
        seeks=shown_seeks,
        matches=shown_matches,
        tournaments=shown_tournaments,
        seeks_left_out=seeks.casual_count - len(shown_seeks),
        matches_left_out=len(matches) - len(shown_matches),
        tournaments_left_out=len(tournaments) - len(shown_tournaments),
        following=following,
    )


def _bounded(items: Iterable[T], entry: Callable[[T], dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries of the first items, up to `MAX_LISTED` of them and `LIST_BYTES` encoded."""
    entries: list[dict[str, Any]] = []
    size = 0
    for item in itertools.islice(items, protocol.MAX_LISTED):
        built = entry(item)
        size += len(msgpack.packb(built))
        if size > LIST_BYTES:
            break
        entries.append(built)
    return entries


def match_entry(match: Match, now: float) -> dict[str, Any]:
    """A live match at `now`: the clocks as they stand, the mover's running since its
    `your_turn` was written."""
    turn = match.turn
    time_left = clocks = to_move = None
    if turn is not None:
        used = turn.elapsed(now)
        to_move = match.game.seats[turn.seat]
        time_left = max(0.0, turn.clock.allowance() - used)
        clocks = messages.wire_clocks(match.control, match.clocks)
        if clocks is not None:
            clocks[turn.seat] = max(0.0, clocks[turn.seat] - used)
    return {
        "match": match.id,
        "game": match.game.name,
        "seats": list(match.game.seats),
        "players": match.players,
        "ply": match.state.ply,
        "to_move": to_move,
        "time_left": time_left,
        "clocks": clocks,
        "time": match.control.to_wire(),
    }


def seek_entry(seek: Seek, seeks: Seeks) -> dict[str, Any]:
    rival = seeks.rival(seek)
    return {
        "seek": seek.id,
        "player": seek.name,
        "game": seek.game.name,
        "options": seek.options,
        "time": seek.time_control.to_wire(),
        "opponent": seek.opponent,
        "unpaired": None if rival is None else unpaired(seek, rival),
    }


def unpaired(mine: Seek, rival: Seek) -> str | None:
    """Why `mine` does not pair with `rival`, from `mine`'s side: `"alice seeks move=2, this
    seek move=10"`, `"this seek challenges bob"`; None if nothing keeps them apart."""
    theirs, ours = [], []
    if mine.options != rival.options:
        theirs.append(describe_options(rival.options))
        ours.append(describe_options(mine.options))
    if mine.time_control != rival.time_control:
        theirs.append(rival.time_control.describe())
        ours.append(mine.time_control.describe())
    reasons = [f"{rival.name} seeks {' '.join(theirs)}, this seek {' '.join(ours)}"] if ours else []
    if rival.opponent not in (None, mine.name):
        reasons.append(f"{rival.name} challenges {rival.opponent}")
    if mine.opponent not in (None, rival.name):
        reasons.append(f"this seek challenges {mine.opponent}, not {rival.name}")
    if not reasons:
        return None
    sentence = "; ".join(reasons)
    return sentence if len(sentence) <= UNPAIRED_LEN else sentence[: UNPAIRED_LEN - 3] + "..."
