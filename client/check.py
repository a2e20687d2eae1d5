"""`arbiter check`: a conformance run for a client, before it plays for real (fastchess's
`--compliance`, for Arbiter).

The client under test is a program of any language that the check waits for on HOST:PORT, or a
Player module or agent name that the check starts itself. Either way it talks to a real Arbiter
server through the check's relay, which passes every byte on unchanged and reads both
directions with the protocol package, so the check judges exactly what went over the wire:

1. handshake: the client's `hello` is welcomed;
2. framing: every frame it sent was well formed and allowed when it was sent;
3. a full game against `random`: its seek is answered by the check's random agent, and the game
   ends by the game's own rules, not by a default (time, illegal move, disconnect, resignation);
4. move time: no move was answered after 90% of its time (a network away, lag would lose it).

Then three probes of the server with the check's own connections, which tell a student whether
this server and the path to it behave as documented before a tournament depends on it:

5. a move answered after 90% of the limit is accepted;
6. an illegal-position probe: a move that is well formed but illegal in the position is refused
   with `illegal_move` and a reason;
7. a reconnect: a connection dropped mid-game comes back with the session of its first
   `welcome` and gets its match back. A server without resuming fails this step, clearly.

The server is a local one on a free port unless `--server` names one.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import ssl
import sys
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import trio

from arbiter import protocol
from arbiter.agents import make_agent
from arbiter.client.connection import (
    MAX_FRAME,
    RECEIVE_SIZE,
    ClientConnection,
    ConnectionClosed,
    ServerError,
    open_stream,
)
from arbiter.client.options import add_server_option, host_port, server_tls
from arbiter.client.player_module import (
    PlayerCrashed,
    agent_or_module,
    is_module_path,
    player_name,
    run_player_bot,
)
from arbiter.client.runner import play_one, run_bot
from arbiter.client.verdict import verdict
from arbiter.games import GAME_NAMES, Game, get_game
from arbiter.server.app import local_server

HOST = "127.0.0.1"
CHECK_GRACE = 10.0
"""Seconds the local server keeps a dropped seat: a server's default, as a real one would."""
LATE_FRACTION = 0.9
"""A move answered later than this fraction of its time fails step 4, and step 5 answers at it."""
PROBE_SECONDS = 1.0
"""The per-move limit of the probe matches: long enough for loopback, short enough to wait."""
RESUME_SECONDS = 3.0
"""How long the reconnect probe waits for its match to come back."""
PROBE_TIMEOUT = 30.0
"""A probe that has not finished by then has stalled (a server that never answers)."""
STEP_NAMES = (
    "handshake",
    "framing",
    "full game against random",
    "move time",
    "a move answered after 90% of the limit",
    "illegal-position probe",
    "reconnect",
)


@dataclass(frozen=True, slots=True)
class Step:
    name: str
    passed: bool
    why: str

    def line(self) -> str:
        return f"  {'PASS' if self.passed else 'FAIL'}  {self.name}: {self.why}"


# --------------------------------------------------------------------------------------------
# What the relay saw of the client's session, and the judgement of steps 1-4 (pure).


@dataclass
class Seen:
    """The client's session as the relay read it, both directions."""

    connected: bool = False
    frames: int = 0
    hello: protocol.Hello | None = None
    welcome: protocol.Welcome | None = None
    refusal: str | None = None
    """The server's `error` answering the handshake, if it refused it."""
    frame_errors: list[str] = field(default_factory=list)
    seek: protocol.Seek | None = None
    started: protocol.MatchStarted | None = None
    game_over: protocol.GameOver | None = None
    move_times: list[tuple[int, float, float]] = field(default_factory=list)
    """(ply, elapsed, time it had) of each of the client's accepted moves."""
    refused: protocol.MoveRefused | None = None
    time_left: float = 0.0
    waiting_ply: int | None = None
    """The ply of a `your_turn` the client has not answered yet."""
    sought: trio.Event = field(default_factory=trio.Event)
    done: trio.Event = field(default_factory=trio.Event)


