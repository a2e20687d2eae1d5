"""A `tournament` message printed for people: standings, crosstable and the games, as tables.

Everything shown comes from the message as the server sent it (the server computes points,
tiebreaks and ratings), so every client prints the same numbers.
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from arbiter import protocol
from arbiter.server.app import DEFAULT_KINDS

LEGEND = (
    "G games, W won, D drawn, L lost, F double forfeits (0 each); defaults score 0 and count"
    " apart; SB Sonneborn-Berger tiebreak; Elo from the rated games, ± its 95% margin"
)


def score_text(score: float) -> str:
    return {1.0: "1", 0.5: "½", 0.0: "0"}.get(score, f"{score:g}")


def result_text(game: dict[str, Any]) -> str:
    """`1-0`, `½-½`, `0-0`..., with the default's kind: `0-1 (time)`."""
    if game["status"] != "finished":
        return str(game["status"])
    text = "-".join(score_text(score) for score in game["scores"])
    kinds = [kind for kind in game["defaults"] if kind]
    return f"{text} ({', '.join(kinds)})" if kinds else text


def defaults_text(counts: dict[str, int]) -> str:
    total = sum(counts.values())
    if not total:
        return "0"
    kinds = ", ".join(f"{kind} {counts[kind]}" for kind in DEFAULT_KINDS if counts.get(kind))
    return f"{total} ({kinds})"


SWISS_LEGEND = "; Bh Buchholz (the opponents' points), byes scoring 1 each"


def format_text(status: protocol.Tournament) -> str:
    """`swiss `, `knockout `...: the format before the title's `standings`, unless it is the
    double round robin (the only one a server of version 1 runs)."""
    return "" if status.format in (None, "round-robin") else f"{status.format} "


def standings_table(status: protocol.Tournament) -> Table:
    swiss = status.format == "swiss"
    table = Table(
        title=f"{status.name}: {format_text(status)}standings ({status.status})",
        caption=LEGEND + (SWISS_LEGEND if swiss else ""),
        box=box.SIMPLE_HEAVY,
    )
    for header in ("#", "player", "pts", "G", "W", "D", "L", "F"):
        table.add_column(header, justify="left" if header == "player" else "right")
    table.add_column("defaults")
    for header in ("Bh", "byes", "SB", "Elo", "±") if swiss else ("SB", "Elo", "±"):
        table.add_column(header, justify="right")
    for line in status.standings:
        swiss_cells = (f"{line['buchholz']:g}", str(line["byes"])) if swiss else ()
        table.add_row(
            str(line["rank"]),
            line["player"],
            f"{line['points']:g}",
            str(line["games"]),
            str(line["wins"]),
            str(line["draws"]),
            str(line["losses"]),
            str(line["forfeits"]),
            defaults_text(line["defaults"]),
            *swiss_cells,
            f"{line['tiebreak']:g}",
            f"{line['rating']:.0f}",
            f"{line['margin']:.0f}",
        )
    return table


def crosstable(status: protocol.Tournament) -> Table:
    """Rows and columns in standings order; a cell lists the row player's scores."""
    table = Table(title="crosstable (row player's scores)", box=box.SIMPLE_HEAVY)
    table.add_column("#", justify="right")
    table.add_column("player")
    for line in status.standings:
        table.add_column(str(line["rank"]), justify="center")
    table.add_column("points", justify="right")
    for line in status.standings:
        cells = [
            "-"
            if other["player"] == line["player"]
            else " ".join(map(score_text, line["against"].get(other["player"], [])))
            for other in status.standings
        ]
        table.add_row(str(line["rank"]), line["player"], *cells, f"{line['points']:g}")
    return table


def games_table(status: protocol.Tournament) -> Table:
    done = sum(1 for game in status.games if game["status"] == "finished")
    table = Table(
        title=f"{status.name}: {status.game}, {status.status}, {done}/{len(status.games)} games",
        box=box.SIMPLE_HEAVY,
    )
    for header in ("#", "round", "first", "second", "result", "reason", "match"):
        table.add_column(header, justify="right" if header in ("#", "round", "match") else "left")
    for game in status.games:
        table.add_row(
            str(game["number"]),
            str(game["round"]),
            game["first"],
            game["second"],
            result_text(game),
            game.get("reason") or "",
            "" if game["match"] is None else str(game["match"]),
        )
    return table


def print_standings(status: protocol.Tournament, console: Console) -> None:
    console.print(standings_table(status))
    console.print(crosstable(status))
    if status.bracket is not None:
        console.print(bracket_table(status.bracket))


def bracket_table(ties: list[dict[str, Any]]) -> Table:
    """A knockout's ties, round by round: the seeds, their points, who went through."""
    table = Table(title="bracket", box=box.SIMPLE_HEAVY)
    for header in ("round", "higher seed", "lower seed", "points", "through"):
        table.add_column(header, justify="right" if header == "round" else "left")
    for tie in ties:
        lower = tie["lower"]
        points = "-".join(f"{p:g}" for p in tie["points"]) if lower is not None else "bye"
        table.add_row(str(tie["round"]), tie["higher"], lower or "", points, tie["winner"] or "")
    return table


def print_games(status: protocol.Tournament, console: Console) -> None:
    console.print(games_table(status))
    print_standings(status, console)
