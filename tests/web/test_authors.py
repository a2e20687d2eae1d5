"""A signed-in author's pages in the real browser: sign-in with a token, a cookie that scripts
cannot read, uploads of a file and of a zipped folder, refusals in the same sentences as
`arbiter submit`, retiring, and POSTs refused without the page's CSRF token."""

from __future__ import annotations

import io
import re
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.tournament.helpers import register
from tests.web.conftest import WebServer

PLAYER_MODULE = "class Player:\n    def __init__(self, colour):\n        pass\n"


def sign_in(page: Page, web_server: WebServer, name: str, token: str) -> None:
    page.goto(f"{web_server.url}/agents")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Token").fill(token)
    page.get_by_role("button", name="Sign in").click()


def test_sign_in_upload_and_retire(page: Page, web_server: WebServer, tmp_path: Path) -> None:
    token = register(web_server.db, "ann")["ann"]
    sign_in(page, web_server, "ann", "not-the-token")
    expect(page.get_by_role("alert")).to_have_text(
        "wrong token for 'ann', or no such registered player"
    )
    sign_in(page, web_server, "ann", token)
    expect(page.get_by_role("heading", name="Agents of ann")).to_be_visible()
    assert token not in page.url
    cookie = next(c for c in page.context.cookies() if c["name"] == "arbiter_session")
    assert (cookie["httpOnly"], cookie["sameSite"]) == (True, "Strict")
    assert page.evaluate("document.cookie") == "", "no script reads the sign-in"

    agent = tmp_path / "my-agent.py"
    agent.write_text(PLAYER_MODULE)
    page.get_by_label("File").set_input_files(str(agent))
    page.get_by_role("button", name="Upload").click()
    expect(page.get_by_role("status")).to_have_text(
        re.compile(r"my-agent v1 \(sha256 [0-9a-f]{64}\) uploaded; status validating")
    )
    expect(page.locator("#versions")).to_contain_text("my-agent")

    folder = io.BytesIO()
    with zipfile.ZipFile(folder, "w") as zipped:
        zipped.writestr("bot/package.json", '{"main": "client.js"}')
        zipped.writestr("bot/client.js", "console.log('hi')\n")
    bundle = tmp_path / "node-bot.zip"
    bundle.write_bytes(folder.getvalue())
    page.get_by_label("Game").select_option("amazons")
    page.get_by_label("File").set_input_files(str(bundle))
    page.get_by_role("button", name="Upload").click()
    expect(page.get_by_role("status")).to_have_text(re.compile(r"node-bot v1 .* uploaded"))
    expect(page.locator("#versions")).to_contain_text("node program")

    binary = tmp_path / "bot.c"
    binary.write_bytes(b"\x7fELF\x02\x01\x01" + b"\x00" * 40)
    page.get_by_label("File").set_input_files(str(binary))
    page.get_by_role("button", name="Upload").click()
    expect(page.get_by_role("status")).to_have_text(
        "'bot.c' is an ELF executable or library: a submission holds sources, built where it runs"
    )

    row = page.locator("#versions tr", has_text="my-agent")
    row.get_by_role("button", name="Retire").click()
    expect(page.locator("#versions tr", has_text="my-agent")).to_contain_text("retired")
    expect(page.locator("#versions tr", has_text="my-agent").get_by_role("button")).to_have_count(0)

    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()


def test_a_post_without_the_pages_token_is_refused(page: Page, web_server: WebServer) -> None:
    token = register(web_server.db, "ann")["ann"]
    sign_in(page, web_server, "ann", token)
    expect(page.get_by_role("heading", name="Agents of ann")).to_be_visible()
    status = page.evaluate(
        """async () => (await fetch('/agents/retire', {method: 'POST',
            headers: {'Content-Type': 'application/x-www-form-urlencoded'},
            body: 'name=x&version=1&csrf=forged'})).status"""
    )
    assert status == 403
    # without the cookie at all (another site's request carries none: SameSite=Strict)
    request = urllib.request.Request(
        f"{web_server.url}/agents/upload?file=a.py&game=kings-court",
        data=PLAYER_MODULE.encode(),
        method="POST",
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 403
    assert "sign in first" in refused.value.read().decode()
