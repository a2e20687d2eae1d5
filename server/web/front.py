"""The web front: pages and WebSockets served by hypercorn's trio worker, in the server's own
process and nursery (docs/web.md says why: no second event loop, no second client hop).

Every page is one HTML shell with its ES modules (`static/`, shipped in the wheel); the page's
path (`/match/12`, `/tournament/spring`, `/player/ann`) says which view the modules draw. The
one live channel is `/socket`: each WebSocket is admitted and served like a TCP connection
(`server.admitted`), so the caps, the hello deadline, the request rate and the output bounds of
`server.admission` and `server.limits` hold for a browser as for any client.
"""

from __future__ import annotations

import functools
import json
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path

import trio
from hypercorn.config import Config
from hypercorn.trio import serve
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from arbiter import protocol
from arbiter.server.admission import Doorway
from arbiter.server.admitted import serve_admitted
from arbiter.server.lobby import Lobby
from arbiter.server.web.pages import shared_translations
from arbiter.server.web.socket import WebSocketStream
from arbiter.server.web.stored import match_ending, player_games

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
SHELL = STATIC / "index.html"
PAGES = ("/", "/match/{match:int}", "/tournament/{name}", "/player/{name}", "/play")
"""The paths that show the shell; its modules read the path."""


def web_app(lobby: Lobby, doorway: Doorway, db_path: str | Path) -> Starlette:
    """The pages, the static files, the WebSocket endpoint and the records of one server."""
    translations = shared_translations()

    async def from_the_store(read: Callable[[], object], what: str) -> JSONResponse:
        try:
            found = await trio.to_thread.run_sync(read)
        except sqlite3.Error as error:
            log.error("cannot read the records for %s: %s", what, error)
            return JSONResponse({"error": "the records cannot be read now"}, status_code=503)
        if found is None:
            return JSONResponse({"error": "no finished match by that number"}, status_code=404)
        return JSONResponse(found)

    async def games_of(request: Request) -> JSONResponse:
        name = request.path_params["name"]
        read = functools.partial(player_games, db_path, name)
        return await from_the_store(lambda: {"player": name, "games": read()}, "a player page")

    async def ending_of(request: Request) -> JSONResponse:
        read = functools.partial(match_ending, db_path, request.path_params["match"])
        return await from_the_store(read, "a match's ending")

    async def shell(request: Request) -> FileResponse:
        return FileResponse(SHELL, headers={"Cache-Control": "no-cache"})

    async def socket(websocket: WebSocket) -> None:
        client = websocket.client
        address, port = (client.host, client.port) if client is not None else ("", 0)

        async def refuse(code: protocol.ErrorCode, sentence: str) -> None:
            await websocket.accept()
            error = protocol.Error(code=code, message=sentence).to_wire()
            await websocket.send_text(json.dumps(error))
            await websocket.close()

        async def accept() -> trio.abc.Stream:
            await websocket.accept()
            return WebSocketStream(websocket, translations)

        await serve_admitted(lobby, doorway, address, f"{address}:{port}", refuse, accept)

    routes: list[BaseRoute] = [Route(path, shell) for path in PAGES]
    routes.append(WebSocketRoute("/socket", socket))
    routes.append(Route("/records/player/{name}", games_of))
    routes.append(Route("/records/match/{match:int}", ending_of))
    routes.append(Mount("/static", StaticFiles(directory=STATIC), name="static"))
    return Starlette(routes=routes)


def web_config(host: str, port: int) -> Config:
    """Hypercorn's settings: no access log (a page's path is all it would say, and the server's
    own log has each connection), messages no larger than the protocol's frames."""
    config = Config()
    config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    config.accesslog = None
    config.errorlog = log
    config.include_server_header = False
    config.websocket_max_message_size = protocol.DEFAULT_MAX_FRAME
    return config


async def serve_web(
    lobby: Lobby,
    doorway: Doorway,
    host: str,
    port: int,
    db_path: str | Path,
    task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve the web front until cancelled; reports its address (`http://HOST:PORT`)."""
    async with trio.open_nursery() as nursery:
        app, config = web_app(lobby, doorway, db_path), web_config(host, port)
        bound: list[str] = await nursery.start(serve, app, config)
        task_status.started(bound[0])
