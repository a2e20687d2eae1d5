"""`arbiter submit`, `arbiter submissions` and `arbiter retire` as a user runs them, against a
real server."""

from __future__ import annotations

import re
from pathlib import Path

from arbiter.protocol.submission import content_hash, guess_manifest, pack
from tests.conftest import RunningServer
from tests.tournament.helpers import arbiter, register, text

PLAYER_MODULE = b"class Player:\n    def __init__(self, colour):\n        pass\n"


def server_args(server: RunningServer) -> list[str]:
    return ["--server", f"{server.host}:{server.port}", "--author", "ann"]


async def test_submit_list_and_retire(server: RunningServer, tmp_path: Path) -> None:
    token = register(server.db, "ann")["ann"]
    folder = tmp_path / "my-agent"
    folder.mkdir()
    (folder / "agent.py").write_bytes(PLAYER_MODULE)
    (folder / "book.txt").write_text("opening lines\n")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "agent.cpython-311.pyc").write_bytes(b"\x00" * 10)

    done = await arbiter("submit", "kings-court", str(folder), *server_args(server), token=token)
    line = text(done).strip()
    files = {"agent.py": PLAYER_MODULE, "book.txt": b"opening lines\n"}
    digest = content_hash(pack(files, guess_manifest(files)))
    assert line == f"my-agent v1 (sha256 {digest}) uploaded; status validating"
    assert "my-agent: a python player, 2 files" in done.stderr.decode()

    (folder / "agent.py").write_bytes(PLAYER_MODULE + b"# better\n")
    done = await arbiter("submit", "kings-court", str(folder), *server_args(server), token=token)
    assert re.fullmatch(
        r"my-agent v2 \(sha256 [0-9a-f]{64}\) uploaded; status validating\n", text(done)
    )

    listing = text(await arbiter("submissions", *server_args(server), token=token)).splitlines()
    assert listing[0].split() == [
        "name",
        "version",
        "game",
        "kind",
        "status",
        "bytes",
        "uploaded",
        "sha256",
    ]
    assert [row.split()[:6] for row in listing[1:]] == [
        ["my-agent", "v1", "kings-court", "python", "player", "validating"],
        ["my-agent", "v2", "kings-court", "python", "player", "validating"],
    ]

    done = await arbiter("retire", "my-agent", "v1", *server_args(server), token=token)
    assert text(done) == "my-agent v1 retired\n"
    again = await arbiter("retire", "my-agent", "1", *server_args(server), token=token)
    assert again.returncode == 1
    assert again.stderr.decode() == "arbiter: unknown_submission: my-agent v1 is retired already\n"


async def test_refusals_are_sentences_before_any_upload(
    server: RunningServer, tmp_path: Path
) -> None:
    token = register(server.db, "ann")["ann"]
    folder = tmp_path / "sneaky"
    folder.mkdir()
    (folder / "agent.py").write_bytes(PLAYER_MODULE)
    (folder / "passwd").symlink_to("/etc/passwd")
    done = await arbiter("submit", "kings-court", str(folder), *server_args(server), token=token)
    assert done.returncode == 2
    assert done.stderr.decode() == "arbiter: 'passwd' is a link that leads out of the folder\n"

    script = tmp_path / "script.py"
    script.write_text("print('hello')\n")
    done = await arbiter("submit", "kings-court", str(script), *server_args(server), token=token)
    assert done.returncode == 2
    assert "say --form" in done.stderr.decode()

    binary = tmp_path / "bot"
    binary.mkdir()
    (binary / "main.c").write_text("int main(void) { return 0; }\n")
    (binary / "a.out").write_bytes(b"\x7fELF\x02\x01\x01" + b"\x00" * 50)
    done = await arbiter("submit", "kings-court", str(binary), *server_args(server), token=token)
    assert done.returncode == 2
    assert "'a.out' is an ELF executable or library" in done.stderr.decode()

    unregistered = await arbiter(
        "submissions", "--server", f"{server.host}:{server.port}", "--author", "guest"
    )
    assert unregistered.returncode == 1
    assert "not_allowed: submissions needs a registered name" in unregistered.stderr.decode()
