"""A page's WebSocket is an ordinary protocol client: its input is checked as any TCP client's,
a spectator only reads, the limits hold, and no token reaches a URL or the server's log."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

from tests.web.bots import PacedMatch
from tests.web.conftest import WebServer

TALK = """async ([outgoing, wanted]) => {
  const socket = new WebSocket(`ws://${location.host}/socket`);
  const heard = [];
  await new Promise((resolve, reject) => {
    socket.onopen = () => outgoing.forEach((m) => socket.send(typeof m === "string" ? m
      : JSON.stringify(m)));
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type !== "ping") heard.push(message);
      if (heard.length >= wanted) resolve();
    };
    socket.onclose = () => resolve();
    setTimeout(resolve, 20000);
  });
  socket.close();
  return heard;
}"""
"""Send messages (objects as JSON, strings as they are) and gather what comes back."""


def talk(page: Page, outgoing: list[Any], wanted: int) -> list[dict[str, Any]]:
    heard: list[dict[str, Any]] = page.evaluate(TALK, [outgoing, wanted])
    return heard


HELLO = {"type": "hello", "version": 1, "name": "web-tester"}


def test_bad_input_from_a_page_gets_the_servers_sentences(
    web_server: WebServer, page: Page
) -> None:
    page.goto(web_server.url)
    heard = talk(
        page,
        [HELLO, "{not json", {"type": "seek", "game": "chess"}, [1, 2], {"type": "warp"}],
        5,
    )
    assert heard[0]["type"] == "welcome"
    codes = sorted(message["code"] for message in heard[1:])  # a seek is answered in a task
    assert codes == ["not_a_map", "not_a_map", "unknown_game", "unknown_type"], heard
    assert "{not json" in heard_about(heard, "not_a_map")
    assert all(message["message"] for message in heard[1:])


def heard_about(heard: list[dict[str, Any]], code: str) -> str:
    return " ".join(message["message"] for message in heard if message.get("code") == code)


def test_a_spectator_reads_a_match_and_cannot_move_in_it(web_server: WebServer, page: Page) -> None:
    match = PacedMatch(web_server.port, "amazons", {}, pause=0.2).start()
    page.goto(web_server.url)
    watch = {"type": "watch", "match": match.match}
    move = {"type": "move", "match": match.match, "move": "d1-d2/d3"}
    heard = talk(page, [HELLO, watch, move], 4)
    assert heard[0]["type"] == "welcome", heard
    # the refusal of the move may come before the snapshot, which is answered in a task
    watching = next(message for message in heard if message["type"] == "watching")
    assert len(watching["states"]) == len(watching["moves"]) + 1
    refusal = next(message for message in heard if message["type"] == "error")
    assert refusal["code"] == "not_your_match"  # (the players go when the server stops)


def test_a_page_that_never_says_hello_is_closed_as_a_tcp_client_is(
    web_server: WebServer, page: Page
) -> None:
    page.goto(web_server.url)
    heard = talk(page, [], 1)  # the default hello deadline is 5 s
    assert [message["code"] for message in heard] == ["hello_timeout"]


def test_a_token_goes_in_the_hello_and_nowhere_else(web_server: WebServer, page: Page) -> None:
    page.goto(web_server.url)
    secret = "f" * 32
    heard = talk(page, [{**HELLO, "name": "ann", "token": secret}], 1)
    assert heard[0]["type"] in ("welcome", "error")
    assert secret not in page.url
    assert secret not in web_server.log.read_text()