def judge_handshake(seen: Seen, address: str) -> Step:
    name = STEP_NAMES[0]
    if not seen.connected:
        return Step(name, False, f"no client connected to {address}")
    if seen.hello is None:
        return Step(name, False, "the client never sent a well-formed hello")
    if seen.welcome is None:
        refusal = seen.refusal or "no welcome came back"
        return Step(name, False, f"hello as {seen.hello.name!r} was refused: {refusal}")
    return Step(name, True, f"hello (version {seen.hello.version}) as {seen.hello.name!r} welcomed")


def judge_framing(seen: Seen) -> Step:
    name = STEP_NAMES[1]
    if not seen.connected:
        return Step(name, False, "not reached: no client")
    if seen.frame_errors:
        count = len(seen.frame_errors)
        return Step(
            name, False, f"{count} bad frame(s) of {seen.frames}; first: {seen.frame_errors[0]}"
        )
    return Step(name, True, f"all {seen.frames} frames from the client well formed and in order")


def judge_full_game(seen: Seen, game_over_by_rules: bool) -> Step:
    name = STEP_NAMES[2]
    if seen.seek is None:
        return Step(name, False, "the client never sent a seek")
    over = seen.game_over
    if seen.started is None or over is None:
        return Step(name, False, "the game never finished")
    if seen.refused is not None:
        return Step(
            name, False, f"its move {seen.refused.move!r} was refused: {seen.refused.reason}"
        )
    ending = _ending(over)
    if not game_over_by_rules:
        return Step(name, False, f"ended by default, not by the rules: {ending}")
    return Step(name, True, f"{len(over.moves)} moves as {seen.started.seat}; {ending}")


def judge_move_time(seen: Seen) -> Step:
    name = STEP_NAMES[3]
    if seen.game_over is not None and seen.waiting_ply is not None:
        ply = seen.waiting_ply + 1
        return Step(name, False, f"move {ply} was never answered within its {seen.time_left:g} s")
    if not seen.move_times:
        return Step(name, False, "the client made no move")
    ply, elapsed, allowed = max(seen.move_times, key=lambda t: t[1] / t[2] if t[2] else 1.0)
    share = elapsed / allowed if allowed else 1.0
    timing = f"{elapsed:.3f} s of its {allowed:g} s ({share:.0%})"
    if share > LATE_FRACTION:
        return Step(
            name,
            False,
            f"move {ply} took {timing}: over {LATE_FRACTION:.0%}, where network lag forfeits it",
        )
    return Step(name, True, f"slowest of {len(seen.move_times)} moves: move {ply}, {timing}")


def _ending(over: protocol.GameOver) -> str:
    return verdict(over.result, over.winner, over.reason)


def ended_by_rules(game: Game[Any, Any], options: dict[str, Any], moves: list[str]) -> bool:
    """Whether the moves reach a position the rules call finished (a default or a resignation
    ends a game the rules would have continued)."""
    return game.replay(options, moves).outcome() is not None


# --------------------------------------------------------------------------------------------
# The relay: every byte passed on unchanged, both directions read.


@dataclass(frozen=True, slots=True)
class Upstream:
    """The server the check plays on, and its TLS settings if it serves TLS (`--tls`): the
    client under test always talks plain TCP to the relay, which speaks TLS onwards."""

    host: str
    port: int
    tls: ssl.SSLContext | None = None

    async def connect(self, name: str) -> ClientConnection:
        return await ClientConnection.open(self.host, self.port, name, tls=self.tls)

    async def stream(self) -> trio.abc.Stream:
        return await open_stream(self.host, self.port, self.tls)


