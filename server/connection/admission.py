"""Who gets in, and how much one connection may ask: the limits of a server on an open network.

Every limit is a field of `Admission`, one frozen value passed to `server.app.serve`, so a test
sets small values and runs fast, and a deployer sets them with `arbiter-server` flags. The rest of
this module is the small state the limits need, kept apart from the sessions they judge:

- `Doorway`: open connections, in all and per address, refused at the door (before any byte is
  read) when a cap is reached, so a crowd of idle sockets cannot use up the process's files; and
  addresses barred for a while after flooding.
- `TokenGate`: token checks (scrypt, ~30-100 ms of CPU each) limited server-wide, and an address
  whose checks keep failing waits out a backoff that doubles with every failure, so guessing
  costs the guesser time rather than the server CPU.
- `Pace` and `Paces`: a rate with a burst, server-wide or per address, that says when the next
  costly step may begin (TLS handshakes, token checks of addresses that failed), so that step
  waits its turn or is refused at once, rather than crowding the loop or the CPU.

- `AddressShare`: what all of one address's connections (TCP, TLS, WebSocket) and HTTP requests
  may ask together: a token bucket of requests, so 64 connections each under its own rate cannot
  add up to more than the server can serve.

A connection's own request rate (a token bucket) lives in the session's reader, where it costs a
subtraction and a comparison per frame; the address's bucket is one more of each, on an object
the session holds.
"""

from __future__ import annotations

import math
import resource
from dataclasses import dataclass, field

RESERVED_FILES = 64
"""Descriptors kept free beneath the process's limit for the database, its writer, the
listeners, the threads of token checks and the built-in agents' pipes."""
MAX_CONNECTIONS = 10_000
"""The global cap when the file limit allows more: a bound on memory, not on descriptors."""


