"""A submission: an agent's files and its manifest, packed into one deterministic archive.

The client packs what an author hands it, the server unpacks and checks what arrives, and a
worker unpacks what it fetched: all three run this one module, so a submission the client
accepts is one the server accepts, with the same sentence when it is not. Nothing here reads a
disk: callers hand in a mapping of relative POSIX path to bytes (the client reads a folder, the
web front a zip), so every refusal is testable without files.

The archive is one msgpack map, `{"format": 1, "manifest": {...}, "files": {path: bytes}}`, its
paths in sorted order and its manifest's keys in a fixed order. Packing the same files and
manifest gives the same bytes whatever order they were read in, so the content hash names the
submission, and an identical upload is known by its hash alone.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import msgpack

FORMAT: Final = 1
"""The archive's layout version, stored in it: a later layout can still read this one."""
MAX_ARCHIVE_BYTES: Final = 4 * 1024 * 1024
"""An archive's size in all: agents are source code, and a class's worth of them stays small
enough to keep every version of in the store."""
MAX_FILES: Final = 256
MAX_PATH: Final = 255
"""Characters of one relative path: what every common file system takes for one name."""
FORMS: Final = ("module", "player", "program")
"""`module` an agent object module and `player` a Player module (docs/agents.md), both Python
the runner loads; `program` anything that speaks the protocol on its own."""
LANGUAGES: Final = ("python", "node", "c", "cpp")
COMPILED: Final = ("c", "cpp")
SOURCE_SUFFIXES: Final = {"c": (".c",), "cpp": (".cpp", ".cc", ".cxx")}
"""The files a worker compiles for each compiled language (headers are included, not built)."""
ENTRY_SUFFIXES: Final = {
    "python": (".py",),
    "node": (".js", ".mjs", ".cjs"),
    "c": (".c",),
    "cpp": (".cpp", ".cc", ".cxx"),
}
RUN_LEN: Final = 1024
EXECUTABLE_MAGIC: Final = (
    (b"\x7fELF", "an ELF executable or library"),
    (b"MZ", "a Windows executable"),
    (b"\xcf\xfa\xed\xfe", "a Mach-O executable"),
    (b"\xce\xfa\xed\xfe", "a Mach-O executable"),
    (b"\xca\xfe\xba\xbe", "a Mach-O universal executable or a Java class"),
    (b"!<arch>\n", "a static library"),
)
"""What compiled code starts with: a submission is sources, built (if at all) where it runs, so
a binary from the author's machine is refused rather than run unread."""
HASH_PATTERN: Final = re.compile(r"[0-9a-f]{64}")


class SubmissionError(ValueError):
    """A submission that cannot be stored or run; the sentence says what is wrong."""


@dataclass(frozen=True, slots=True)
class Manifest:
    """How to run a submission: its form, its language, the file it starts from, and for a
    program the command that runs it (a compiled one's after the worker built `sources`)."""

    form: str
    language: str
    entry: str
    run: str | None = None
    sources: tuple[str, ...] = field(default=())
    """A compiled language's files to build, in order; empty for the others."""

    def to_wire(self) -> dict[str, Any]:
        """The manifest as a map with its keys in a fixed order (so the archive is stable)."""
        return {
            "form": self.form,
            "language": self.language,
            "entry": self.entry,
            "run": self.run,
            "sources": list(self.sources),
        }

    @classmethod
    def from_wire(cls, data: Any) -> Manifest:
        """A manifest from its map; `SubmissionError` if a key is missing, unknown or mistyped."""
        keys = ("form", "language", "entry", "run", "sources")
        if not isinstance(data, dict) or set(data) != set(keys):
            raise SubmissionError(
                f"a manifest is a map of exactly {', '.join(keys)}, not {_short(data)}"
            )
        texts = [data[key] for key in ("form", "language", "entry")]
        sources = data["sources"]
        if (
            not all(isinstance(item, str) for item in texts)
            or not (data["run"] is None or isinstance(data["run"], str))
            or not isinstance(sources, list | tuple)
            or not all(isinstance(item, str) for item in sources)
        ):
            raise SubmissionError(f"a manifest's values are strings (run may be nil): {data!r}")
        return cls(data["form"], data["language"], data["entry"], data["run"], tuple(sources))


@dataclass(frozen=True, slots=True)
class Submission:
    """A checked submission: its manifest and its files by relative path."""

    manifest: Manifest
    files: Mapping[str, bytes]


def content_hash(archive: bytes) -> str:
    """The archive's name in the store: its SHA-256 in lowercase hex."""
    return hashlib.sha256(archive).hexdigest()


def pack(files: Mapping[str, bytes], manifest: Manifest) -> bytes:
    """The archive of `files` run as `manifest`, checked first (`SubmissionError`)."""
    check(files, manifest)
    body = {
        "format": FORMAT,
        "manifest": manifest.to_wire(),
        "files": {path: bytes(files[path]) for path in sorted(files)},
    }
    archive: bytes = msgpack.packb(body, use_bin_type=True)
    _check_size(len(archive))
    return archive