class Relay:
    """Sits between the client under test and the server, reading what each side sends."""

    def __init__(self, seen: Seen, server: Upstream) -> None:
        self.seen = seen
        self.server = server
        self._judge = protocol.Connection(protocol.SERVER)
        self._reader = protocol.FrameDecoder(MAX_FRAME)

    async def serve(self, client: trio.SocketStream) -> None:
        if self.seen.connected:
            await client.aclose()  # one client per check: a second one would muddle the record
            return
        self.seen.connected = True
        upstream = await self.server.stream()
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._pump, client, upstream, self._from_client, nursery)
                nursery.start_soon(self._pump, upstream, client, self._from_server, nursery)
        finally:
            await trio.aclose_forcefully(upstream)
            await trio.aclose_forcefully(client)
            self.seen.done.set()

    async def _pump(
        self,
        source: trio.abc.Stream,
        sink: trio.abc.Stream,
        read: Callable[[bytes | bytearray], None],
        nursery: trio.Nursery,
    ) -> None:
        """Copy one direction until it ends; then the whole relay ends, as a TCP proxy would."""
        try:
            while data := await source.receive_some(RECEIVE_SIZE):
                read(data)
                await sink.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        nursery.cancel_scope.cancel()

    def _from_client(self, data: bytes | bytearray) -> None:
        if self._judge.dead:
            return  # a fatal frame error lost the frame boundaries: nothing more can be judged
        self._judge.receive_data(data)
        while True:
            try:
                message = self._judge.next_message()
            except protocol.PeerError as error:
                self.seen.frames += 1
                self.seen.frame_errors.append(f"{error.code.value}: {error}")
                if error.fatal:
                    return
                continue
            if message is protocol.NEED_DATA or message is protocol.CLOSED:
                return
            self.seen.frames += 1
            self._client_said(message)

    def _client_said(self, message: protocol.Message) -> None:
        if isinstance(message, protocol.Hello):
            self.seen.hello = message
            # The server answers at once, and a client may send its next request before the
            # welcome reaches it: the judge moves to OPEN now, as the server's session does.
            self._judge.send(protocol.Welcome(version=message.version, session="-", server="-"))
        elif isinstance(message, protocol.Seek) and self.seen.seek is None:
            self.seen.seek = message
            self.seen.sought.set()

    def _from_server(self, data: bytes | bytearray) -> None:
        """Follow the server's side, in the version the client's hello asked for (the judge's);
        what that version cannot read is the server's business."""
        self._reader.feed(data)
        while not self._reader.dead:
            try:
                payload = self._reader.next_frame()
                if payload is protocol.NEED_DATA or payload is protocol.CLOSED:
                    return
                self._server_said(protocol.message_from_wire(payload, self._judge.version))
            except protocol.PeerError:
                continue

    def _server_said(self, message: protocol.Message) -> None:
        seen = self.seen
        match message:
            case protocol.Welcome():
                seen.welcome = message
            case protocol.Error() if seen.welcome is None:
                seen.refusal = f"{message.code}: {message.message}"
            case protocol.MatchStarted() if seen.started is None:
                seen.started = message
            case protocol.YourTurn(ply=ply, time_left=time_left):
                seen.time_left, seen.waiting_ply = time_left, ply
            case protocol.MoveAccepted(ply=ply, elapsed=elapsed):
                seen.move_times.append((ply, elapsed, seen.time_left))
                seen.waiting_ply = None
            case protocol.MoveRefused():
                seen.refused, seen.waiting_ply = message, None
            case protocol.GameOver() if seen.started and message.match == seen.started.match:
                seen.game_over = message
                seen.done.set()


# --------------------------------------------------------------------------------------------
# Probes of the server, with the check's own connections.

PROBE_FAILURES = (ConnectionClosed, ServerError, OSError, trio.TooSlowError)


async def _pair(server: Upstream, game: Game[Any, Any]) -> list[ClientConnection]:
    """Two fresh connections in one match of `game` at `PROBE_SECONDS` a move, first seat first."""
    seek = protocol.Seek(game=game.name, options={}, time={"move": PROBE_SECONDS}, hints=True)
    pair = []
    for name in ("check-probe-a", "check-probe-b"):
        connection = await server.connect(name)
        await connection.send(seek)
        await _until(connection, protocol.Seeking, protocol.MatchStarted)
        pair.append(connection)
    return pair


