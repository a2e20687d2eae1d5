"""`arbiter submit`, `arbiter submissions`, `arbiter retire`, `arbiter logs`: an author's agents
on a server.

A file or a folder is read here (the only part that touches the disk: symlinks that leave the
folder, and folders past the file limit, are refused while reading), packed by
`protocol.submission` (the checks the server runs too, so a refusal comes before any upload),
and sent in parts under the frame limit, with a progress line for a large one. The requests
are plain request and answer over one connection; a worker fetches archives with `fetch`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from arbiter.client.options import add_server_option, server_tls
from arbiter.games import GAME_NAMES
from arbiter.protocol.submission import (
    FORMS,
    LANGUAGES,
    MAX_FILES,
    Hints,
    SubmissionError,
    content_hash,
    guess_manifest,
    pack,
)

M = TypeVar("M", bound=protocol.Message)
SKIPPED = frozenset({".git", "__pycache__", ".mypy_cache", ".pytest_cache", ".DS_Store"})
"""Names left out of a folder: a version control's or a tool's, never the agent's."""
Progress = Callable[[int, int], None]
"""Called with (bytes sent, bytes in all) after each part."""


def read_path(path: Path) -> dict[str, bytes]:
    """A file's or a folder's files by relative POSIX path; `SubmissionError` for a symlink that
    leads out of the folder, or for more files than a submission holds."""
    if path.is_file():
        return {path.name: path.read_bytes()}
    if not path.is_dir():
        raise SubmissionError(f"{str(path)!r} is neither a file nor a folder")
    root = path.resolve()
    files: dict[str, bytes] = {}
    for folder, names, file_names in os.walk(root, followlinks=False):
        names[:] = sorted(name for name in names if name not in SKIPPED)
        for name in sorted(file_names):
            if name in SKIPPED or name.endswith(".pyc"):
                continue
            file = Path(folder, name)
            relative = file.relative_to(root).as_posix()
            if not file.resolve().is_relative_to(root):
                raise SubmissionError(f"{relative!r} is a link that leads out of the folder")
            files[relative] = file.read_bytes()
            if len(files) > MAX_FILES:
                raise SubmissionError(f"over {MAX_FILES} files: a submission holds at most that")
    return files


async def answer(connection: ClientConnection, kind: type[M]) -> M:
    """The next message of `kind` (pings answered; an `error` raises `ServerError`)."""
    while True:
        message = await connection.receive()
        if isinstance(message, kind):
            return message


