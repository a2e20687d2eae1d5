"""The pages of a signed-in author: sign in and out, upload an agent, list and retire versions.

Sign-in takes a registered name and its token in a POSTed form (never a URL), checked and paced
as a `hello`'s token (`SignIn.verify`), and answers with a signed cookie (`web.cookies`). Every
POST that changes something carries the cookie's CSRF token and, when the browser sends one, an
`Origin` that is this server's: a page of another site can neither read the token nor pass
the origin check. The upload is the file's bytes as the request's body (sent by
`static/agents.js`), at most a submission's 4 MiB, checked by the same code as `arbiter
submit`'s (`protocol.submission`, `play.submissions.store`), with the same sentences. The pages
are plain HTML built here, every value escaped, and each request spends its address's budget
like every other request of the web front (`web.front.Rationed`).
"""

from __future__ import annotations

import html
import time
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from arbiter.games import GAME_NAMES
from arbiter.protocol.submission import (
    FORMS,
    LANGUAGES,
    MAX_ARCHIVE_BYTES,
    Hints,
    SubmissionError,
    guess_manifest,
    pack,
)
from arbiter.server.connection.token_checks import TokensBusy
from arbiter.server.play.lobby import Lobby
from arbiter.server.play.match_logs import readable
from arbiter.server.play.submissions import Refused, store
from arbiter.server.storage.errors import StoreError, SubmissionRefused
from arbiter.server.storage.statuses import SubmissionStatus
from arbiter.server.storage.submissions import SubmissionRow
from arbiter.server.web.cookies import COOKIE, SessionCookies
from arbiter.server.web.page_shell import page
from arbiter.server.web.uploaded_files import files_of


def _agents_page(title: str, body: str, status: int = 200) -> HTMLResponse:
    return page(title, body, status, script="/static/agents.js")


FORM_BYTES = 4096
"""A sign-in or retire form's body: a name, a token, a number."""
STORE_FAILED = "the store failed (the server's log says why): try again later"


def _sign_in_form(sentence: str = "") -> str:
    said = f'<p class="error" role="alert">{html.escape(sentence)}</p>' if sentence else ""
    return (
        "<h1>Sign in</h1>"
        "<p>With your registered name and its token, to upload agents for the server to run.</p>"
        f"{said}"
        '<form method="post" action="/sign-in">'
        '<label>Name <input name="name" autocomplete="username" required></label> '
        '<label>Token <input name="token" type="password" autocomplete="current-password"'
        " required></label> "
        "<button>Sign in</button></form>"
    )


def _options(values: tuple[str, ...], first: str | None = None) -> str:
    head = f'<option value="">{first}</option>' if first else ""
    return head + "".join(f'<option value="{v}">{v}</option>' for v in values)


def _versions_table(rows: list[SubmissionRow], csrf: str) -> str:
    if not rows:
        return '<p id="no-versions">No agents uploaded yet.</p>'
    lines = []
    for row in rows:
        retire = ""
        if row.status != SubmissionStatus.RETIRED:
            retire = (
                '<form method="post" action="/agents/retire">'
                f'<input type="hidden" name="csrf" value="{csrf}">'
                f'<input type="hidden" name="name" value="{html.escape(row.name)}">'
                f'<input type="hidden" name="version" value="{row.version}">'
                "<button>Retire</button></form>"
            )
        uploaded = time.strftime("%Y-%m-%d %H:%M", time.gmtime(row.created_at))
        cells = [
            html.escape(row.name),
            f"v{row.version}",
            html.escape(row.game),
            f"{html.escape(row.language)} {html.escape(row.form)}",
            html.escape(row.status),
            f"{row.size:,}",
            uploaded + " UTC",
            f"<code>{row.hash[:12]}</code>",
            retire,
        ]
        lines.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
    head = "".join(
        f"<th>{h}</th>"
        for h in ("name", "version", "game", "kind", "status", "bytes", "uploaded", "sha256", "")
    )
    return f'<table id="versions"><tr>{head}</tr>{"".join(lines)}</table>'


