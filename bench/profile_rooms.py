"""Where a profiled server spends its time, by room: a py-spy raw profile summed up.

    py-spy record --gil -p PID -d 6 -f raw -o profile.txt
    python bench/profile_rooms.py profile.txt [--top 30]

Each sample is charged to its innermost frame in Arbiter's rooms, trio or msgpack (so time
inside the standard library counts for whoever called it), and summed three ways: by room
(the server by wing: `server/play`, `server/connection`...), by function (self time), and by
function of ours with everything it called (inclusive time, each function once per sample).
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

CHARGED = ("games/", "protocol/", "server/", "agents/", "trio/", "msgpack/")
"""Where a sample's time is charged: these folders' frames, the innermost first."""
OURS = CHARGED[:4]
FRAME = re.compile(r"(?P<function>.*) \((?P<file>.*):\d+\)$")


def frames(stack: str) -> list[tuple[str, str]]:
    """(function, file) of each frame of a collapsed stack, outermost first."""
    found = (FRAME.match(frame) for frame in stack.split(";"))
    return [(match["function"], match["file"]) for match in found if match]


def room(file: str) -> str:
    """`games`, `protocol`, `trio`...; the server by its wing, `server/play`."""
    parts = file.split("/")
    return "/".join(parts[:2]) if parts[0] == "server" and len(parts) > 2 else parts[0]


def summarize(lines: list[str]) -> tuple[int, Counter[str], Counter[str], Counter[str]]:
    """Samples in all, and the samples by room, by function's own time and inclusive time."""
    rooms: Counter[str] = Counter()
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for line in lines:
        stack, _, count = line.rstrip().rpartition(" ")
        samples, stacked = int(count), frames(stack)
        total += samples
        charged = [frame for frame in stacked if frame[1].startswith(CHARGED)]
        function, file = charged[-1] if charged else ("(elsewhere)", "")
        rooms[room(file) if file else "(elsewhere)"] += samples
        own[f"{function} ({file})"] += samples
        for function, file in {frame for frame in stacked if frame[1].startswith(OURS)}:
            inclusive[f"{function} ({file})"] += samples
    return total, rooms, own, inclusive


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("profile", type=Path, help="py-spy's output with -f raw")
    parser.add_argument("--top", type=int, default=30, help="functions listed per table")
    args = parser.parse_args()
    total, rooms, own, inclusive = summarize(args.profile.read_text().splitlines())
    print(f"{total} samples")
    for title, counts, top in (
        ("by room", rooms, None),
        ("by function, own time", own, args.top),
        ("by function, with what it called", inclusive, args.top),
    ):
        print(f"\n{title}:")
        for name, samples in counts.most_common(top):
            print(f"  {100 * samples / total:5.1f}%  {name}")


if __name__ == "__main__":
    main()
