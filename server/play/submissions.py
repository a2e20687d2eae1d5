"""Submissions over the protocol: uploads in parts, an author's list, retiring, and fetching.

Only a registered player (a `hello` with a name and its token) uploads, lists and retires, and
only under that name. An upload is `submit_begin`, its parts in order, then `submit_end`; the
connection's upload in progress is bounded in bytes (the size it announced, at most an archive's
limit), in time (`Limits.upload_seconds`) and, over the server, in number
(`Limits.uploads_at_once`), so a client that begins and stalls holds nothing for long. At the end
the bytes are checked against the announced size and hash, then as an archive
(`protocol.submission.unpack`, the client's own checks), off the event loop; the store refuses
what the author's limits or kept versions do not allow.

Fetching is by hash, one part per request, so a slow fetcher holds no queue of parts here. An
author may fetch their own archives; an admin or a worker any (the workers run every author's
agents, and an admin answers for the server). Archives are kept in memory, least recently
fetched dropped first, since a worker fetches every part of one in a row.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from typing import Final

import trio

from arbiter import protocol
from arbiter.games import GAME_NAMES
from arbiter.protocol import ErrorCode
from arbiter.protocol.submission import (  # the archive's rules, shared with the client
    HASH_PATTERN,
    MAX_ARCHIVE_BYTES,
    Manifest,
    Submission,
    SubmissionError,
    content_hash,
    unpack,
)
from arbiter.server.common.logs import event
from arbiter.server.common.recent import Recent
from arbiter.server.connection.limits import MIB, Limits
from arbiter.server.connection.session import Session
from arbiter.server.storage.accounts import NAME_PATTERN, Account
from arbiter.server.storage.errors import StoreError, SubmissionRefused
from arbiter.server.storage.interface import Storage
from arbiter.server.storage.submissions import AuthorLimits, NewSubmission, SubmissionRow

log = logging.getLogger(__name__)

FETCH_ANY_ROLES: Final = frozenset({"admin", "worker"})
"""Account roles that may fetch any author's archive."""
ARCHIVE_CACHE_BYTES: Final = 32 * MIB
LISTED_LOG: Final = 300
"""Characters of a validation log a listing carries: its verdict, not the whole log."""


def entry(row: SubmissionRow) -> dict[str, object]:
    """A version as the protocol lists it (`submission_list`)."""
    return {
        "name": row.name,
        "version": row.version,
        "game": row.game,
        "form": row.form,
        "language": row.language,
        "hash": row.hash,
        "size": row.size,
        "status": row.status,
        "created": row.created_at,
        "log": None if row.validation_log is None else row.validation_log[:LISTED_LOG],
    }


class Refused(Exception):
    """A request answered with an `error`: its code and sentence."""

    def __init__(self, code: ErrorCode, sentence: str) -> None:
        super().__init__(sentence)
        self.code = code


@dataclass(slots=True)
class Upload:
    """One connection's upload in progress: what `submit_begin` announced and the bytes so far."""

    author: str
    begin: protocol.SubmitBegin
    manifest: Manifest
    deadline: float
    received: bytearray = field(default_factory=bytearray)
    parts: int = 0


@dataclass(frozen=True, slots=True)
class StoredArchive:
    content: bytes
    authors: frozenset[str]


async def check_upload(storage: Storage, upload: Upload, limits: AuthorLimits) -> SubmissionRow:
    """Check a whole upload against what `submit_begin` announced, then store it (`store`)."""
    begin = upload.begin
    if len(upload.received) != begin.size:
        raise Refused(
            ErrorCode.BAD_SUBMISSION,
            f"{len(upload.received):,} bytes arrived where submit_begin announced {begin.size:,}",
        )
    announced = (begin.hash, upload.manifest)
    return await store(
        storage, upload.author, begin.game, begin.name, bytes(upload.received), limits, announced
    )