def _author_page(name: str, rows: list[SubmissionRow], csrf: str, sentence: str = "") -> str:
    said = f'<p class="error" role="alert">{html.escape(sentence)}</p>' if sentence else ""
    return (
        f"<h1>Agents of {html.escape(name)}</h1>{said}"
        '<h2>Upload</h2><form id="upload" method="post" action="/agents/upload">'
        f'<input type="hidden" name="csrf" value="{csrf}">'
        f'<label>Game <select name="game">{_options(GAME_NAMES)}</select></label> '
        '<label>Name <input name="name" placeholder="the file\'s name"></label> '
        '<label>File <input name="file" type="file" required'
        ' accept=".py,.js,.mjs,.c,.cpp,.cc,.zip"></label> '
        f'<label>Form <select name="form">{_options(FORMS, "guess")}</select></label> '
        f'<label>Language <select name="language">{_options(LANGUAGES, "guess")}</select>'
        "</label> "
        '<label>Run <input name="run" placeholder="a program\'s command"></label> '
        "<button>Upload</button></form>"
        '<p id="upload-result" role="status"></p>'
        f"<h2>Versions</h2>{_versions_table(rows, csrf)}"
        '<form method="post" action="/sign-out">'
        f'<input type="hidden" name="csrf" value="{csrf}"><button>Sign out</button></form>'
    )


