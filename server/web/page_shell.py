"""The frame of the pages the server builds itself (an author's agents, a ladder): the site's
header and style around a body, never cached, since each shows the store as it stands."""

from __future__ import annotations

import html

from starlette.responses import HTMLResponse


def page(title: str, body: str, status: int = 200, script: str | None = None) -> HTMLResponse:
    """`body` (HTML, its text escaped by the caller) in the site's frame, with the module
    `script` (a path under /static/) if the page has one."""
    loaded = "" if script is None else f'<script type="module" src="{script}"></script>'
    return HTMLResponse(
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)} - Arbiter</title>"
        '<link rel="stylesheet" href="/static/style.css"></head><body>'
        '<header><a href="/" class="home">Arbiter</a> <a href="/play">Play</a>'
        ' <a href="/agents">Agents</a></header>'
        f"<main>{body}</main>{loaded}</body></html>",
        status_code=status,
        headers={"Cache-Control": "no-store"},
    )
