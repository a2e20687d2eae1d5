"""`arbiter-server`: run the referee server until Ctrl-C; `arbiter-server admin`: its accounts
and classes."""

from __future__ import annotations

import argparse
import gc
import logging
import math
import ssl
import sys
from functools import partial

import trio

from arbiter.games import OptionError, all_games, get_game
from arbiter.protocol import TimeControl, TimeControlError
from arbiter.server.admin_class import add_class_commands
from arbiter.server.admin_ladder import add_ladder_commands
from arbiter.server.admin_leagues import add_league_commands
from arbiter.server.admin_roster import add_roster_commands
from arbiter.server.app import (
    DB_HELP,
    DEFAULT_PORT,
    AgentProgram,
    LadderSettings,
    Limits,
    LocalWorkers,
    WebFront,
    bound_port,
    default_db,
    serve,
    server_tls,
)
from arbiter.server.common import logs
from arbiter.server.connection.admission import DEFAULT, Admission
from arbiter.server.storage import accounts
from arbiter.server.storage.engine import open_database
from arbiter.server.storage.errors import (
    DatabaseInUse,
    NoSuchFile,
    NotStored,
    ReadOnlyDatabase,
    StoreError,
    failing_as,
)
from arbiter.server.storage.ladders import DEFAULT_CONTROL
from arbiter.server.tournaments.leagues import LeagueRefused
from arbiter.server.tournaments.local_agents import LocalAgentsError

log = logging.getLogger("arbiter.server")

YOUNG_COLLECTION_THRESHOLD = 10_000
"""Container allocations between the cycle collector's young-generation passes (Python's default
is 700). A move allocates hundreds of short-lived tuples and dicts that reference counting frees
anyway; with the default, under hundreds of matches, the collector's passes over a heap full of
live matches take a good part of the server's time (bench/server.py measures it)."""


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["admin"]:
        return admin(argv[1:])
    parser = _parser()
    args = parser.parse_args(argv)
    logs.configure(args.log_level, args.log_format)
    given = {name: getattr(args, name) for _, name, _, _ in LIMIT_FLAGS}
    admission = Admission(
        **given,
        request_burst=BURST_SECONDS * args.requests_per_second,
        address_request_burst=args.address_requests_per_second,
    )
    holding = Limits(**{name: getattr(args, name) for _, name, _, _ in HOLD_FLAGS})
    if (args.tls_cert is None) != (args.tls_key is None):
        parser.error("--tls-cert and --tls-key go together")
    tls = None
    if args.tls_cert is not None:
        try:
            tls = server_tls(args.tls_cert, args.tls_key)
        except (OSError, ssl.SSLError) as error:
            log.error("cannot use the TLS certificate and key: %s", error)
            return 1
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, *gc.get_threshold()[1:])
    status = 0
    try:
        web = None if args.http is None else WebFront(args.http)
        trio.run(
            _run,
            args.host,
            args.port,
            args.db,
            args.grace,
            admission,
            holding,
            tls,
            web,
            LocalWorkers(args.workers, args.worker_slots),
            ladder_settings(args),
        )
    except* KeyboardInterrupt:
        logs.event(log, "stopped")
    except* StoreError as group:
        log.error("%s", database_sentence(args.db, first(group)))
        status = 1
    except* OSError as group:
        log.error("cannot listen on %s:%s: %s", args.host, args.port, first(group))
        status = 1
    return status


def database_sentence(path: str, error: BaseException) -> str:
    """What went wrong with the server's store, in one sentence naming it."""
    if isinstance(error, DatabaseInUse):
        return str(error)
    if isinstance(error, ReadOnlyDatabase | NotStored):
        return f"cannot write to database {path!r}: {error}"
    return f"cannot open database {path!r}: {error}"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arbiter-server",
        description="Run the Arbiter game server.",
        epilog="Registered players and admins: arbiter-server admin --help",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument(
        "--port", type=port_number, default=DEFAULT_PORT, help="TCP port; 0 picks a free one"
    )
    parser.add_argument("--db", default=default_db(), help=DB_HELP)
    parser.add_argument(
        "--http",
        type=port_number,
        metavar="PORT",
        help="also serve the web pages (lobby, matches, play in a browser) on this port of"
        " --host; 0 picks a free one (docs/web.md)",
    )
    parser.add_argument(
        "--grace",
        type=seconds,
        default=10.0,
        help="seconds a disconnected player keeps its seat (its clock running) to reconnect",
    )
    _add_worker_flags(parser)
    _add_ladder_flags(parser)
    parser.add_argument(
        "--tls-cert",
        metavar="FILE",
        help="serve TLS with this PEM certificate chain (e.g. Let's Encrypt's fullchain.pem)",
    )
    parser.add_argument(
        "--tls-key", metavar="FILE", help="the certificate's PEM private key (e.g. privkey.pem)"
    )
    parser.add_argument(
        "--log-level",
        choices=logs.LEVELS,
        default="info",
        help="the least important events logged to stderr (default info: connections, matches,"
        " results, defaults, tournaments; never a line per move)",
    )
    parser.add_argument(
        "--log-format",
        choices=logs.FORMATS,
        default="text",
        help="text lines for people, or json: one object a line (time, level, event, fields)",
    )
    _add_limit_flags(parser.add_argument_group("limits on an open network"))
    return parser


