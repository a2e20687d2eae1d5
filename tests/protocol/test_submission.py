"""The submission archive: packing round trips, is deterministic, and refuses with a sentence."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from arbiter.protocol.submission import (
    EXECUTABLE_MAGIC,
    MAX_ARCHIVE_BYTES,
    MAX_FILES,
    Hints,
    Manifest,
    SubmissionError,
    content_hash,
    guess_manifest,
    pack,
    unpack,
)

PART = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_-", min_size=1, max_size=12)
PATHS = st.lists(PART, min_size=1, max_size=3).map("/".join)
MAGIC = tuple(magic for magic, _ in EXECUTABLE_MAGIC)
SOURCE = st.binary(max_size=200).filter(lambda data: not data.startswith(MAGIC))
ENTRY_SOURCE = b"class Player:\n    pass\n"


@st.composite
def python_players(draw: st.DrawFn) -> tuple[dict[str, bytes], Manifest]:
    files = draw(st.dictionaries(PATHS.map(lambda p: p + ".txt"), SOURCE, max_size=8))
    files["agent.py"] = ENTRY_SOURCE
    return files, Manifest("player", "python", "agent.py")


@given(python_players())
def test_an_archive_unpacks_to_what_was_packed(case: tuple[dict[str, bytes], Manifest]) -> None:
    files, manifest = case
    submission = unpack(pack(files, manifest))
    assert submission.manifest == manifest
    assert dict(submission.files) == files


@given(python_players(), st.randoms())
def test_packing_ignores_the_order_files_were_read_in(
    case: tuple[dict[str, bytes], Manifest], rng: object
) -> None:
    files, manifest = case
    items = list(files.items())
    rng.shuffle(items)  # type: ignore[attr-defined]
    assert pack(dict(items), manifest) == pack(files, manifest)


def test_the_hash_of_a_known_archive_stays_put() -> None:
    archive = pack({"agent.py": ENTRY_SOURCE}, Manifest("player", "python", "agent.py"))
    assert content_hash(archive) == content_hash(bytes(archive))
    assert len(content_hash(archive)) == 64
    # The layout is part of the contract: a change here renames every stored submission.
    expected = msgpack.packb(
        {
            "format": 1,
            "manifest": {
                "form": "player",
                "language": "python",
                "entry": "agent.py",
                "run": None,
                "sources": [],
            },
            "files": {"agent.py": ENTRY_SOURCE},
        },
        use_bin_type=True,
    )
    assert archive == expected


@given(python_players(), st.binary(min_size=1, max_size=50))
def test_different_content_has_a_different_hash(
    case: tuple[dict[str, bytes], Manifest], extra: bytes
) -> None:
    files, manifest = case
    changed = {**files, "agent.py": ENTRY_SOURCE + b"#" + extra}
    assert content_hash(pack(files, manifest)) != content_hash(pack(changed, manifest))


PLAYER = Manifest("player", "python", "agent.py")


@pytest.mark.parametrize(
    ("files", "manifest", "sentence"),
    [
        ({"agent.py": ENTRY_SOURCE}, Manifest("robot", "python", "agent.py"), "unknown form"),
        ({"agent.py": ENTRY_SOURCE}, Manifest("player", "cobol", "agent.py"), "unknown language"),
        ({"agent.py": ENTRY_SOURCE}, Manifest("player", "python", "main.py"), "not in the"),
        ({"agent.py": ENTRY_SOURCE, "../x.py": b""}, PLAYER, "leaves or loops"),
        ({"agent.py": ENTRY_SOURCE, "a/../../x": b""}, PLAYER, "leaves or loops"),
        ({"agent.py": ENTRY_SOURCE, "/etc/passwd": b""}, PLAYER, "is absolute"),
        ({"agent.py": ENTRY_SOURCE, "C:/x": b""}, PLAYER, "is absolute"),
        ({"agent.py": ENTRY_SOURCE, "a\\b": b""}, PLAYER, "use '/'"),
        ({"agent.py": ENTRY_SOURCE, "bot": b"\x7fELF\x02\x01"}, PLAYER, "ELF executable"),
        ({"agent.py": ENTRY_SOURCE, "bot.exe": b"MZ\x90\x00"}, PLAYER, "Windows executable"),
        ({}, PLAYER, "at least one file"),
        ({"a.js": b""}, Manifest("player", "node", "a.js"), "a player is Python"),
        ({"a.py": b""}, Manifest("program", "python", "a.py"), "needs the command"),
        ({"a.py": ENTRY_SOURCE}, Manifest("player", "python", "a.py", "python3 a.py"), "no --run"),
        ({"a.c": b""}, Manifest("program", "c", "a.c", "./agent"), "lists the sources"),
        ({"a.c": b""}, Manifest("program", "c", "a.c", "./agent", ("b.c",)), "not in the"),
        ({"a.txt": b""}, Manifest("program", "python", "a.txt", "x"), "is not python"),
    ],
)
def test_each_refusal_says_what_is_wrong(
    files: dict[str, bytes], manifest: Manifest, sentence: str
) -> None:
    with pytest.raises(SubmissionError, match=sentence):
        pack(files, manifest)


def test_too_many_files_are_refused_with_the_limit() -> None:
    files = {f"f{i}.txt": b"" for i in range(MAX_FILES)} | {"agent.py": ENTRY_SOURCE}
    with pytest.raises(SubmissionError, match=f"at most {MAX_FILES}"):
        pack(files, PLAYER)


def test_too_large_a_submission_is_refused_with_the_limit() -> None:
    files = {"agent.py": ENTRY_SOURCE, "big.txt": b"x" * MAX_ARCHIVE_BYTES}
    with pytest.raises(SubmissionError, match="at most 4,194,304 bytes"):
        pack(files, PLAYER)


@given(st.binary(max_size=300))
def test_random_bytes_are_refused_with_a_sentence(data: bytes) -> None:
    with pytest.raises(SubmissionError, match=r"\w"):
        unpack(data)


def test_an_archive_that_escapes_is_refused_when_unpacked() -> None:
    forged = msgpack.packb(
        {
            "format": 1,
            "manifest": PLAYER.to_wire(),
            "files": {"../evil.py": b"", "agent.py": ENTRY_SOURCE},
        },
        use_bin_type=True,
    )
    with pytest.raises(SubmissionError, match="leaves or loops"):
        unpack(forged)


def test_the_form_and_language_are_guessed_from_the_files() -> None:
    assert guess_manifest({"p.py": ENTRY_SOURCE}).form == "player"
    agent = b"class Mine:\n    def choose(self, state, budget):\n        return 1\n"
    assert guess_manifest({"mine.py": agent}) == Manifest("module", "python", "mine.py")
    node = {"package.json": b'{"main": "client.js"}', "client.js": b"", "lib/x.js": b""}
    assert guess_manifest(node) == Manifest("program", "node", "client.js", "node client.js")
    c_files = {"main.c": b"int main(void) { return 0; }", "util.c": b"", "util.h": b""}
    assert guess_manifest(c_files) == Manifest(
        "program", "c", "main.c", "./agent", ("main.c", "util.c")
    )
    cpp = guess_manifest({"bot.cpp": b"int main() {}"})
    assert (cpp.language, cpp.sources) == ("cpp", ("bot.cpp",))


def test_what_the_author_says_wins_over_the_guess() -> None:
    hints = Hints(form="program", run="python3 -u bot.py")
    manifest = guess_manifest({"bot.py": ENTRY_SOURCE}, hints)
    assert manifest == Manifest("program", "python", "bot.py", "python3 -u bot.py")


def test_an_unguessable_form_names_the_flag() -> None:
    with pytest.raises(SubmissionError, match="say --form"):
        guess_manifest({"bot.py": b"print('hi')\n"})
    with pytest.raises(SubmissionError, match="say --language"):
        guess_manifest({"notes.txt": b""})
    with pytest.raises(SubmissionError, match="say --entry"):
        guess_manifest({"a.c": b"int main(){}", "b.c": b"int main(){}"})