def unpack(archive: bytes) -> Submission:
    """The submission an archive holds, checked as `pack` checks it (`SubmissionError`)."""
    _check_size(len(archive))
    try:
        body = msgpack.unpackb(archive, raw=False, strict_map_key=True, use_list=True)
    except (ValueError, msgpack.UnpackException, TypeError) as error:
        raise SubmissionError(f"not a submission archive: {error}") from None
    if not isinstance(body, dict) or set(body) != {"format", "manifest", "files"}:
        raise SubmissionError("not a submission archive: a map of format, manifest and files")
    if body["format"] != FORMAT:
        raise SubmissionError(f"archive format {body['format']!r} is not {FORMAT}, the one known")
    files = body["files"]
    if not isinstance(files, dict) or not all(
        isinstance(path, str) and isinstance(data, bytes) for path, data in files.items()
    ):
        raise SubmissionError("an archive's files are a map of path to bytes")
    if list(files) != sorted(files):
        raise SubmissionError("an archive's files are in sorted order (this one was not packed)")
    manifest = Manifest.from_wire(body["manifest"])
    check(files, manifest)
    return Submission(manifest, files)


def check(files: Mapping[str, bytes], manifest: Manifest) -> None:
    """`SubmissionError` naming the first thing wrong with these files run as `manifest`."""
    if not files:
        raise SubmissionError("a submission holds at least one file")
    if len(files) > MAX_FILES:
        raise SubmissionError(f"{len(files)} files: a submission holds at most {MAX_FILES}")
    total = sum(len(data) for data in files.values())
    _check_size(total)
    for path, data in files.items():
        check_path(path)
        refuse_executable(path, data)
    _check_manifest(files, manifest)


def check_path(path: str) -> None:
    """`SubmissionError` unless `path` is a plain relative path inside the submission's folder."""
    if not path or len(path) > MAX_PATH or not path.isprintable():
        raise SubmissionError(
            f"{_short(path)} is not a file name: 1 to {MAX_PATH} printable characters"
        )
    if "\\" in path:
        raise SubmissionError(f"{path!r}: paths use '/' between folders, not '\\'")
    if path.startswith("/") or re.match(r"[A-Za-z]:", path):
        raise SubmissionError(f"{path!r} is absolute: paths are relative to the submission")
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise SubmissionError(
            f"{path!r} leaves or loops in the submission's folder ('..', '.' or an empty part)"
        )


def refuse_executable(path: str, data: bytes) -> None:
    """`SubmissionError` if `data` is compiled code: sources are expected."""
    for magic, what in EXECUTABLE_MAGIC:
        if data.startswith(magic):
            raise SubmissionError(
                f"{path!r} is {what}: a submission holds sources, built where it runs"
            )


def _check_manifest(files: Mapping[str, bytes], manifest: Manifest) -> None:
    if manifest.form not in FORMS:
        raise SubmissionError(f"unknown form {manifest.form!r} (forms: {', '.join(FORMS)})")
    if manifest.language not in LANGUAGES:
        raise SubmissionError(
            f"unknown language {manifest.language!r} (languages: {', '.join(LANGUAGES)})"
        )
    if manifest.form != "program" and manifest.language != "python":
        raise SubmissionError(
            f"a {manifest.form} is Python: a {manifest.language} agent is a program"
        )
    if manifest.entry not in files:
        raise SubmissionError(f"the entry file {manifest.entry!r} is not in the submission")
    if not manifest.entry.endswith(ENTRY_SUFFIXES[manifest.language]):
        suffixes = " or ".join(ENTRY_SUFFIXES[manifest.language])
        raise SubmissionError(
            f"the entry file {manifest.entry!r} is not {manifest.language} (a {suffixes} file)"
        )
    if manifest.run is not None and not (0 < len(manifest.run) <= RUN_LEN):
        raise SubmissionError(f"a run command is 1 to {RUN_LEN} characters")
    if manifest.form == "program" and manifest.run is None:
        raise SubmissionError("a program needs the command that runs it (--run)")
    if manifest.form != "program" and manifest.run is not None:
        raise SubmissionError(f"a {manifest.form} is loaded by the runner: it takes no --run")
    _check_sources(files, manifest)


def _check_sources(files: Mapping[str, bytes], manifest: Manifest) -> None:
    if manifest.language not in COMPILED:
        if manifest.sources:
            raise SubmissionError(f"{manifest.language} is not compiled: it lists no sources")
        return
    if not manifest.sources:
        raise SubmissionError(f"a {manifest.language} program lists the sources to build")
    for source in manifest.sources:
        if source not in files:
            raise SubmissionError(f"the source {source!r} is not in the submission")
        if not source.endswith(SOURCE_SUFFIXES[manifest.language]):
            raise SubmissionError(f"{source!r} is not a {manifest.language} source")
    if manifest.entry not in manifest.sources:
        raise SubmissionError(f"the entry file {manifest.entry!r} is not among the sources")