def _add_worker_flags(parser: argparse.ArgumentParser) -> None:
    """The flags of the workers the server starts itself."""
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        metavar="N",
        help="start N workers of this server's own to host agents (arbiter worker; see"
        " docs/hosted-agents.md); their agents' clocks count CPU seconds",
    )
    parser.add_argument(
        "--worker-slots",
        type=count,
        default=1,
        metavar="N",
        help="seats each of those workers hosts at once (a tournament's hosted entrant holds one"
        " for the whole tournament)",
    )


def _add_ladder_flags(parser: argparse.ArgumentParser) -> None:
    """The flags of the ladders the server plays (docs/ladder.md)."""
    ladder = parser.add_argument_group("ladders of hosted submissions (docs/ladder.md)")
    ladder.add_argument(
        "--ladder",
        type=game_names,
        default=[],
        metavar="GAME[,GAME]",
        help="pair every ready hosted submission of these games continuously on the workers"
        " (stored as running, so a restart resumes it until arbiter-server admin ladder stop)",
    )
    ladder.add_argument(
        "--ladder-time",
        type=time_control,
        default=DEFAULT_CONTROL,
        metavar="CONTROL",
        help="the ladder games' time control (default move=1; e.g. clock=60+1)",
    )
    ladder.add_argument(
        "--ladder-option",
        type=game_option,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an option of every ladder game (repeatable; e.g. no_capture_limit=20)",
    )
    ladder.add_argument(
        "--ladder-per-hour",
        type=count,
        metavar="N",
        help="games each version may begin an hour (default: no cap)",
    )
    ladder.add_argument(
        "--ladder-concurrency",
        type=count,
        default=1,
        metavar="K",
        help="ladder games of each game at once (each holds two worker slots)",
    )


def ladder_settings(args: argparse.Namespace) -> list[LadderSettings]:
    """One ladder per game `--ladder` names, on the other `--ladder-*` flags' terms; SystemExit
    with the sentence for an option a game does not have."""
    options = dict(args.ladder_option)
    for game in args.ladder:
        try:
            get_game(game).resolve_options(options)
        except OptionError as error:
            _parser().error(f"--ladder-option: {error}")
    return [
        LadderSettings(
            game, args.ladder_time, options, args.ladder_per_hour, args.ladder_concurrency
        )
        for game in args.ladder
    ]


def game_option(text: str) -> tuple[str, int | bool | str]:
    """`NAME=VALUE`: a whole number, true or false, or text."""
    name, equals, value = text.partition("=")
    if not equals or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, not {text!r}")
    if value in ("true", "false"):
        return name, value == "true"
    return name, int(value) if value.lstrip("-").isdigit() else value


def game_names(text: str) -> list[str]:
    known = {game.name for game in all_games()}
    names = [name for name in text.split(",") if name]
    unknown = [name for name in names if name not in known]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"no game {', '.join(unknown) or repr(text)} (games: {', '.join(sorted(known))})"
        )
    return list(dict.fromkeys(names))


def time_control(text: str) -> TimeControl:
    try:
        return TimeControl.parse(text)
    except TimeControlError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _add_limit_flags(limits: argparse._ArgumentGroup) -> None:
    """A flag for each limit of `Admission` and `Limits`, its default in its help."""
    defaults: list[Admission | Limits] = [DEFAULT] * len(LIMIT_FLAGS) + [Limits()] * len(HOLD_FLAGS)
    for (flag, name, kind, text), of in zip(LIMIT_FLAGS + HOLD_FLAGS, defaults, strict=True):
        default = getattr(of, name)
        text += "" if "default" in text else f" (default {default:g})"
        metavar = "SECONDS" if kind is seconds else "N"
        limits.add_argument(flag, type=kind, default=default, dest=name, metavar=metavar, help=text)


def port_number(text: str) -> int:
    """A TCP port, checked here: the socket layer would wrap 99999 round to 34463."""
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"expected a port from 0 to 65535, not {text!r}")
    return int(text)


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"expected a number of seconds (0 or more), not {text!r}")
    return value


def rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"expected a rate per second (above 0), not {text!r}")
    return value


def count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number (1 or more), not {text!r}")
    return int(text)