class AuthorPages:
    """The routes of the signed-in author's pages, for one server."""

    def __init__(self, lobby: Lobby, cookies: SessionCookies | None = None) -> None:
        self.lobby = lobby
        self.cookies = cookies or SessionCookies()

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/agents", self.agents, methods=["GET"]),
            Route("/sign-in", self.sign_in, methods=["POST"]),
            Route("/sign-out", self.guarded(self.sign_out), methods=["POST"]),
            Route("/agents/upload", self.guarded(self.upload), methods=["POST"]),
            Route("/agents/retire", self.guarded(self.retire), methods=["POST"]),
            Route("/match/{match:int}/logs", self.match_logs, methods=["GET"]),
        ]

    def author(self, request: Request) -> str | None:
        return self.cookies.read(request.cookies.get(COOKIE), time.time())

    async def agents(self, request: Request, sentence: str = "", status: int = 200) -> Response:
        author = self.author(request)
        if author is None:
            return _agents_page("Sign in", _sign_in_form(sentence), status)
        try:
            rows = await self.lobby.storage.submissions(author)
        except StoreError:
            return _agents_page("Agents", f'<p class="error">{STORE_FAILED}</p>', 503)
        csrf = self.cookies.csrf_of(request.cookies[COOKIE])
        return _agents_page("Agents", _author_page(author, rows, csrf, sentence), status)

    async def match_logs(self, request: Request) -> Response:
        """The match's hosted seats' logs the signed-in author may read (`play.match_logs`), as
        JSON for the match page (`logs`); 401 for a visitor who has not signed in."""
        author = self.author(request)
        if author is None:
            return JSONResponse({"error": "sign in to read your agents' logs"}, 401)
        match_id = int(request.path_params["match"])
        storage = self.lobby.storage
        try:
            account = await storage.find_account(author)
            kept = await storage.seat_logs(match_id)
        except StoreError:
            return JSONResponse({"error": STORE_FAILED}, 503)
        if account is None:
            return JSONResponse({"error": "sign in to read your agents' logs"}, 401)
        shown = readable(kept, account)
        entries = [{"seat": log.seat, "player": log.player, "log": log.log} for log in shown]
        return JSONResponse({"logs": entries})

    async def sign_in(self, request: Request) -> Response:
        if not _same_origin(request):
            return _agents_page("Sign in", _sign_in_form("a sign-in from another site"), 403)
        form = await _form(request)
        name, token = form.get("name", ""), form.get("token", "")
        address = request.client.host if request.client else ""
        try:
            account = await self.lobby.sign_in.verify(name, token, address) if token else None
        except TokensBusy as busy:
            return _agents_page("Sign in", _sign_in_form(str(busy)), 429)
        if account is None:
            sentence = f"wrong token for {name!r}, or no such registered player"
            return _agents_page("Sign in", _sign_in_form(sentence), 403)
        answer = RedirectResponse("/agents", status_code=303)
        value = self.cookies.issue(account.name, time.time())
        answer.headers["set-cookie"] = self.cookies.header(value, _secure(request))
        return answer

    def guarded(
        self, handler: Callable[[Request, str], Awaitable[Response]]
    ) -> Callable[[Request], Awaitable[Response]]:
        """`handler(request, author)` for a signed-in author's POST with its CSRF token (a form
        field, or the `X-CSRF-Token` header of the upload) and a same-origin `Origin`."""

        async def checked(request: Request) -> Response:
            author = self.author(request)
            if author is None:
                return await self.agents(request, "sign in first", 403)
            sent = request.headers.get("x-csrf-token")
            if sent is None:
                sent = (await _form(request)).get("csrf", "")
            csrf = self.cookies.csrf_of(request.cookies[COOKIE])
            if not _same_origin(request) or sent != csrf:
                return await self.agents(request, "a request from another page: refused", 403)
            return await handler(request, author)

        return checked

    async def sign_out(self, request: Request, author: str) -> Response:
        answer = RedirectResponse("/agents", status_code=303)
        answer.headers["set-cookie"] = self.cookies.cleared(_secure(request))
        return answer

    async def upload(self, request: Request, author: str) -> Response:
        query = request.query_params
        body = await _body(request, MAX_ARCHIVE_BYTES)
        if body is None:
            sentence = f"a submission is at most {MAX_ARCHIVE_BYTES:,} bytes (4 MiB)"
            return JSONResponse({"error": sentence}, status_code=413)
        file_name = query.get("file", "")
        game = query.get("game", "")
        name = query.get("name") or file_name.rsplit(".", 1)[0].rsplit("/", 1)[-1]
        hints = Hints(
            query.get("form") or None, query.get("language") or None, query.get("run") or None
        )
        submissions = self.lobby.submissions
        try:
            files = files_of(file_name, body)
            archive = pack(files, guess_manifest(files, hints))
            row = await store(
                self.lobby.storage, author, game, name, archive, submissions.author_limits
            )
        except (SubmissionError, Refused) as error:
            return JSONResponse({"error": str(error)}, status_code=400)
        except StoreError:
            return JSONResponse({"error": STORE_FAILED}, status_code=503)
        line = f"{row.name} v{row.version} (sha256 {row.hash}) uploaded; status {row.status}"
        return JSONResponse({"uploaded": line})

    async def retire(self, request: Request, author: str) -> Response:
        form = await _form(request)
        name, version = form.get("name", ""), form.get("version", "")
        if not version.isdigit():
            return await self.agents(request, f"no version {version!r}", 400)
        try:
            await self.lobby.storage.retire_submission(author, name, int(version))
        except SubmissionRefused as error:
            return await self.agents(request, str(error), 400)
        except StoreError:
            return await self.agents(request, STORE_FAILED, 503)
        return RedirectResponse("/agents", status_code=303)


async def _body(request: Request, limit: int) -> bytes | None:
    """The request's body, or None once it passes `limit` bytes (the rest is not read)."""
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit:
            return None
    return bytes(data)


async def _form(request: Request) -> dict[str, str]:
    """A small urlencoded form's fields (the first value of each); empty past `FORM_BYTES`."""
    cached: dict[str, str] | None = getattr(request.state, "form", None)
    if cached is not None:
        return cached
    body = await _body(request, FORM_BYTES)
    fields = parse_qs((body or b"").decode(errors="replace"), max_num_fields=8)
    form = {key: values[0] for key, values in fields.items()}
    request.state.form = form
    return form


def _secure(request: Request) -> bool:
    return request.url.scheme == "https"


def _same_origin(request: Request) -> bool:
    """False when the browser says the request comes from a page of another origin."""
    origin = request.headers.get("origin")
    if origin is None:
        return True  # not a browser's cross-site request (those carry an Origin on POST)
    return origin == f"{request.url.scheme}://{request.headers.get('host', '')}"
