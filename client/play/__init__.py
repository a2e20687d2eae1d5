"""The terminal client for people: `arbiter play` and `arbiter watch`.

One module per concern, each usable alone:

- `boards/`: any game's boards drawn from the description its rules module gives
  (`Game.boards`); the text grids, coordinates, colours by seat and the last move in `grid.py`;
- `table`: the match as this terminal knows it, from the server's messages (pure);
- `clocks`: both clocks counting down between the server's reports (pure);
- `commands`: what a typed line asks for, moves checked with the game's rules first (pure);
- `screen`: the 80x24 layout as lines of Rich text (pure, so each screen is snapshot-tested);
- `keyboard`: the line editor, and reading keys without blocking trio;
- `terminal`: the live full screen, or plain scrolling output without a terminal;
- `session`: the loop from connections and keyboard to table, screen and moves;
- `modes`: on a server, against a local agent, hot seat, watching; `cli`: the arguments.
"""
