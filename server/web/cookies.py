"""The web front's sign-in cookie: a registered name, signed and expiring; pure, `now` passed in.

The cookie holds the name, its expiry and a random nonce, with an HMAC over them by a secret
drawn when the server starts: nothing about the token is in it, a forged or altered cookie fails
the MAC, and a restart signs everyone out (no session table to keep or leak). It is HttpOnly
(no script reads it), SameSite=Strict (no other site's page sends it) and Secure under TLS.
A form that changes something also carries `csrf_of(cookie)`, an HMAC of the cookie under
another label, which a page of another origin cannot read or compute.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from typing import Final

COOKIE: Final = "arbiter_session"
LIFETIME: Final = 8 * 3600.0
"""Seconds a sign-in lasts: a working day, then the token again."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SessionCookies:
    """Issues and reads signed sign-in cookies."""

    def __init__(self, secret: bytes | None = None, lifetime: float = LIFETIME) -> None:
        self._secret = secret or secrets.token_bytes(32)
        self.lifetime = lifetime

    def _mac(self, label: bytes, text: str) -> str:
        return _b64(hmac.new(self._secret, label + text.encode(), hashlib.sha256).digest())

    def issue(self, name: str, now: float) -> str:
        """The cookie's value for `name`, good for `lifetime` seconds from `now`."""
        body = f"{_b64(name.encode())}:{int(now + self.lifetime)}:{secrets.token_hex(8)}"
        return f"{body}:{self._mac(b'session:', body)}"

    def read(self, value: str | None, now: float) -> str | None:
        """The name a cookie signs in, or None (absent, forged, altered or expired)."""
        if not value or value.count(":") != 3:
            return None
        body, mac = value.rsplit(":", 1)
        if not hmac.compare_digest(mac, self._mac(b"session:", body)):
            return None
        encoded, expires, _ = body.split(":")
        if not expires.isdigit() or int(expires) <= now:
            return None
        return _unb64(encoded).decode()

    def csrf_of(self, value: str) -> str:
        """The token a signed-in page's forms carry: bound to this cookie, not guessable."""
        return self._mac(b"csrf:", value)

    def header(self, value: str, secure: bool) -> str:
        """The `Set-Cookie` header's value for the cookie `value`."""
        flags = f"Path=/; Max-Age={int(self.lifetime)}; HttpOnly; SameSite=Strict"
        return f"{COOKIE}={value}; {flags}" + ("; Secure" if secure else "")

    @staticmethod
    def cleared(secure: bool) -> str:
        """The `Set-Cookie` value that signs a browser out."""
        flags = "Path=/; Max-Age=0; HttpOnly; SameSite=Strict"
        return f"{COOKIE}=; {flags}" + ("; Secure" if secure else "")