BURST_SECONDS = 5
"""A connection's burst is this many seconds of its request rate."""
LIMIT_FLAGS = (
    ("--hello-timeout", "hello_seconds", seconds, "seconds to say hello after connecting"),
    ("--ping-timeout", "pong_seconds", seconds, "seconds without a pong before a drop"),
    ("--max-connections", "max_connections", count, "connections (default: file limit - 64)"),
    ("--max-per-address", "max_per_address", count, "connections from one IP address"),
    ("--max-requests", "requests_per_second", count, "requests/s per connection (5 s at once)"),
    (
        "--max-address-requests",
        "address_requests_per_second",
        count,
        "requests/s from one IP address, all its connections and web requests together",
    ),
    ("--token-checks", "token_checks_per_second", rate, "token checks/s in all (not remembered)"),
    ("--tls-handshakes", "tls_handshakes_per_second", rate, "TLS handshakes/s in all"),
    (
        "--tls-handshakes-per-address",
        "tls_handshakes_per_address",
        rate,
        "TLS handshakes/s from one IP address",
    ),
)
"""`arbiter-server` flags for the main fields of `Admission`, each with its default."""
HOLD_FLAGS = (
    ("--max-seeks-per-address", "seeks_per_address", count, "open seeks of one IP address"),
)
"""`arbiter-server` flags for fields of `Limits`, each with its default."""


def first(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first leaf error of a group: the one worth a sentence."""
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error


async def _run(
    host: str,
    port: int,
    db: str,
    grace: float,
    admission: Admission,
    limits: Limits,
    tls: ssl.SSLContext | None,
    web: WebFront | None,
    workers: LocalWorkers,
    ladders: list[LadderSettings],
) -> None:
    """Serve, with the built-in agents and workers of the `arbiter` client program (an external
    program: the server never imports the client or the agents; see
    `server.tournaments.local_agents`); `workers` are the workers to start, `ladders` the games'
    ladders to play."""
    agents = AgentProgram.arbiter()
    async with trio.open_nursery() as nursery:
        start = partial(
            serve, host, port, db, grace=grace, local_agents=agents, admission=admission, tls=tls
        )
        start = partial(start, web=web, limits=limits, workers=workers, ladders=ladders)
        listeners = await nursery.start(start)
        address, over = f"{host}:{bound_port(listeners)}", " (TLS)" if tls is not None else ""
        logs.event(log, "listening", address=address, tls=tls is not None)
        # On stdout too: how scripts and tests learn the port (`--port 0`).
        print(f"listening on {address}{over}", flush=True)
        if web is not None:
            logs.event(log, "web_listening", url=web.url)
            print(f"web pages on {web.url}", flush=True)


def admin(argv: list[str]) -> int:
    """Manage the accounts in the server's SQLite file (safe while the server runs).

    A token is printed once, alone on stdout, so a script can capture it; only its hash is kept.
    """
    parser = argparse.ArgumentParser(
        prog="arbiter-server admin",
        description="Manage registered players and admins, classes of students, leagues and"
        " ladders.",
    )
    parser.add_argument("--db", default=default_db(), help=DB_HELP)
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    add = commands.add_parser("add", help="register a name and print its new token")
    add.add_argument("name")
    add.add_argument("--role", choices=("player", "admin", "worker"), default="player")
    add.set_defaults(
        run=lambda db, args: _show_token(accounts.create(db, args.name, args.role)), makes=True
    )
    renew = commands.add_parser("token", help="replace a name's token and print the new one")
    renew.add_argument("name")
    renew.set_defaults(run=lambda db, args: _show_token(accounts.renew(db, args.name)))
    remove = commands.add_parser("remove", help="unregister a name (its records stay)")
    remove.add_argument("name")
    remove.set_defaults(run=lambda db, args: accounts.remove(db, args.name))
    listing = commands.add_parser("list", help="every registered name with its role")
    listing.set_defaults(run=lambda db, args: _show_accounts(accounts.listing(db)))
    add_roster_commands(commands)
    add_class_commands(commands)
    add_league_commands(commands)
    add_ladder_commands(commands)
    args = parser.parse_args(argv)
    try:
        _run_admin(args)
    except (accounts.AccountError, LeagueRefused, LocalAgentsError) as error:
        print(f"arbiter-server admin: {error}", file=sys.stderr)
        return 1
    except StoreError as error:
        print(f"arbiter-server admin: {database_sentence(args.db, error)}", file=sys.stderr)
        return 1
    return 0


def _run_admin(args: argparse.Namespace) -> None:
    """Run one admin command on its store. Only `add` makes a new file (before a server's
    first start): any other command on a file that is not there is a mistyped `--db`."""
    try:
        db = open_database(args.db, create=getattr(args, "makes", False))
    except NoSuchFile as error:
        hint = "admin add makes one; give the server's file with --db"
        raise NoSuchFile(f"{error} ({hint})") from None
    try:
        with failing_as(NotStored, db.Error):
            args.run(db, args)
    finally:
        db.close()


def _show_token(token: str) -> None:
    print("the token is shown this once; keep it secret:", file=sys.stderr)
    print(token)


def _show_accounts(registered: list[accounts.Account]) -> None:
    for account in registered:
        print(f"{account.name}\t{account.role}")


if __name__ == "__main__":
    sys.exit(main())
