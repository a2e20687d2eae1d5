"""`/ladder/GAME`, and `/ladder/GAME?section=CLASS/SECTION` for a class's section's: a ladder
as a page built on the server, with no script: the table (each rating with its uncertainty drawn
as a bar), and per entrant its rating's history as an inline SVG chart and its recent games
linked to their replay pages (`/match/N`).

The page reads the store (`tournaments.ladder_view`), as the `ladder` request does, so it shows
what a restarted server resumes from. Every name on it is escaped: entrants are authors' names
and their agents', chosen by the people uploading them.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from arbiter.games import GAME_NAMES
from arbiter.server.storage.accounts import AccountError
from arbiter.server.storage.errors import StoreError
from arbiter.server.storage.interface import Storage
from arbiter.server.storage.ladders import LadderScope
from arbiter.server.tournaments import ladder_view
from arbiter.server.tournaments.ladder_view import Played, TableLine, unpaired
from arbiter.server.web.page_shell import page

RECENT_GAMES = 10
"""Games listed under each entrant's chart, the latest first."""
CHART_WIDTH, CHART_HEIGHT, MARGIN = 480, 160, 6
BAR_WIDTH = 160
"""The uncertainty bar's width in the table, in pixels."""
STORE_FAILED = "the ladder cannot be read now (the server's log says why): try again later"


