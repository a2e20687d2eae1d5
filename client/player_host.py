"""The Player module's side of the pipe: what runs in the child process `PlayerAgent` starts.

A child is started for every game (a fresh module, as the original referee gave each game), so
what it imports is paid once per game: this module needs only the standard library and
`arbiter.games` (whose game modules load on first use), not the client, trio or the agents
that the adapter's own side (`player_module.py`) brings in.

`python -m arbiter.client.player_host PATH` loads the module at PATH and serves calls to its
`Player`, one JSON line each way per call, until the pipe closes.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any, TextIO

from arbiter.games import as_tuples


def host(path: str) -> None:
    """Load the module at `path` and serve calls to its `Player` until the pipe closes.

    After the first exception the module's state is unknown, so the child reports it and exits.
    """
    requests, replies = _take_standard_streams()
    try:
        player_class = _load_player_class(Path(path))
    except BaseException as error:
        _reply(replies, {"error": _module_traceback(error)})
        return
    _reply(replies, {"ready": True})
    player: Any = None
    for line in requests:
        request = json.loads(line)
        try:
            if request["call"] == "init":
                player = player_class(request["colour"])
                result = None
            elif request["call"] == "start":
                if hasattr(player, "start"):
                    player.start(request["state"])
                result = None
            elif request["call"] == "update":
                player.update(as_tuples(request["action"]))
                result = None
            else:
                result = _plain(player.action(request["turns"]))
        except BaseException as error:
            _reply(replies, {"error": _module_traceback(error)})
            return
        _reply(replies, {"result": result})


def _take_standard_streams() -> tuple[TextIO, TextIO]:
    """The pipe's two ends, moved off fds 0 and 1 so the module can neither read nor print
    into them: its prints go to stderr and `input()` sees an empty stdin."""
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 (lives as long as the process)
    return requests, replies


def _load_player_class(path: Path) -> Any:
    """`Player` from the file at `path`, its folder first on `sys.path` for its own imports."""
    sys.path.insert(0, str(path.resolve().parent))
    spec = importlib.util.spec_from_file_location("player_module", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules["player_module"] = module
    spec.loader.exec_module(module)
    player_class = getattr(module, "Player", None)
    if player_class is None:
        raise AttributeError(f"{path} defines no Player class")
    return player_class


def _plain(value: Any) -> Any:
    """`value` as JSON can carry it (tuples become lists); `TypeError` for anything else."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if hasattr(value, "__index__"):  # numpy's integers, which students' boards often hold
        return int(value.__index__())
    if isinstance(value, list | tuple):
        return [_plain(part) for part in value]
    raise TypeError(f"action() returned {value!r}, which is not a move (type {type(value)})")


def _module_traceback(error: BaseException) -> str:
    """The traceback from the module's first frame on: this file's frames are noise to them."""
    frames = error.__traceback__
    while frames is not None and frames.tb_frame.f_code.co_filename == __file__:
        frames = frames.tb_next
    return "".join(traceback.format_exception(type(error), error, frames))


def _reply(replies: TextIO, message: dict[str, Any]) -> None:
    """Answer the client; if it is gone (its process ended, as a finished tournament's are
    stopped), nobody is left to answer or to read a traceback: the host ends at once, quietly
    (`os._exit`, or flushing the broken pipe at exit would print one)."""
    try:
        replies.write(json.dumps(message) + "\n")
        replies.flush()
    except BrokenPipeError:
        os._exit(0)


if __name__ == "__main__":
    host(sys.argv[1])