async def _until(connection: ClientConnection, *kinds: type[protocol.Message]) -> Any:
    while True:
        message = await connection.receive()
        if isinstance(message, kinds):
            return message


async def probe_late_and_illegal(server: Upstream, game: Game[Any, Any]) -> list[Step]:
    """Steps 5 and 6 in one probe match: the first seat answers late, the second illegally."""
    first, second = await _pair(server, game)
    async with first, second:
        turn = await _until(first, protocol.YourTurn)
        await trio.sleep(LATE_FRACTION * turn.time_left)
        move = game.format_move(game.state_from_data(turn.state).legal_moves()[0])
        await first.send(protocol.Move(match=turn.match, move=move))
        late = await _until(first, protocol.MoveAccepted, protocol.GameOver)
        if isinstance(late, protocol.GameOver):
            return [_judge_late(late, turn.time_left), Step(STEP_NAMES[5], False, "not reached")]
        turn = await _until(second, protocol.YourTurn)
        illegal = illegal_move_text(game, turn.state)
        await second.send(protocol.Move(match=turn.match, move=illegal))
        kinds = (protocol.MoveRefused, protocol.MoveAccepted, protocol.GameOver)
        answer = await _until(second, *kinds)
    return [_judge_late(late, turn.time_left), _judge_illegal(answer, illegal)]


def _judge_late(answer: protocol.Message, limit: float) -> Step:
    name = STEP_NAMES[4]
    if isinstance(answer, protocol.MoveAccepted):
        counted = f"the server counted {answer.elapsed:.3f} s of {limit:g} s"
        return Step(
            name, True, f"answered at {LATE_FRACTION:.0%} of the limit, {counted}, accepted"
        )
    assert isinstance(answer, protocol.GameOver)
    return Step(name, False, f"refused: the game ended: {_ending(answer)}")


def _judge_illegal(answer: protocol.Message, move: str) -> Step:
    name = STEP_NAMES[5]
    if isinstance(answer, protocol.MoveRefused) and answer.code == "illegal_move" and answer.reason:
        return Step(name, True, f"{move} refused as illegal_move: {answer.reason}")
    return Step(name, False, f"{move} is illegal in the position, yet the server answered {answer}")


def illegal_move_text(game: Game[Any, Any], data: dict[str, Any]) -> str:
    """A well-formed move that is illegal for the mover: one of the opponent's replies to a
    legal move, which moves the opponent's pieces (found by the rules, so it works for every
    game)."""
    state = game.state_from_data(data)
    for move in state.legal_moves():
        after = state.play(move)
        for reply in after.legal_moves():
            if state.why_illegal(reply) is not None:
                return str(game.format_move(reply))
    raise ValueError(f"no well-formed illegal move found in {game.name} position {data!r}")


async def probe_reconnect(server: Upstream, game: Game[Any, Any]) -> Step:
    """Step 7: drop the first seat's connection on its turn, then come back with its session."""
    name = STEP_NAMES[6]
    first, second = await _pair(server, game)
    async with second:
        session = first.session
        turn = await _until(first, protocol.YourTurn)
        await first.aclose()
        try:
            back = await _open_resuming(server, session)
        except (ConnectionClosed, protocol.PeerError, OSError) as error:
            return Step(name, False, f"hello with the session of the first welcome failed: {error}")
        async with back:
            resumed = await _resumed(back, turn.match)
            if resumed:
                await back.send(protocol.Resign(match=turn.match))
                return Step(name, True, f"match {turn.match} came back after reconnecting")
        with trio.move_on_after(RESUME_SECONDS):
            over = await _until(second, protocol.GameOver)
            ended = f"match {turn.match} ended while its seat was away: {_ending(over)}"
            return Step(name, False, f"the server does not support resuming: {ended}")
    return Step(
        name,
        False,
        f"the server does not support resuming: no word of match {turn.match} "
        f"within {RESUME_SECONDS:g} s of reconnecting with the session of the first welcome",
    )