async def store(
    storage: Storage,
    author: str,
    game: str,
    name: str,
    archive: bytes,
    limits: AuthorLimits,
    announced: tuple[str, Manifest] | None = None,
) -> SubmissionRow:
    """Check `archive` (as the client did, off the event loop) and, if given, against the hash
    and manifest announced for it, then store it as the next version of `name`; `Refused`
    saying what is wrong. The protocol's uploads and the web page's both end here."""
    check_agent(game, name)
    try:
        digest, submission = await trio.to_thread.run_sync(_hash_and_unpack, archive)
    except SubmissionError as error:
        raise Refused(ErrorCode.BAD_SUBMISSION, str(error)) from None
    if announced is not None and digest != announced[0]:
        raise Refused(
            ErrorCode.BAD_SUBMISSION,
            f"the archive's sha256 is {digest}, not the {announced[0]} submit_begin announced",
        )
    if announced is not None and submission.manifest != announced[1]:
        raise Refused(
            ErrorCode.BAD_SUBMISSION, "the archive's manifest is not the one submit_begin sent"
        )
    manifest = submission.manifest
    new = NewSubmission(
        author, game, name, manifest.form, manifest.language, manifest.to_wire(), digest, archive
    )
    try:
        row = await storage.add_submission(new, limits)
    except SubmissionRefused as error:
        raise Refused(ErrorCode.BAD_SUBMISSION, str(error)) from None
    event(
        log,
        "submission_stored",
        author=row.author,
        name=row.name,
        version=row.version,
        hash=row.hash,
        size=row.size,
    )
    return row


def check_agent(game: str, name: str) -> None:
    """`Refused` unless `game` is one of ours and `name` can name an agent."""
    if game not in GAME_NAMES:
        raise Refused(
            ErrorCode.UNKNOWN_GAME, f"no game {game!r} here (games: {', '.join(GAME_NAMES)})"
        )
    if not NAME_PATTERN.fullmatch(name):
        raise Refused(
            ErrorCode.BAD_SUBMISSION,
            f"{name!r} cannot name an agent: use 1 to 64 letters, digits, '_', '.' or '-',"
            " starting with a letter or digit",
        )


def _hash_and_unpack(archive: bytes) -> tuple[str, Submission]:
    return content_hash(archive), unpack(archive)