def _check_size(size: int) -> None:
    if size > MAX_ARCHIVE_BYTES:
        raise SubmissionError(
            f"{size:,} bytes: a submission is at most {MAX_ARCHIVE_BYTES:,} bytes (4 MiB)"
        )


def _short(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- guessing the manifest -----------------------------------------------------------------------

COMPILED_RUN: Final = "./agent"
"""What a compiled program runs as: the worker builds its sources into `agent` beside them."""
PLAYER_CLASS = re.compile(rb"^class\s+Player\b", re.MULTILINE)
AGENT_CHOOSE = re.compile(rb"^\s+def\s+choose\s*\(", re.MULTILINE)
C_MAIN = re.compile(rb"\bint\s+main\s*\(")


@dataclass(frozen=True, slots=True)
class Hints:
    """What an author said outright (`--form`, `--language`, `--run`, `--entry`); None is
    "guess it from the files"."""

    form: str | None = None
    language: str | None = None
    run: str | None = None
    entry: str | None = None


def guess_manifest(files: Mapping[str, bytes], hints: Hints = Hints()) -> Manifest:
    """The manifest of `files`, from what the author said and what the files show:

    a folder with `package.json` is a Node program (its `main`, else `index.js`), one with C or
    C++ sources a compiled program (the file with `main`), a Python file with a `Player` class a
    Player module, one with an agent's `choose` an agent object module. `SubmissionError` with a
    sentence naming the flag to give when the files do not tell.
    """
    language = hints.language or _guess_language(files)
    if language not in LANGUAGES:
        raise SubmissionError(f"unknown language {language!r} (languages: {', '.join(LANGUAGES)})")
    entry = hints.entry or _guess_entry(files, language)
    form = hints.form or _guess_form(files, language, entry)
    sources: tuple[str, ...] = ()
    if language in COMPILED:
        sources = tuple(sorted(p for p in files if p.endswith(SOURCE_SUFFIXES[language])))
    run = hints.run
    if run is None and form == "program":
        run = _default_run(language, entry)
    manifest = Manifest(form, language, entry, run, sources)
    _check_manifest(files, manifest)
    return manifest


def _guess_language(files: Mapping[str, bytes]) -> str:
    suffixes = {posixpath.splitext(path)[1] for path in files}
    if "package.json" in files or suffixes & set(ENTRY_SUFFIXES["node"]):
        return "node"
    if suffixes & set(SOURCE_SUFFIXES["cpp"]):
        return "cpp"
    if ".c" in suffixes:
        return "c"
    if ".py" in suffixes:
        return "python"
    raise SubmissionError(
        "cannot tell the language from the files (no .py, .js, .c or .cpp): say --language"
    )


def _guess_entry(files: Mapping[str, bytes], language: str) -> str:
    if len(files) == 1:
        return next(iter(files))
    if language == "node":
        return _node_entry(files)
    candidates = [p for p in sorted(files) if p.endswith(ENTRY_SUFFIXES[language])]
    if language in COMPILED:
        mains = [p for p in candidates if C_MAIN.search(files[p])]
    else:
        mains = [
            p
            for p in candidates
            if PLAYER_CLASS.search(files[p])
            or AGENT_CHOOSE.search(files[p])
            or posixpath.basename(p) in ("main.py", "__main__.py")
        ]
    if len(mains) == 1:
        return mains[0]
    found = ", ".join(mains) if mains else "none"
    raise SubmissionError(f"cannot tell which file is the entry (candidates: {found}): say --entry")


def _node_entry(files: Mapping[str, bytes]) -> str:
    main = "index.js"
    if "package.json" in files:
        try:
            package = json.loads(files["package.json"])
        except ValueError as error:
            raise SubmissionError(f"package.json is not JSON: {error}") from None
        if isinstance(package, dict) and isinstance(package.get("main"), str):
            main = posixpath.normpath(package["main"])
    if main not in files:
        raise SubmissionError(f"package.json's main {main!r} is not in the folder: say --entry")
    return main


def _guess_form(files: Mapping[str, bytes], language: str, entry: str) -> str:
    if language != "python":
        return "program"
    source = files.get(entry, b"")
    if PLAYER_CLASS.search(source):
        return "player"
    if AGENT_CHOOSE.search(source):
        return "module"
    raise SubmissionError(
        f"{entry!r} defines no Player class and no agent's choose(): say --form "
        "(program for a script that speaks the protocol)"
    )


def _default_run(language: str, entry: str) -> str:
    if language in COMPILED:
        return COMPILED_RUN
    return f"python3 {entry}" if language == "python" else f"node {entry}"