async def _open_resuming(server: Upstream, session: str) -> ClientConnection:
    """A new connection whose hello carries the old session: as `resume` where the protocol has
    that field, else as the `token` the first protocol version passes on."""
    fields = {f.name for f in dataclasses.fields(protocol.Hello)}
    key = "resume" if "resume" in fields else "token"
    stream = await server.stream()
    connection = ClientConnection(stream, "check-probe-a", "")
    hello = protocol.Hello(
        version=protocol.PROTOCOL_VERSION, name="check-probe-a", **{key: session}
    )
    await connection.send(hello)
    welcome = await connection.receive()
    if not isinstance(welcome, protocol.Welcome):
        await connection.aclose()
        raise ConnectionClosed(f"expected welcome, got {welcome!r}")
    return connection


async def _resumed(connection: ClientConnection, match_id: int) -> bool:
    """Whether the server speaks of `match_id` again (a `resumed` frame, or a `your_turn`)."""
    resumed = getattr(protocol, "Resumed", protocol.YourTurn)
    with trio.move_on_after(RESUME_SECONDS):
        while True:
            message = await connection.receive()
            if isinstance(message, resumed | protocol.YourTurn) and message.match == match_id:
                return True
    return False


# --------------------------------------------------------------------------------------------
# The run.


@dataclass(frozen=True, slots=True)
class CheckPlan:
    """What to check: a client to wait for at `listen`, or a `player` (module or agent) to start."""

    listen: tuple[str, int]
    player: str | None = None
    game: str = "watch-your-back"
    move_time: float = 5.0
    server: Upstream | None = None
    wait: float = 60.0
    """Seconds to wait for the client to connect, and then to seek."""
    timeout: float = 600.0
    """Seconds the client's game may take."""


async def run_check(plan: CheckPlan, show: Callable[[str], None] = print) -> list[Step]:
    """Run every step, showing each line as it is decided; returns the steps."""
    async with AsyncExitStack() as stack:
        server = plan.server
        if server is None:
            server = Upstream(*await stack.enter_async_context(local_server(grace=CHECK_GRACE)))
        async with trio.open_nursery() as nursery:
            steps, game_name = await _check_client(plan, server, nursery, show)
            steps += await _check_server(get_game(game_name), server, show)
            nursery.cancel_scope.cancel()
    show(f"{sum(step.passed for step in steps)} of {len(steps)} steps passed")
    return steps


async def _check_client(
    plan: CheckPlan, server: Upstream, nursery: trio.Nursery, show: Callable[[str], None]
) -> tuple[list[Step], str]:
    """Steps 1-4, and the game the client chose (the probes play it too)."""
    seen = Seen()
    relay = Relay(seen, server)
    serve = partial(trio.serve_tcp, relay.serve, plan.listen[1], host=plan.listen[0])
    listeners = await nursery.start(serve)
    host, port = listeners[0].socket.getsockname()[:2]
    address = f"{host}:{port}"
    subject = plan.player or "your client"
    upstream = f"{server.host}:{server.port}"
    show(f"arbiter check: {subject} at {address}, relayed to the server at {upstream}")
    if plan.player is not None:
        nursery.start_soon(_start_player, plan, (host, port))
    else:
        show(f"waiting {plan.wait:g} s for your client to connect to {address} and seek a game")
    with trio.move_on_after(plan.wait):
        await seen.sought.wait()
    game = None
    if seen.seek is not None:
        game = get_game(seen.seek.game) if seen.seek.game in GAME_NAMES else None
        if game is not None:
            nursery.start_soon(_random_opponent, server, game, seen.seek)
        with trio.move_on_after(plan.timeout):
            await seen.done.wait()
    steps = [judge_handshake(seen, address), judge_framing(seen)]
    steps += [judge_full_game(seen, _by_rules(seen)), judge_move_time(seen)]
    for step in steps:
        show(step.line())
    return steps, game.name if game is not None else plan.game


def _by_rules(seen: Seen) -> bool:
    if seen.started is None or seen.game_over is None:
        return False
    game = get_game(seen.started.game)
    return ended_by_rules(game, seen.started.options, seen.game_over.moves)


