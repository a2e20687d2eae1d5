"""A file a browser uploaded, as a submission's files: one source file as itself, a zip of a folder
as the files in it. The zip is read with its limits checked before anything is inflated (the
entries' count and declared sizes; the reader stops at the declared size), links in it are
refused, and a folder zipped whole (`my-agent/...`) loses that one top folder, so the paths are
what `arbiter submit` sends for the same folder.
"""

from __future__ import annotations

import io
import stat
import zipfile

from arbiter.protocol.submission import (
    MAX_ARCHIVE_BYTES,
    MAX_FILES,
    SubmissionError,
    check_path,
)

SKIPPED_PARTS = frozenset({"__MACOSX", ".git", "__pycache__"})
"""Folders zip tools and editors add, never the agent's."""


def files_of(file_name: str, data: bytes) -> dict[str, bytes]:
    """The submission's files in an upload called `file_name`; `SubmissionError` if unusable."""
    if file_name.lower().endswith(".zip"):
        return _unzipped(data)
    name = file_name.replace("\\", "/").rsplit("/", 1)[-1]
    check_path(name)
    return {name: data}


def _unzipped(data: bytes) -> dict[str, bytes]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as error:
        raise SubmissionError(f"the .zip cannot be read: {error}") from None
    with archive:
        entries = [
            info
            for info in archive.infolist()
            if not info.is_dir() and not SKIPPED_PARTS & set(info.filename.split("/"))
        ]
        if len(entries) > MAX_FILES:
            raise SubmissionError(f"{len(entries)} files: a submission holds at most {MAX_FILES}")
        declared = sum(info.file_size for info in entries)
        if declared > MAX_ARCHIVE_BYTES:
            raise SubmissionError(
                f"{declared:,} bytes unzipped: a submission is at most {MAX_ARCHIVE_BYTES:,}"
                " bytes (4 MiB)"
            )
        for info in entries:
            if stat.S_ISLNK(info.external_attr >> 16):
                raise SubmissionError(f"{info.filename!r} is a link: a submission holds files")
            check_path(info.filename)
        try:
            files = {info.filename: archive.read(info) for info in entries}
        except (zipfile.BadZipFile, OSError, RuntimeError) as error:
            raise SubmissionError(f"the .zip cannot be read: {error}") from None
    return _without_top_folder(files)


def _without_top_folder(files: dict[str, bytes]) -> dict[str, bytes]:
    tops = {path.split("/", 1)[0] for path in files}
    if len(tops) == 1 and all("/" in path for path in files):
        return {path.split("/", 1)[1]: data for path, data in files.items()}
    return files