class Submissions:
    """Answers the submission requests of every session."""

    def __init__(self, storage: Storage, limits: Limits) -> None:
        self.storage = storage
        self.limits = limits
        self.author_limits = AuthorLimits(limits.versions_kept, limits.uploads_per_hour)
        self._uploads: dict[Session, Upload] = {}
        self._archives: Recent[str, StoredArchive] = Recent(
            ARCHIVE_CACHE_BYTES, lambda stored: len(stored.content)
        )

    async def handle(
        self, session: Session, account: Account | None, message: protocol.Message
    ) -> None:
        try:
            author = self._author(account, message.TYPE)
            await self._answer(session, author, account, message)
        except Refused as refusal:
            session.send_error(refusal.code, str(refusal), ref=message.TYPE)
        except StoreError as error:
            self._uploads.pop(session, None)
            session.send_error(
                ErrorCode.INTERNAL_ERROR, f"the store failed: {error}", ref=message.TYPE
            )

    async def _answer(
        self, session: Session, author: str, account: Account | None, message: protocol.Message
    ) -> None:
        match message:
            case protocol.SubmitBegin():
                session.send(self._begin(session, author, message))
            case protocol.SubmitPart(index=index, data=data):
                self._part(session, index, data)
            case protocol.SubmitEnd(parts=parts):
                session.send(await self._end(session, parts))
            case protocol.Submissions(game=game):
                rows = await self.storage.submissions(author, game)
                entries = [entry(row) for row in rows[: protocol.MAX_SUBMISSIONS]]
                session.send(protocol.SubmissionList(submissions=entries))
            case protocol.Retire(name=name, version=version):
                try:
                    row = await self.storage.retire_submission(author, name, version)
                except SubmissionRefused as error:
                    raise Refused(ErrorCode.UNKNOWN_SUBMISSION, str(error)) from None
                event(log, "submission_retired", author=author, name=name, version=version)
                session.send(protocol.Retired(submission=entry(row)))
            case protocol.SubmissionFetch(hash=digest, index=index):
                assert account is not None  # `_author` refused a casual name
                session.send(await self._fetch(account, digest, index))

    @staticmethod
    def _author(account: Account | None, kind: str) -> str:
        if account is None:
            raise Refused(
                ErrorCode.NOT_ALLOWED,
                f"{kind} needs a registered name: say hello with the name and its token",
            )
        return account.name

    # -- uploads -------------------------------------------------------------------------

    def _begin(
        self, session: Session, author: str, begin: protocol.SubmitBegin
    ) -> protocol.SubmitReady:
        self._uploads.pop(session, None)  # a new begin abandons the upload in progress
        self._drop_expired()
        check_agent(begin.game, begin.name)
        if not HASH_PATTERN.fullmatch(begin.hash):
            raise Refused(ErrorCode.BAD_SUBMISSION, "hash is a sha256 in 64 lowercase hex digits")
        if not 0 < begin.size <= MAX_ARCHIVE_BYTES:
            raise Refused(
                ErrorCode.BAD_SUBMISSION,
                f"{begin.size:,} bytes: a submission is 1 to {MAX_ARCHIVE_BYTES:,} bytes (4 MiB)",
            )
        try:
            manifest = Manifest.from_wire(begin.manifest)
        except SubmissionError as error:
            raise Refused(ErrorCode.BAD_SUBMISSION, str(error)) from None
        if len(self._uploads) >= self.limits.uploads_at_once:
            raise Refused(
                ErrorCode.BAD_SUBMISSION,
                f"the server takes {self.limits.uploads_at_once} uploads at once: try again"
                " shortly",
            )
        deadline = trio.current_time() + self.limits.upload_seconds
        self._uploads[session] = Upload(author, begin, manifest, deadline)
        parts = math.ceil(begin.size / protocol.PART_BYTES)
        return protocol.SubmitReady(hash=begin.hash, parts=parts, part_bytes=protocol.PART_BYTES)

    def _part(self, session: Session, index: int, data: bytes) -> None:
        upload = self._upload(session, "submit_part")
        if index != upload.parts:
            self._uploads.pop(session)
            raise Refused(
                ErrorCode.BAD_SUBMISSION,
                f"part {index} came where part {upload.parts} was due: the upload is dropped,"
                " begin again",
            )
        if len(upload.received) + len(data) > upload.begin.size:
            self._uploads.pop(session)
            raise Refused(
                ErrorCode.BAD_SUBMISSION,
                f"more than the {upload.begin.size:,} bytes submit_begin announced: the upload"
                " is dropped",
            )
        upload.received += data
        upload.parts += 1

    async def _end(self, session: Session, parts: int) -> protocol.Submitted:
        upload = self._upload(session, "submit_end")
        del self._uploads[session]
        if parts != upload.parts:
            raise Refused(
                ErrorCode.BAD_SUBMISSION,
                f"submit_end counts {parts} parts; {upload.parts} arrived",
            )
        row = await check_upload(self.storage, upload, self.author_limits)
        return protocol.Submitted(submission=entry(row))

    def _upload(self, session: Session, kind: str) -> Upload:
        upload = self._uploads.get(session)
        if upload is None:
            raise Refused(ErrorCode.UNKNOWN_SUBMISSION, f"{kind} with no upload begun")
        if trio.current_time() > upload.deadline:
            del self._uploads[session]
            raise Refused(
                ErrorCode.BAD_SUBMISSION,
                f"the upload took over {self.limits.upload_seconds:g} s: it is dropped,"
                " begin again",
            )
        return upload

    def _drop_expired(self) -> None:
        now = trio.current_time()
        for session in [s for s, upload in self._uploads.items() if upload.deadline < now]:
            del self._uploads[session]

    def forget(self, session: Session) -> None:
        """A session closed: its upload in progress, if any, is dropped."""
        self._uploads.pop(session, None)

    # -- fetching ------------------------------------------------------------------------

    async def _fetch(self, account: Account, digest: str, index: int) -> protocol.ArchivePart:
        stored = self._archives.get(digest)
        if stored is None or not self._may_fetch(account, stored):
            stored = await self._read(digest)  # its authors may have grown since it was kept
        if not self._may_fetch(account, stored):
            raise Refused(
                ErrorCode.NOT_ALLOWED,
                "an archive is fetched by its author, an admin or a worker only",
            )
        parts = max(1, math.ceil(len(stored.content) / protocol.PART_BYTES))
        if index >= parts:
            raise Refused(
                ErrorCode.UNKNOWN_SUBMISSION, f"archive {digest} has {parts} parts: no part {index}"
            )
        start = index * protocol.PART_BYTES
        data = stored.content[start : start + protocol.PART_BYTES]
        return protocol.ArchivePart(hash=digest, index=index, parts=parts, data=data)

    async def _read(self, digest: str) -> StoredArchive:
        content = await self.storage.read_archive(digest)
        if content is None:
            raise Refused(ErrorCode.UNKNOWN_SUBMISSION, f"no archive {digest} is stored")
        stored = StoredArchive(content, await self.storage.archive_authors(digest))
        self._archives.put(digest, stored)
        return stored

    @staticmethod
    def _may_fetch(account: Account, stored: StoredArchive) -> bool:
        return account.role in FETCH_ANY_ROLES or account.name in stored.authors