async def _start_player(plan: CheckPlan, address: tuple[str, int]) -> None:
    """The client under test when the check starts it: a Player module or one of our agents."""
    assert plan.player is not None
    name = player_name(plan.player)
    time_control = {"move": plan.move_time}
    try:
        if is_module_path(plan.player):
            path = Path(plan.player)
            await run_player_bot(*address, plan.game, path, name=name, time_control=time_control)
        else:
            player = plan.player
            await run_bot(
                *address,
                plan.game,
                lambda game, _: make_agent(player, game),
                name=name,
                time_control=time_control,
            )
    except (PlayerCrashed, ConnectionClosed, ServerError, OSError):
        pass  # reported on stderr; the steps show what it cost


async def _random_opponent(server: Upstream, game: Game[Any, Any], seek: protocol.Seek) -> None:
    """The check's `random`, seeking exactly what the client sought so the server pairs them."""
    agent = make_agent("random", game, random.randrange(2**31))
    try:
        async with await server.connect("random") as connection:
            await play_one(connection, game, agent, options=seek.options, time_control=seek.time)
    except (ConnectionClosed, OSError):
        pass  # the client's step shows why its game did not finish


async def _check_server(
    game: Game[Any, Any], server: Upstream, show: Callable[[str], None]
) -> list[Step]:
    """Steps 5-7; a probe the server breaks off fails its steps rather than the whole check."""
    try:
        with trio.fail_after(PROBE_TIMEOUT):
            steps = await probe_late_and_illegal(server, game)
    except PROBE_FAILURES as error:
        steps = [_broken_off(name, error) for name in STEP_NAMES[4:6]]
    for step in steps:
        show(step.line())
    try:
        with trio.fail_after(PROBE_TIMEOUT):
            steps.append(await probe_reconnect(server, game))
    except PROBE_FAILURES as error:
        steps.append(_broken_off(STEP_NAMES[6], error))
    show(steps[-1].line())
    return steps


def _broken_off(name: str, error: Exception) -> Step:
    if isinstance(error, trio.TooSlowError):
        return Step(name, False, f"the probe match stalled for {PROBE_TIMEOUT:g} s")
    return Step(name, False, f"the probe match broke off: {error}")


# --------------------------------------------------------------------------------------------
# The command line.


def add_arguments(check: argparse.ArgumentParser) -> None:
    """`arbiter check`'s arguments (`client.cli` stays free of the check's details)."""
    check.add_argument(
        "target",
        metavar="HOST:PORT|MODULE.py|AGENT",
        help="where to wait for your client, or a Player module / agent for the check to start",
    )
    check.add_argument("--game", choices=GAME_NAMES, default="watch-your-back")
    check.add_argument("--move-time", type=float, default=5.0, help="seconds per move to seek")
    add_server_option(check, help="check against this server, not a local one")
    check.add_argument("--wait", type=float, default=60.0, help="seconds to wait for the client")
    check.set_defaults(run=run_check_command)


def plan_from_args(args: argparse.Namespace) -> CheckPlan:
    target: str = args.target
    server = None
    if args.server is not None:
        host, port = args.server
        server = Upstream(host, port, server_tls(args))
    common = {
        "game": args.game,
        "move_time": args.move_time,
        "server": server,
        "wait": args.wait,
    }
    if is_module_path(target) or not _looks_like_address(target):
        return CheckPlan(listen=(HOST, 0), player=agent_or_module(target), **common)
    return CheckPlan(listen=host_port(target), **common)


def _looks_like_address(text: str) -> bool:
    return ":" in text and text.rpartition(":")[2].isdigit()


def run_check_command(args: argparse.Namespace) -> int:
    try:
        plan = plan_from_args(args)
    except argparse.ArgumentTypeError as error:
        print(f"arbiter check: {error}", file=sys.stderr)
        return 2
    steps = trio.run(run_check, plan)
    return 0 if all(step.passed for step in steps) else 1
