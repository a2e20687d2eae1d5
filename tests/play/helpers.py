"""Driving the real `arbiter` in a pseudo-terminal and reading its screen as plain text.

The program redraws a full screen, so its output is a stream of frames full of escape codes;
`Terminal` strips the codes and searches the text that has arrived since its last match, which
is how a person reads the screen: what is there now, never what was there before.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parents[2]
ESCAPE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78])"
)
TRAILING_SPACES = re.compile(r" +\n")
"""The padding of each line of a full screen, which a pattern should not have to spell out."""
SGR = re.compile(r"\x1b\[([0-9;]*)m")
KEEP = 200_000
"""Characters of unmatched output kept: frames repeat, so older ones are never needed."""


class Terminal:
    def __init__(self, *args: str, env: dict[str, str] | None = None, timeout: float = 30):
        environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS")}
        environment.update({"TERM": "xterm-256color", "LINES": "24", **(env or {})})
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "arbiter.client.cli", *args],
            env=environment,
            dimensions=(24, 80),
            encoding="utf-8",
            codec_errors="replace",
            cwd=str(ROOT),
            timeout=timeout,
        )
        self.timeout = timeout
        self.raw = ""
        """Everything the program wrote, escape codes included."""
        self.text = ""
        self._pending = ""

    def type(self, line: str) -> None:
        self.child.send(line + "\r")

    def expect(self, pattern: str, timeout: float | None = None) -> re.Match[str]:
        """Wait for `pattern` in the plain text written since the last match; consume to it."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while (found := regex.search(self.text)) is None:
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(min(left, 0.5)):
                raise AssertionError(
                    f"never saw {pattern!r}; the screen ended:\n{self.text[-2500:]}"
                )
        self.text = self.text[found.end() :]
        return found

    def expect_words(self, sentence: str, timeout: float | None = None) -> re.Match[str]:
        """Wait for a sentence, however the screen wrapped it."""
        return self.expect(r"\s+".join(re.escape(word) for word in sentence.split()), timeout)

    def wait_exit(self, timeout: float | None = None) -> int:
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while self._read(max(0.0, deadline - time.monotonic())):
            if time.monotonic() > deadline:
                raise AssertionError(f"the program did not end:\n{self.text[-2500:]}")
        self.child.wait()
        status: int = self.child.exitstatus
        return status

    def close(self) -> None:
        self.child.close(force=True)

    def _read(self, timeout: float) -> bool:
        """Read what arrived within `timeout`; False once the program has ended."""
        try:
            chunk = self.child.read_nonblocking(1 << 16, timeout)
        except pexpect.TIMEOUT:
            return True
        except pexpect.EOF:
            return False
        self.raw += chunk
        data = self._pending + chunk
        cut = data.rfind("\x1b")
        if cut >= 0 and not ESCAPE.match(data, cut):
            data, self._pending = data[:cut], data[cut:]  # an escape code cut in two
        else:
            self._pending = ""
        plain = self.text + ESCAPE.sub("", data).replace("\r", "")
        self.text = TRAILING_SPACES.sub("\n", plain)[-KEEP:]
        return True


def colour_codes(raw: str) -> list[str]:
    """The colour parameters of every style code in `raw` (bold, dim, reverse are not colour)."""
    found = []
    for params in SGR.findall(raw):
        numbers = [int(p) for p in params.split(";") if p]
        found += [str(n) for n in numbers if 30 <= n <= 49 or 90 <= n <= 107]
    return found


def move_list(screen_text: str) -> list[str]:
    """The moves of a `?` answer: the lines after its heading, up to a blank line."""
    moves: list[str] = []
    for line in screen_text.splitlines():
        if not line.strip() or line.startswith("..."):
            break
        moves += re.split(r"\s{2,}", line.strip())
    return moves
