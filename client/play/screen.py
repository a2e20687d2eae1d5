"""The screen, laid out as lines of Rich text for a terminal of a given size (80x24 at least).

    King's Court | match 1 | clock=600+5 | you play white        <- title
       A  B  C  D  E  F  G  H      move 5: white to move          <- the boards, and beside
    8  b  w  b  w  b  w  b  w  8   pieces: white 24, black 23        them (or below, when they
    ...                            last move: black G4F4             are wide) what to know
    (messages: a refusal, the legal moves, help)
    > white alice 9:58   black random 10:00                      <- both clocks, live
    white to play> b4c_                                          <- the input line

A message too long for the room under the boards takes the boards' place until an empty line
clears it. Pure: the table, the view and `now` in, lines out, so each game's screen can be
pinned as plain text by a test; `report_lines` is the same picture for a terminal that cannot
be redrawn (piped output), without the input line.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

from rich.text import Text

from arbiter.client.play.boards import drawing_for
from arbiter.client.play.boards.grid import picture_lines, seat_style
from arbiter.client.play.commands import LIST_SEPARATOR
from arbiter.client.play.table import Table

INFO_MIN = 30
"""The narrowest information column worth putting beside the boards."""
GUTTER = 3
CURSOR = "_"


@dataclass
class View:
    """What the screen shows besides the match: the line being typed and the messages."""

    typing: str = ""
    messages: tuple[str, ...] = ()
    said: list[tuple[str, ...]] = field(default_factory=list)
    """Every message shown so far, for a display that prints each one (the screen shows only
    the last)."""

    def say(self, *lines: str) -> None:
        self.messages = lines
        if lines:
            self.said.append(lines)


def title_line(table: Table) -> Text:
    parts = [table.game.title]
    if table.match is not None:
        parts.append(f"match {table.match}")
    if table.control is not None:
        parts.append(table.control.describe())
    if table.watching:
        parts.append("watching")
    elif len(table.local) == 1:
        parts.append(f"you play {table.seats[min(table.local)]}")
    elif len(table.local) == 2:
        parts.append("hot seat")
    return Text(" | ".join(parts), style="bold")


def info_lines(table: Table) -> list[str]:
    """Whose turn, the result, piece counts, the game's counters, the last move."""
    position = table.position()
    if position is None or table.state is None:
        return [table_status(table)]
    drawing = drawing_for(table.game.name)
    ply = table.state.ply
    if table.result is not None:
        lines = [f"game over after {ply} moves", table.result]
    else:
        seat = table.seat_to_move()
        lines = [f"move {ply + 1}: {'' if seat is None else table.seats[seat]} to move"]
    counts = drawing.pieces(position.data)
    lines.append(
        "pieces: "
        + ", ".join(f"{seat} {count}" for seat, count in zip(table.seats, counts, strict=True))
    )
    lines.extend(drawing.facts(position))
    if position.move is not None:
        mover = "" if position.mover is None else f"{table.seats[position.mover]} "
        lines.append(f"last move: {mover}{position.move}")
    return lines


def table_status(table: Table) -> str:
    if table.phase == "seeking":
        control = f" ({table.control.describe()})" if table.control else ""
        return f"seeking an opponent for {table.game.title}{control}; quit cancels"
    return "connecting..."


def clock_line(table: Table, now: float) -> Text:
    """`> white alice 9:58   black random 10:00`: the seat to move marked, colours by seat."""
    line = Text()
    to_move = table.seat_to_move()
    for seat, name in enumerate(table.seats):
        if seat:
            line.append("   ")
        marker = "> " if seat == to_move else "  "
        player = table.players[seat] or "?"
        you = " (you)" if seat in table.local and len(table.local) == 1 else ""
        line.append(f"{marker}{name}", style=seat_style(table.seats, seat))
        line.append(f" {player}{you} ")
        line.append(table.clocks.show(seat, now), style="bold")
    return line


def prompt_line(table: Table, view: View, width: int) -> Text:
    seat = table.seat_to_move()
    if seat is not None and seat in table.to_move:
        label = Text(f"{table.seats[seat]} to play", style=seat_style(table.seats, seat))
    elif seat is not None and seat in table.local:
        label = Text(f"{table.seats[seat]}, a moment")  # the server has not asked yet
    elif table.phase == "over":
        label = Text("game over")
    elif seat is not None and not table.watching and table.local:
        label = Text(f"{table.seats[seat]} is thinking")
    else:
        label = Text(table.phase if table.phase != "playing" else "watching")
    label.append("> " + view.typing)
    label.append(CURSOR, style="blink")
    if label.cell_len > width:  # keep the end of a long line in sight
        label = label[label.cell_len - width :]
    return label


def body_lines(table: Table, width: int) -> list[Text]:
    """The boards with the information beside them, or below them when there is no room."""
    position = table.position()
    picture: list[Text] = []
    if position is not None:
        drawing = drawing_for(table.game.name)
        picture = picture_lines(drawing.picture(position), table.seats)
    left = max((line.cell_len for line in picture), default=0)
    beside = bool(picture) and left + GUTTER + INFO_MIN <= width
    info_width = width - left - GUTTER if beside else width
    info = [Text(line) for raw in info_lines(table) for line in _wrap(raw, info_width)]
    if not beside:
        return [*picture, *([Text()] if picture else []), *info]
    rows = []
    for index in range(max(len(picture), len(info))):
        line = picture[index].copy() if index < len(picture) else Text()
        if index < len(info):
            line.pad_right(left + GUTTER - line.cell_len)
            line.append_text(info[index])
        rows.append(line)
    return rows


def message_lines(messages: tuple[str, ...], width: int) -> list[Text]:
    return [
        Text(line, style="bold" if number == 0 else "")
        for number, message in enumerate(messages)
        for line in _wrap(message, width)
    ]


def screen_lines(table: Table, view: View, width: int, height: int, now: float) -> list[Text]:
    """Exactly `height` lines of at most `width` cells: the whole screen."""
    room = height - 3
    body = body_lines(table, width)
    messages = message_lines(view.messages, width)
    if messages and len(body) + 1 + len(messages) <= room:
        body = [*body, Text(), *messages]
    elif messages:
        body = _overlay(messages, room)
    body = [line[:width] for line in body[:room]]
    body += [Text()] * (room - len(body))
    return [
        title_line(table)[:width],
        *body,
        clock_line(table, now)[:width],
        prompt_line(table, view, width),
    ]


def report_lines(table: Table, width: int, now: float) -> list[Text]:
    """The screen for a display that only scrolls: title, boards, information, clocks."""
    return [title_line(table), *body_lines(table, width), clock_line(table, now)]


def _overlay(messages: list[Text], room: int) -> list[Text]:
    """A long message in the boards' place, cut to the room with a note of what is left."""
    if len(messages) <= room:
        return messages
    hidden = len(messages) - room + 1
    note = f"... {hidden} more lines (narrow a list with ? and the start of a move)"
    return [*messages[: room - 1], Text(note, style="dim")]


def _wrap(text: str, width: int) -> list[str]:
    if LIST_SEPARATOR not in text:
        return textwrap.wrap(text, width, subsequent_indent="  ") or [""]
    lines = [""]
    for item in text.split(LIST_SEPARATOR):
        joined = f"{lines[-1]}{LIST_SEPARATOR}{item}" if lines[-1] else item
        if len(joined) <= width or not lines[-1]:
            lines[-1] = joined[:width]
        else:
            lines.append(item[:width])
    return lines
