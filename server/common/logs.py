"""The server's log: one line per thing an operator asks about afterwards (a connection opened
or closed, a match started or ended, a seat defaulted, a tournament moved on), on stderr.

A line is an event: a short name (`match_ended`) and its fields (`id=7 result=win ...`), so a
person can read it and a machine can filter it. `event` is the one call the other modules make;
`configure` (run by `arbiter-server` alone) decides the level and the form, text or JSON lines.
Nothing is logged per move at `info`: a move is the server's hot path, and a match's start and
end say what a game did. A server run in-process (the tests, `arbiter play`) logs only warnings
and errors, Python's default, and its `info` events cost one level check.

Fields never hold a token: the callers pass names, ids and sentences only.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Mapping
from typing import Any, Final

LEVELS: Final = ("debug", "info", "warning", "error")
FORMATS: Final = ("text", "json")
FIELDS: Final = "arbiter_fields"
"""The `LogRecord` attribute an event's fields travel in (`extra`)."""


def event(log: logging.Logger, name: str, /, level: int = logging.INFO, **fields: Any) -> None:
    """Log the event `name` with its fields, if `log` is on at `level` (nothing is formatted
    otherwise)."""
    if log.isEnabledFor(level):
        log.log(level, name, extra={FIELDS: fields})


def configure(level: str = "info", form: str = "text") -> None:
    """Send every logger's records at `level` or above to stderr, as text or JSON lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines() if form == "json" else TextLines())
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())


def fields_of(record: logging.LogRecord) -> Mapping[str, Any]:
    found: Mapping[str, Any] = getattr(record, FIELDS, {})
    return found


def timestamp(record: logging.LogRecord) -> str:
    """UTC, to the millisecond: `2026-11-24T03:48:00.123Z`."""
    seconds = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
    return f"{seconds}.{int(record.msecs):03d}Z"


class TextLines(logging.Formatter):
    """`2026-11-24T03:48:00.123Z INFO match_ended id=7 result=win reason="..."`: a value with
    a space, a quote or an `=` in it is quoted as JSON, so the line still splits on spaces."""

    def format(self, record: logging.LogRecord) -> str:
        parts = [timestamp(record), record.levelname, record.getMessage()]
        parts += [f"{key}={_text(value)}" for key, value in fields_of(record).items()]
        line = " ".join(parts)
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


class JsonLines(logging.Formatter):
    """One JSON object a line: `time`, `level`, `event`, then the event's fields. A record that
    is not an event (a library's message, an exception) has its sentence as `event`, and the
    traceback as `exception`."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": timestamp(record),
            "level": record.levelname.lower(),
            "event": record.getMessage(),
            "logger": record.name,
        }
        line.update(fields_of(record))
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


def _text(value: Any) -> str:
    if isinstance(value, list | tuple):
        value = ",".join(str(item) for item in value)
    text = str(value)
    if not text or any(char in text for char in ' "=\n'):
        return json.dumps(text)
    return text