async def upload(
    connection: ClientConnection,
    game: str,
    name: str,
    archive: bytes,
    manifest: dict[str, Any],
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Upload `archive` as the next version of `name`; its `submission_list` entry."""
    digest = content_hash(archive)
    await connection.send(
        protocol.SubmitBegin(
            game=game, name=name, manifest=manifest, hash=digest, size=len(archive)
        )
    )
    ready = await answer(connection, protocol.SubmitReady)
    step = ready.part_bytes
    for index, start in enumerate(range(0, len(archive), step)):
        await connection.send(protocol.SubmitPart(index=index, data=archive[start : start + step]))
        if progress is not None:
            progress(min(start + step, len(archive)), len(archive))
    await connection.send(protocol.SubmitEnd(parts=ready.parts))
    return (await answer(connection, protocol.Submitted)).submission


async def fetch(connection: ClientConnection, digest: str) -> bytes:
    """The archive stored under `digest`, part by part; checked against its hash."""
    first = await _fetch_part(connection, digest, 0)
    data = bytearray(first.data)
    for index in range(1, first.parts):
        data += (await _fetch_part(connection, digest, index)).data
    archive = bytes(data)
    if content_hash(archive) != digest:
        raise SubmissionError(f"the archive fetched is not the one stored as {digest}")
    return archive


async def _fetch_part(
    connection: ClientConnection, digest: str, index: int
) -> protocol.ArchivePart:
    await connection.send(protocol.SubmissionFetch(hash=digest, index=index))
    return await answer(connection, protocol.ArchivePart)


# -- the commands --------------------------------------------------------------------------------


def add_submit_arguments(submit: argparse.ArgumentParser) -> None:
    submit.add_argument("game", choices=GAME_NAMES)
    submit.add_argument("path", type=Path, metavar="PATH", help="the agent's file or folder")
    submit.add_argument("--name", help="the agent's name (default: the file's or folder's)")
    submit.add_argument("--form", choices=FORMS, help="default: guessed from the files")
    submit.add_argument("--language", choices=LANGUAGES, help="default: guessed from the files")
    submit.add_argument("--entry", help="the file it starts from (default: guessed)")
    submit.add_argument("--run", dest="command", help="a program's command, e.g. 'node client.js'")
    submit.set_defaults(run=_run_submit)
    _add_author_options(submit)


def add_submissions_arguments(listing: argparse.ArgumentParser) -> None:
    listing.add_argument("game", nargs="?", choices=GAME_NAMES)
    listing.set_defaults(run=_run_submissions)
    _add_author_options(listing)


def add_retire_arguments(retire: argparse.ArgumentParser) -> None:
    retire.add_argument("name")
    retire.add_argument("version", type=_version)
    retire.set_defaults(run=_run_retire)
    _add_author_options(retire)


def add_logs_arguments(logs: argparse.ArgumentParser) -> None:
    logs.add_argument("match", type=_match_id)
    logs.set_defaults(run=_run_logs)
    _add_author_options(logs)


def _add_author_options(command: argparse.ArgumentParser) -> None:
    """The server and the registered name every submission command acts for."""
    add_server_option(command, required=True)
    command.add_argument(
        "--author",
        default=os.environ.get("ARBITER_NAME"),
        required="ARBITER_NAME" not in os.environ,
        help="your registered name (default: $ARBITER_NAME)",
    )
    command.add_argument(
        "--token",
        default=os.environ.get("ARBITER_TOKEN") or None,
        help="your registered name's token (default: $ARBITER_TOKEN)",
    )


def _match_id(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a match is its number (1, 2, ...), not {text!r}")
    return int(text)


def _ask(args: argparse.Namespace, request: protocol.Message, kind: type[M]) -> M:
    """One request to the server `args` name, and its answer of `kind` (an `error` raises as
    `answer` says)."""

    async def main() -> M:
        async with await _open(args) as connection:
            await connection.send(request)
            return await answer(connection, kind)

    return trio.run(main)


def _run_logs(args: argparse.Namespace) -> int:
    entries = _ask(args, protocol.Logs(match=args.match), protocol.MatchLogs).logs
    if not entries:
        print(f"match {args.match} kept no log of a hosted seat")
    for entry in entries:
        author = entry["author"] or "a built-in agent"
        print(f"== {entry['seat']}: {entry['player']} ({author})")
        print(entry["log"].rstrip("\n"))
    return 0


def _version(text: str) -> int:
    number = text.removeprefix("v")
    if not number.isdigit() or int(number) < 1:
        raise argparse.ArgumentTypeError(f"a version is 1, 2, ... (or v1, v2), not {text!r}")
    return int(number)


async def _open(args: argparse.Namespace) -> ClientConnection:
    host, port = args.server
    return await ClientConnection.open(host, port, args.author, args.token, tls=server_tls(args))


def _run_submit(args: argparse.Namespace) -> int:
    files = read_path(args.path)
    hints = Hints(args.form, args.language, args.command, args.entry)
    manifest = guess_manifest(files, hints)
    archive = pack(files, manifest)
    name = args.name or args.path.resolve().stem
    sys.stderr.write(
        f"{name}: a {manifest.language} {manifest.form}, {len(files)} files,"
        f" {len(archive):,} bytes\n"
    )

    async def main() -> dict[str, Any]:
        async with await _open(args) as connection:
            return await upload(
                connection, args.game, name, archive, manifest.to_wire(), _progress_line()
            )

    entry = trio.run(main)
    print(
        f"{entry['name']} v{entry['version']} (sha256 {entry['hash']}) uploaded;"
        f" status {entry['status']}"
    )
    return 0


def _progress_line() -> Progress | None:
    """A progress line on a terminal, redrawn at most ten times a second; None elsewhere."""
    if not sys.stderr.isatty():
        return None
    last = [0.0]

    def show(sent: int, total: int) -> None:
        now = time.monotonic()
        if sent < total and now - last[0] < 0.1:
            return
        last[0] = now
        end = "\n" if sent >= total else ""
        sys.stderr.write(f"\ruploading: {sent:,} of {total:,} bytes ({100 * sent // total}%){end}")

    return show


def _run_submissions(args: argparse.Namespace) -> int:
    listing = _ask(args, protocol.Submissions(game=args.game), protocol.SubmissionList)
    entries = listing.submissions
    if not entries:
        print("no submissions" + (f" for {args.game}" if args.game else ""))
        return 0
    rows = [
        (
            e["name"],
            f"v{e['version']}",
            e["game"],
            f"{e['language']} {e['form']}",
            e["status"],
            f"{e['size']:,}",
            time.strftime("%Y-%m-%d %H:%M", time.localtime(e["created"])),
            e["hash"][:12],
        )
        for e in entries
    ]
    header = ("name", "version", "game", "kind", "status", "bytes", "uploaded", "sha256")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )
    return 0


def _run_retire(args: argparse.Namespace) -> int:
    retire = protocol.Retire(name=args.name, version=args.version)
    entry = _ask(args, retire, protocol.Retired).submission
    print(f"{entry['name']} v{entry['version']} retired")
    return 0
