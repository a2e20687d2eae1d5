"""Registered players: names that only the holder of the name's secret token may play under.

A token is shown once, when an admin creates the account (`arbiter-server admin add NAME`), and
is stored only as a salted scrypt hash: a stolen database file does not give away the tokens,
and a slow hash makes guessing them from it expensive. A name without an account is free for
casual play; a name with one needs its token in `hello`, so nobody plays under another team's
name, in a tournament or out of one.

A registered name is reserved against lookalikes too: `North`, `north ` or `north` spelt with a
Cyrillic o is refused beside a registered `north` (`name_key`), in a casual `hello` and for a
new account alike. Casual names are not reserved against each other: two casual players may
share a name (matches tell them apart by seat and session), which is what registering is for.

Roles: `player` (a team), `admin` (may also create and start tournaments), `local` (an agent
the server itself runs, in a tournament or on a worker; its token is replaced every time the
server starts the agent, and handed to it privately) and `worker` (a machine that runs agents
for the server: `arbiter worker`).

The functions here run on a `server.storage.sql_connection.Connection` (a SQLite file or a
PostgreSQL database): the server calls them on its storage thread, the admin command directly.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
import unicodedata
from dataclasses import dataclass

from arbiter.server.storage.sql_connection import Connection, write_transaction

ROLES = ("player", "admin", "local", "worker")
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""Account names: letters, digits and `_.-`, up to 64 (protocol names): easy to type on a
command line and to print in a table."""
TOKEN_BYTES = 24
SALT_BYTES = 16
SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}
"""16 MiB of memory a check, OWASP's minimum for scrypt: slow for a guesser with the database,
unnoticeable once per connection."""


HOMOGLYPHS = str.maketrans(
    "АВЕЅІЈКМНОРСТХУԚԜаеорсухѕіјԁһԛԝӏ"  # Cyrillic
    "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧοικνρυχϲ"  # Greek
    "ıɡ01",  # noqa: RUF001 (Latin: dotless i, script g; and the digits that pass for letters)
    "ABESIJKMHOPCTXYQWaeopcyxsijdhqwlABEZHIKMNOPTYXoikvpuxcigol",
)
"""Letters of other scripts that look like Latin ones, mapped to the Latin letter: the Cyrillic
and Greek capitals and small letters that most fonts draw as `A`, `o`, `p`... (from Unicode's
confusables.txt, which UTS #39 builds its skeletons from), and `0`/`1` as `o`/`l`. A small table
rather than a dependency: registered names are ASCII (`NAME_PATTERN`), so what matters is what
passes for ASCII letters, and these are the lookalikes a keyboard layout or a copy-paste gives."""


def name_key(name: str) -> str:
    """What a name looks like, give or take case, width, accents, spaces and other scripts'
    lookalike letters: two names with one key are taken for one. NFKC folds the compatibility
    forms (full-width letters, the script l); accents and invisible characters (zero-width
    joiners and the like) are dropped, the homoglyphs become Latin, then Unicode case folding;
    `rn` reads as `m`, as it does in a small font."""
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", name))
    kept = "".join(
        char
        for char in decomposed
        if not char.isspace() and unicodedata.category(char) not in ("Mn", "Me", "Cf", "Cc")
    )
    return kept.translate(HOMOGLYPHS).casefold().translate(HOMOGLYPHS).replace("rn", "m")


def names(db: Connection) -> list[str]:
    """Every registered name."""
    return [str(name) for (name,) in db.execute("SELECT name FROM accounts")]


def lookalike(db: Connection, name: str) -> str | None:
    """The registered name that `name` would pass for while not being it, or None.

    It reads every account's name: registered names are teams and admins, tens or hundreds, and
    a hello that needs no token is cheaper than one that does (its scrypt is slow on purpose)."""
    key = name_key(name)
    for (registered,) in db.execute("SELECT name FROM accounts"):
        if registered != name and name_key(registered) == key:
            return str(registered)
    return None


class AccountError(ValueError):
    """An account request that cannot be honoured; the sentence says why."""


@dataclass(frozen=True, slots=True)
class Account:
    name: str
    role: str

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


def hash_token(token: str, salt: bytes) -> bytes:
    return hashlib.scrypt(token.encode(), salt=salt, **SCRYPT)


def check_name(name: str) -> str:
    if not NAME_PATTERN.fullmatch(name):
        raise AccountError(
            f"{name!r} cannot be an account name: use 1 to 64 letters, digits, '_', '.' or '-',"
            " starting with a letter or digit"
        )
    return name


