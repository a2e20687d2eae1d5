"""How a sandboxed run ended, told from what is known once it is over; pure.

Three things are known: the limit the watchdog stopped it for (CPU, wall clock, output,
processes, or the caller's own stop), the exit status of the sandbox, and the tail of what the
run printed. The watchdog's reason wins. Otherwise the status says how: bubblewrap passes its
command's status on, and a command killed by a signal N comes out as status 128 + N (so a
program that exits with such a status on purpose reads as killed; no program of ours does).
The kernel's own limits show up as signals (SIGXCPU for a process's CPU limit, SIGXFSZ for the
file size limit) or as a failed call the program reports on its way out: an allocation refused
under the memory limit, a write refused on a full scratch folder, a fork refused at the process
limit. Those last three are read from the program's last words, which every runtime prints in
one of a few known ways.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass

from arbiter.client.sandbox.limits import EndingKind, Limits

SIGNAL_BASE = 128
"""A shell's (and bubblewrap's) convention: a command killed by signal N exits with 128 + N."""

MEMORY_WORDS = (b"MemoryError", b"Cannot allocate memory", b"out of memory", b"bad_alloc")
DISK_WORDS = (b"No space left on device", b"File too large")
PROCESS_WORDS = (b"Resource temporarily unavailable", b"BlockingIOError")
LAST_WORDS = 4096
"""How much of the end of the output is read for a runtime's last words."""


@dataclass(frozen=True, slots=True)
class Ending:
    """Why a run ended (`kind`) and the sentence that tells a person, as a default records it."""

    kind: EndingKind
    sentence: str
    status: int | None = None

    @property
    def normal(self) -> bool:
        """Whether the run ended on its own with status 0."""
        return self.kind is EndingKind.EXIT and self.status == 0


def ending(limits: Limits, status: int, stopped_for: EndingKind | None, output: bytes) -> Ending:
    """The ending of a run whose sandbox exited with `status` (negative: killed by that signal
    from outside), stopped by the watchdog for `stopped_for` (None if it ended on its own),
    having printed `output` (its kept part)."""
    if stopped_for is EndingKind.STOPPED:
        return Ending(EndingKind.STOPPED, "stopped by its caller", status)
    if stopped_for is not None:
        return Ending(stopped_for, limits.sentence(stopped_for), status)
    number = -status if status < 0 else status - SIGNAL_BASE if status > SIGNAL_BASE else 0
    last_words = output[-LAST_WORDS:]
    if number == signal.SIGXCPU and limits.cpu_seconds is not None:
        return Ending(EndingKind.CPU, limits.sentence(EndingKind.CPU), status)
    if number == signal.SIGXFSZ:
        return Ending(EndingKind.DISK, limits.sentence(EndingKind.DISK), status)
    if number:
        return Ending(EndingKind.SIGNAL, f"crash: killed by {_signal_name(number)}", status)
    if status == 0:
        return Ending(EndingKind.EXIT, "ended normally", status)
    for kind, words in (
        (EndingKind.MEMORY, MEMORY_WORDS),
        (EndingKind.DISK, DISK_WORDS),
        (EndingKind.PROCESSES, PROCESS_WORDS),
    ):
        if any(word in last_words for word in words):
            return Ending(kind, limits.sentence(kind), status)
    return Ending(EndingKind.EXIT, f"crash: exited with status {status}", status)


def _signal_name(number: int) -> str:
    try:
        return f"{signal.Signals(number).name} ({signal.strsignal(number)})"
    except ValueError:
        return f"signal {number}"
