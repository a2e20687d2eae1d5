"""`arbiter lobby`'s tables fit a terminal of 80 columns: the why-unpaired sentences go under
the seeks table, whole, instead of wrapping a word a line in a column of their own."""

from __future__ import annotations

from rich.console import Console

from arbiter import protocol
from arbiter.client.lobby_view import tables

WHY = "alice-the-long-named seeks move=2, this seek move=10"


def seek(number: int, player: str, unpaired: str | None) -> dict[str, object]:
    return {
        "seek": number,
        "player": player,
        "game": "watch-your-back",
        "options": {"no_capture_limit": 100},
        "time": {"move": 10.0},
        "opponent": None,
        "unpaired": unpaired,
    }


def rendered(listing: protocol.LobbyListing) -> list[str]:
    console = Console(width=80, record=True, force_terminal=False)
    console.print(tables(listing))
    return console.export_text().splitlines()


def test_the_tables_fit_80_columns_and_each_reason_reads_as_one_sentence() -> None:
    listing = protocol.LobbyListing(
        seeks=[seek(1, "alice-the-long-named", None), seek(2, "carol", WHY)],
        matches=[],
        tournaments=[],
    )
    lines = rendered(listing)
    assert max(len(line) for line in lines) <= 80
    assert f"  seek 2 is unpaired: {WHY}" in lines
    assert not any("seek 1 is unpaired" in line for line in lines)
    row = next(line for line in lines if "carol" in line)
    assert "watch-your-back" in row
    assert "move=10" in row
    assert "anyone" in row