@dataclass(frozen=True, slots=True)
class Secret:
    """A new token and what is stored of it: hashed before any transaction opens, since the
    hash is slow on purpose and a store's write lock should not wait on it."""

    token: str
    salt: bytes
    digest: bytes


def new_token() -> str:
    """A random token that never starts with '-', so that `--token TOKEN` on a command line
    is read as the option's value and not as another option."""
    while True:
        token = secrets.token_urlsafe(TOKEN_BYTES)
        if not token.startswith("-"):
            return token


def new_secret() -> Secret:
    token = new_token()
    salt = secrets.token_bytes(SALT_BYTES)
    return Secret(token, salt, hash_token(token, salt))


def create(db: Connection, name: str, role: str = "player") -> str:
    """Register `name`; returns its token, which is stored nowhere in clear."""
    if role not in ROLES:
        raise AccountError(f"no role {role!r} (roles: {', '.join(ROLES)})")
    check_name(name)
    taken = lookalike(db, name)
    if taken is not None:
        raise AccountError(f"{name!r} is too like the registered name {taken!r}")
    secret = new_secret()
    store(db, name, role, secret)
    return secret.token


def store(db: Connection, name: str, role: str, secret: Secret) -> None:
    """Write the account `name` (checked by the caller) with `secret`'s hash."""
    cursor = db.execute(
        "INSERT INTO accounts (name, role, salt, token_hash, created_at) VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (name) DO NOTHING",
        (name, role, secret.salt, secret.digest, time.time()),
    )
    if cursor.rowcount == 0:
        raise AccountError(f"{name!r} is registered already")


def renew(db: Connection, name: str) -> str:
    """A new token for `name`; the old one stops working at once."""
    secret = new_secret()
    cursor = db.execute(
        "UPDATE accounts SET salt = ?, token_hash = ? WHERE name = ?",
        (secret.salt, secret.digest, name),
    )
    if cursor.rowcount == 0:
        raise AccountError(f"no account {name!r}")
    return secret.token


def remove(db: Connection, name: str) -> None:
    """Unregister `name`, and take it off its class's roster: a student is an account."""
    with write_transaction(db):
        cursor = db.execute("DELETE FROM accounts WHERE name = ?", (name,))
        if cursor.rowcount == 0:
            raise AccountError(f"no account {name!r}")
        db.execute("DELETE FROM students WHERE account = ?", (name,))


def find(db: Connection, name: str) -> Account | None:
    row = db.execute("SELECT name, role FROM accounts WHERE name = ?", (name,)).fetchone()
    return None if row is None else Account(*row)


def listing(db: Connection) -> list[Account]:
    return [Account(*row) for row in db.execute("SELECT name, role FROM accounts ORDER BY name")]


@dataclass(frozen=True, slots=True)
class Credentials:
    """What checking a token needs: read from the file in a moment, hashed apart (slowly)."""

    account: Account
    salt: bytes
    digest: bytes


def credentials(db: Connection, name: str) -> Credentials | None:
    """The registered name's credentials; for a name that only looks like a registered one
    (`lookalike`), that one's, which the caller tells by `account.name`."""
    row = db.execute(
        "SELECT role, salt, token_hash FROM accounts WHERE name = ?", (name,)
    ).fetchone()
    if row is None:
        registered = lookalike(db, name)
        return None if registered is None else credentials(db, registered)
    role, salt, digest = row
    return Credentials(Account(name, role), salt, digest)


def check_token(found: Credentials | None, token: str) -> Account | None:
    """The account if `token` is its token, else None. Pure CPU: the server runs it on a
    thread of its own, so the hash never holds up the storage thread that moves wait on."""
    if found is None:
        hash_token(token, b"\0" * SALT_BYTES)  # the same work either way: no timing oracle
        return None
    matches = hmac.compare_digest(hash_token(token, found.salt), found.digest)
    return found.account if matches else None


def issue_local(db: Connection, name: str, role: str = "local") -> str:
    """A fresh token for an account the server runs itself (a built-in agent, or with
    `role="worker"` one of its own workers), creating it if needed; never takes over a name of
    another role."""
    account = find(db, name)
    if account is None:
        return create(db, name, role)
    if account.role != role:
        wanted = "built-in agent" if role == "local" else f"{role} of this server's"
        raise AccountError(f"{name!r} is a registered {account.role}, not a {wanted}")
    return renew(db, name)