class LadderPages:
    """The route of the ladder pages, for one server's store."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def routes(self) -> list[BaseRoute]:
        return [Route("/ladder/{game}", self.ladder, methods=["GET"])]

    async def ladder(self, request: Request) -> Response:
        game = request.path_params["game"]
        if game not in GAME_NAMES:
            return page("Ladder", f"<p>There is no game {html.escape(game)}.</p>", 404)
        try:
            scope = LadderScope.of(game, request.query_params.get("section"))
            reading = await ladder_view.read(self.storage, scope)
        except StoreError:
            return page("Ladder", f'<p class="error">{STORE_FAILED}</p>', 503)
        except AccountError as error:  # a section not written CLASS/SECTION, or no such class
            return page("Ladder", f"<p>{html.escape(str(error))}.</p>", 404)
        title = (
            f"{game} ladder"
            if scope.section_label is None
            else f"{game} {scope.section_label} ladder"
        )
        stored = reading.stored
        if not stored.ratings:
            return page(title, f"<p>This server keeps no {html.escape(title)}.</p>", 404)
        lines = reading.table()
        sections = [_entrant(line, ladder_view.history(stored, line.entrant)) for line in lines]
        return page(title, f"<h1>{html.escape(title)}</h1>{_table(lines)}{''.join(sections)}")


def _table(lines: Sequence[TableLine]) -> str:
    """The table, best first; the bar spans `mu - 3 sigma` to `mu + 3 sigma` on one scale for
    every line, so a wide bar is an entrant the ladder is not sure of yet."""
    low = min(line.rating for line in lines)
    high = max(line.mu + (line.mu - line.rating) for line in lines)
    rows = "".join(_row(line, low, high) for line in lines)
    return (
        "<p>Ranked by rating, <var>mu</var> &minus; 3 <var>sigma</var>: a rating the entrant is"
        " almost surely above. The bar spans <var>mu</var> &plusmn; 3 <var>sigma</var>.</p>"
        '<table class="ladder"><thead><tr><th>rank</th><th>entrant</th><th>rating</th>'
        "<th>mu</th><th>sigma</th><th>uncertainty</th><th>games</th><th>last game</th>"
        "<th>league</th>"
        f"</tr></thead><tbody>{rows}</tbody></table>"
    )


def _row(line: TableLine, low: float, high: float) -> str:
    name = html.escape(line.entrant) + ("" if line.active else f" ({unpaired(line.entrant)})")
    last = "-" if line.last is None else _match_link(line.last.match_id)
    return (
        f'<tr data-entrant="{html.escape(line.entrant)}"><td>{line.rank}</td>'
        f'<td><a href="#{_anchor(line.entrant)}">{name}</a></td>'
        f"<td>{line.rating:.2f}</td><td>{line.mu:.2f}</td><td>{line.sigma:.2f}</td>"
        f"<td>{_bar(line, low, high)}</td><td>{line.games}</td><td>{last}</td>"
        f"<td>{html.escape(line.league or '-')}</td></tr>"
    )


def _bar(line: TableLine, low: float, high: float) -> str:
    span = max(high - low, 1e-9)

    def x(value: float) -> float:
        return round((value - low) / span * BAR_WIDTH, 1)

    left, right = x(line.rating), x(line.mu + (line.mu - line.rating))
    return (
        f'<svg class="uncertainty" width="{BAR_WIDTH}" height="12" role="img"'
        f' aria-label="{line.rating:.1f} to {line.mu + (line.mu - line.rating):.1f}">'
        f'<rect x="{left}" y="3" width="{max(right - left, 1)}" height="6" fill="#9bb"/>'
        f'<rect x="{x(line.mu) - 1}" y="0" width="2" height="12" fill="#234"/></svg>'
    )


def _entrant(line: TableLine, played: Sequence[Played]) -> str:
    name = html.escape(line.entrant)
    recent = "".join(_game_item(game) for game in reversed(played[-RECENT_GAMES:]))
    return (
        f'<section class="entrant" id="{_anchor(line.entrant)}"><h2>{name}</h2>'
        f'{chart(played)}<ul class="recent">{recent}</ul></section>'
    )


def _game_item(game: Played) -> str:
    change = game.change
    verb = {1.0: "won against", 0.5: "drew with"}.get(change.score, "lost to")
    return (
        f"<li>{_match_link(change.match_id)}: {verb} {html.escape(game.opponent)},"
        f" mu {change.mu_before:.2f} &rarr; {change.mu_after:.2f}</li>"
    )


def chart(played: Sequence[Played]) -> str:
    """The rating's history as an SVG: `mu` as a line, `mu` &plusmn; 3 `sigma` as a band, one
    step per game (the first point is the rating before the first game)."""
    if not played:
        return ""
    points = [(played[0].change.mu_before, played[0].change.sigma_before)]
    points += [(game.change.mu_after, game.change.sigma_after) for game in played]
    low = min(mu - 3 * sigma for mu, sigma in points)
    high = max(mu + 3 * sigma for mu, sigma in points)
    step = (CHART_WIDTH - 2 * MARGIN) / max(len(points) - 1, 1)

    def at(index: int, value: float) -> str:
        y = (
            CHART_HEIGHT
            - MARGIN
            - (value - low) / max(high - low, 1e-9) * (CHART_HEIGHT - 2 * MARGIN)
        )
        return f"{MARGIN + index * step:.1f},{y:.1f}"

    upper = [at(i, mu + 3 * sigma) for i, (mu, sigma) in enumerate(points)]
    lower = [at(i, mu - 3 * sigma) for i, (mu, sigma) in enumerate(points)]
    line = [at(i, mu) for i, (mu, _) in enumerate(points)]
    return (
        f'<svg class="history" width="{CHART_WIDTH}" height="{CHART_HEIGHT}" role="img"'
        f' aria-label="rating history over {len(played)} games">'
        f'<polygon points="{" ".join(upper + lower[::-1])}" fill="#cdd"/>'
        f'<polyline points="{" ".join(line)}" fill="none" stroke="#234" stroke-width="2"/>'
        "</svg>"
    )


def _match_link(match_id: int) -> str:
    return f'<a class="replay" href="/match/{match_id}">match {match_id}</a>'


def _anchor(entrant: str) -> str:
    """An id for the entrant's section: each character other than an ASCII letter or digit as
    `_` and its code point, so two entrants never share one."""
    return "entrant-" + "".join(
        c if c.isascii() and c.isalnum() else f"_{ord(c):x}" for c in entrant
    )