def file_limit() -> int:
    """The process's soft limit on open files (`ulimit -n`)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return MAX_CONNECTIONS + RESERVED_FILES if soft == resource.RLIM_INFINITY else soft


def default_max_connections() -> int:
    """Below the file limit by `RESERVED_FILES`: a full server refuses a connection with a
    frame instead of failing to accept it ("Too many open files") while the socket waits."""
    return max(1, min(MAX_CONNECTIONS, file_limit() - RESERVED_FILES))


@dataclass(frozen=True, slots=True)
class Admission:
    """The limits one server enforces; the defaults suit a shared server on an open network."""

    hello_seconds: float = 5.0
    """From accept to a complete `hello`: a connection that never says hello is closed with
    `hello_timeout`. A client says hello as it connects; 5 s is many round trips of any network,
    and keeps a crowd of silent connections from holding sockets for long."""
    frame_seconds: float = 5.0
    """How long any frame in progress may take before the minimum rate applies."""
    min_bytes_per_second: float = 1024.0
    """A frame in progress must keep arriving at this mean rate after `frame_seconds` (a 64 KiB
    frame may take 5 + 64 s), else `too_slow`: one byte a second holds no socket for long."""
    ping_seconds: float = 2.0
    """How often the server pings a connection (the round trip is the lag allowance's input)."""
    pong_seconds: float = 8.0
    """A connection that has answered no ping for this long (4 pings at the default 2 s) is
    closed with `ping_timeout`; its seats go to the grace period as on a disconnect. A client
    must answer pings while its agent thinks (docs/protocol.md, section 7)."""
    max_connections: int = field(default_factory=default_max_connections)
    """Open connections in all; more are refused with `too_many_connections`."""
    max_per_address: int = 64
    """Open connections from one IP address; more are refused with `too_many_connections`."""
    requests_per_second: float = 1000.0
    """A connection's sustained request rate (every frame counts, `pong` included)."""
    request_burst: float = 5000.0
    """Requests a quiet connection may send at once before the rate applies."""
    address_requests_per_second: float = 4000.0
    """The sustained request rate of all one address's connections and HTTP requests together.
    A server answers some tens of thousands of requests a second (bench/capacity.py measures
    it): at a fifth to a tenth of that, one address, whatever its number of connections, cannot
    take the server from everyone else, while a classroom behind one NAT address (dozens of
    bots, each far under a hundred requests a second) or a few bots moving instantly (bench/
    abuse.py's bystanders: four in two matches from one address, some 2,000 a second with their
    seeks) stay under it."""
    address_request_burst: float = 4000.0
    """Requests an address's connections may send at once before its rate applies: one second
    of it. A burst is served at once, ahead of everyone's moves, so it is bounded by the time it
    takes: a few thousand seeks from each of several addresses at once held every match for
    a second."""
    max_refused: int = 200
    """Requests refused `rate_limited` on one connection, without a pause that refills its
    whole burst, before it is closed; and HTTP requests refused to one address in a row (none
    let through between them) before the address is barred and its HTTP connections closed."""
    flood_penalty_seconds: float = 10.0
    """After a connection is closed for flooding (or an address's HTTP requests), its address
    may not connect for this long (a flooder that reconnects would otherwise get a fresh burst
    every time)."""
    token_failures: int = 5
    """Failed token checks from one address before it must wait between checks."""
    token_backoff_seconds: float = 1.0
    """The first wait; it doubles with each further failure, up to `token_backoff_max`."""
    token_backoff_max: float = 300.0
    token_checks: int = 1
    """Token checks running at once, server-wide (each is a thread hashing ~30-100 ms): one,
    so however many wait, the hashing takes one core and the event loop keeps the other."""
    token_checks_per_second: float = 5.0
    """Token checks begun per second, server-wide, of every token not remembered as verified
    (a returning player's needs none): guesses spread over any number of addresses cost at
    most this many hashes a second, a fraction of one core. Past `token_checks.TOKEN_WAIT`
    seconds' worth waiting, a `hello` is refused `rate_limited`; addresses that verified a
    token lately go first (`server.connection.token_checks`)."""
    suspect_token_checks_per_second: float = 2.0
    """Token checks per second, server-wide, for addresses whose checks failed within
    `token_backoff_max`, one at a time: guesses spread over many addresses then cost at most
    this many hashes a second, and leave the other checks' threads to everyone else
    (`server.connection.token_checks`)."""
    tls_handshakes_per_second: float = 50.0
    """TLS handshakes begun per second, server-wide (a burst of twice as many at once). Each
    costs a millisecond or two of the event loop's time (its key exchange and signature), so a
    flood of them could crowd out the moves of every match; at this rate they take a few
    percent of the loop. A handshake over the rate waits for its turn within the handshake's
    deadline, or is closed at once if its turn would come later (`server.app`)."""
    tls_handshakes_per_address: float = 4.0
    """TLS handshakes begun per second from one IP address, after a burst of `max_per_address`
    (a classroom behind one NAT connecting at once): one address cannot take the server's
    whole rate."""

    def __post_init__(self) -> None:
        for name in ("max_connections", "max_per_address", "token_checks", "token_failures"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, not {getattr(self, name)!r}")
        for name in ("request_burst", "address_request_burst"):
            if not getattr(self, name) >= 1:
                raise ValueError(f"{name} must be at least 1, not {getattr(self, name)!r}")
        for name in (
            "requests_per_second",
            "address_requests_per_second",
            "min_bytes_per_second",
            "token_checks_per_second",
            "suspect_token_checks_per_second",
            "tls_handshakes_per_second",
            "tls_handshakes_per_address",
        ):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, not {getattr(self, name)!r}")


DEFAULT = Admission()

UNLIMITED = Admission(
    hello_seconds=math.inf,
    pong_seconds=math.inf,
    max_per_address=MAX_CONNECTIONS,
    requests_per_second=1e12,
    request_burst=1e12,
    address_requests_per_second=1e12,
    address_request_burst=1e12,
)
"""No timeouts and no per-address cap: for a server on 127.0.0.1 serving its own process
(`local_server`) and for tests that move a mock clock."""


MAX_TRACKED = 65_536
"""Addresses whose failures are remembered; past this, those whose backoff has run out are
forgotten (a spray of addresses cannot grow the table without bound)."""


class AddressShare:
    """One address's open connections and its request bucket, shared by them all.

    The bucket refills at `address_requests_per_second` up to `address_request_burst`; every
    request from the address spends one (`spend`). A session refills it at each read, as it does
    its own bucket, and compares after spending: a few float operations per frame.
    """

    __slots__ = ("allowance", "burst", "connections", "rate", "refilled_at", "refused")

    def __init__(self, admission: Admission, now: float) -> None:
        self.rate = admission.address_requests_per_second
        self.burst = admission.address_request_burst
        self.allowance = self.burst
        self.refilled_at = now
        self.connections = 0
        self.refused = 0
        """HTTP requests refused in a row (the web front bars the address past `max_refused`)."""

    def refill(self, now: float) -> None:
        if now > self.refilled_at:
            self.allowance = min(self.burst, self.allowance + (now - self.refilled_at) * self.rate)
            self.refilled_at = now

    def spend(self, now: float, cost: float = 1.0) -> bool:
        """Count a request costing `cost` at `now`; False when the address is over its rate
        (the request still counts: an address that keeps flooding stays refused)."""
        self.refill(now)
        self.allowance -= cost
        return self.allowance >= 0.0

    def full(self, now: float) -> bool:
        """Whether the bucket has refilled whole: nothing about the address is worth keeping."""
        self.refill(now)
        return self.allowance >= self.burst


class Doorway:
    """Counts open connections, in all and per address; `enter` refuses past either cap. It
    keeps each address's `AddressShare` while the address has a connection open or its bucket
    is not yet full again (so closing and reopening connections never refills it)."""

    def __init__(self, admission: Admission) -> None:
        self.admission = admission
        self.open = 0
        self._shares: dict[str, AddressShare] = {}
        self._barred: dict[str, float] = {}
        """Addresses cut off for flooding, until when."""

    def barred(self, address: str, now: float) -> float:
        """How long `address` is still barred for flooding (0: not barred)."""
        until = self._barred.get(address)
        if until is None:
            return 0.0
        if until <= now:
            del self._barred[address]
            return 0.0
        return until - now

    def bar(self, address: str, now: float) -> None:
        """Bar an address whose connection was cut off for flooding."""
        if len(self._barred) >= MAX_TRACKED:
            self._barred = {a: t for a, t in self._barred.items() if t > now}
        self._barred[address] = now + self.admission.flood_penalty_seconds

    def share(self, address: str, now: float) -> AddressShare:
        """The share of `address`, made if it has none."""
        share = self._shares.get(address)
        if share is None:
            if len(self._shares) >= MAX_TRACKED:
                self._prune(now)
            share = self._shares[address] = AddressShare(self.admission, now)
        return share

    def _prune(self, now: float) -> None:
        """Forget the addresses with nothing open and a full bucket."""
        for address in [a for a, s in self._shares.items() if not s.connections and s.full(now)]:
            del self._shares[address]

    def enter(self, address: str, now: float) -> str | None:
        """Count a connection in; or why it is refused (then it is not counted)."""
        if self.open >= self.admission.max_connections:
            return f"the server is full ({self.open} connections); try again later"
        share = self.share(address, now)
        if share.connections >= self.admission.max_per_address:
            return f"{share.connections} connections from {address} already: close one first"
        self.open += 1
        share.connections += 1
        return None

    def leave(self, address: str, now: float) -> None:
        self.open -= 1
        share = self._shares[address]
        share.connections -= 1
        if not share.connections and share.full(now):
            del self._shares[address]


@dataclass(slots=True)
class _Failures:
    count: int = 0
    last: float = 0.0
    """When the last check failed."""
    until: float = 0.0
    """No check from the address before this time."""


class TokenGate:
    """Failed token checks per address, with a backoff; the check itself is the caller's.

    `wait(address, now)` says how long the address must still wait (0: check now); `failed`
    records a failure. An address's failures are forgotten after `token_backoff_max` seconds
    without one, never on a success: a guesser with an account of its own cannot clear its
    count between guesses.
    """

    def __init__(self, admission: Admission) -> None:
        self.admission = admission
        self._failures: dict[str, _Failures] = {}

    def wait(self, address: str, now: float) -> float:
        failures = self._failures.get(address)
        return 0.0 if failures is None else max(0.0, failures.until - now)

    def suspect(self, address: str, now: float) -> bool:
        """Whether a check from `address` failed within the last `token_backoff_max` seconds."""
        failures = self._failures.get(address)
        return failures is not None and now - failures.last <= self.admission.token_backoff_max

    def failed(self, address: str, now: float) -> None:
        failures = self._failures.get(address)
        if failures is None:
            if len(self._failures) >= MAX_TRACKED:
                self._prune(now)
            failures = self._failures[address] = _Failures()
        elif now - failures.last > self.admission.token_backoff_max:
            failures.count = 0
        failures.count += 1
        failures.last = now
        over = failures.count - self.admission.token_failures
        if over >= 0:
            backoff = self.admission.token_backoff_seconds * 2.0 ** min(over, 32)
            failures.until = now + min(backoff, self.admission.token_backoff_max)

    def _prune(self, now: float) -> None:
        """Forget addresses whose backoff has passed; if none has, the longest quiet one, so the
        table stays within `MAX_TRACKED` whatever the number of addresses failing."""
        for address in [a for a, f in self._failures.items() if f.until <= now]:
            del self._failures[address]
        if len(self._failures) >= MAX_TRACKED:
            del self._failures[min(self._failures, key=lambda a: self._failures[a].last)]


class Pace:
    """A rate with a burst, by reservation: `reserve` says when the next step may begin (now,
    while the burst lasts; later, one step every 1/`rate` seconds after it). A reservation is
    kept whether or not its step runs, so a crowd that is turned away still pays."""

    __slots__ = ("_at", "_level", "burst", "rate")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self._level = burst
        """Steps that may begin at once as of `_at`; below 0 when steps are booked ahead."""
        self._at = now

    def _level_at(self, now: float) -> float:
        return min(self.burst, self._level + (now - self._at) * self.rate)

    def reserve(self, now: float, within: float) -> float | None:
        """When a step may begin, booked; None (nothing booked) if not within `within` s."""
        level = self._level_at(now)
        begin = now if level >= 1 else now + (1 - level) / self.rate
        if begin - now > within:
            return None
        self._level, self._at = level - 1, now
        return begin

    def idle(self, now: float) -> bool:
        """Whether the whole burst is back: forgetting this pace changes nothing."""
        return self._level_at(now) >= self.burst


class Paces:
    """A `Pace` per address, each at `rate` with `burst`. Past `MAX_TRACKED` addresses the idle
    ones are forgotten, which changes nothing; one mid-burst is kept (forgetting it would hand
    it a fresh burst), so the table outgrows the bound only while that many are all pacing."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self._paces: dict[str, Pace] = {}

    def reserve(self, address: str, now: float, within: float) -> float | None:
        pace = self._paces.get(address)
        if pace is None:
            if len(self._paces) >= MAX_TRACKED:
                self._paces = {a: p for a, p in self._paces.items() if not p.idle(now)}
            pace = self._paces[address] = Pace(self.rate, self.burst, now)
        return pace.reserve(now, within)

    def __len__(self) -> int:
        return len(self._paces)


class Handshakes:
    """When a TLS handshake may begin: within its address's pace (`tls_handshakes_per_address`,
    after a burst of `max_per_address`) and the server's (`tls_handshakes_per_second`, after
    a burst of twice that). Paced, not counted while under way: a handshake that waits on its
    client costs nothing, and a cap on those would let one address that stalls them lock every
    newcomer out until their deadline; the loop's time goes into the steps, which the pace
    bounds."""

    def __init__(self, admission: Admission, now: float) -> None:
        rate = admission.tls_handshakes_per_second
        self._server = Pace(rate, 2 * rate, now)
        self._addresses = Paces(admission.tls_handshakes_per_address, admission.max_per_address)

    def turn(self, address: str, now: float, within: float) -> float | None:
        """When a handshake from `address` may begin, booked; None if not within `within` s."""
        mine = self._addresses.reserve(address, now, within)
        if mine is None:
            return None
        ours = self._server.reserve(now, within)
        return None if ours is None else max(mine, ours)
