"""An uploaded file or zip as a submission's files, and every zip the web page refuses."""

from __future__ import annotations

import io
import stat
import zipfile

import pytest

from arbiter.protocol.submission import MAX_FILES, SubmissionError
from arbiter.server.web.uploaded_files import files_of


def zipped(entries: dict[str, bytes], link: str | None = None) -> bytes:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
        if link is not None:
            info = zipfile.ZipInfo(link)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, "/etc/passwd")
    return data.getvalue()


def test_a_file_is_itself_and_a_zipped_folder_loses_its_top_folder() -> None:
    assert files_of("C:\\work\\bot.py", b"x") == {"bot.py": b"x"}
    folder = zipped({"bot/main.c": b"int main(){}", "bot/lib/u.h": b"", "bot/.git/HEAD": b""})
    assert files_of("bot.zip", folder) == {"main.c": b"int main(){}", "lib/u.h": b""}
    loose = zipped({"a.py": b"", "lib/b.py": b""})
    assert set(files_of("x.zip", loose)) == {"a.py", "lib/b.py"}


@pytest.mark.parametrize(
    ("data", "sentence"),
    [
        (zipped({"../evil.py": b""}), "leaves or loops"),
        (zipped({"/abs.py": b""}), "is absolute"),
        (zipped({"a.py": b""}, link="passwd"), "'passwd' is a link"),
        (zipped({f"f{i}": b"" for i in range(MAX_FILES + 1)}), f"at most {MAX_FILES}"),
        (zipped({"big": b"\0" * (4 * 2**20 + 1)}), "bytes unzipped: a submission is at most"),
        (b"PK\x03\x04 not really", "the .zip cannot be read"),
    ],
)
def test_a_bad_zip_is_refused_with_a_sentence(data: bytes, sentence: str) -> None:
    with pytest.raises(SubmissionError, match=sentence):
        files_of("upload.zip", data)
