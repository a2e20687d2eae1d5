"""The sign-in cookie: read back while fresh, refused once expired, forged or altered."""

from __future__ import annotations

from arbiter.server.web.cookies import SessionCookies


def test_a_cookie_signs_in_its_name_until_it_expires() -> None:
    cookies = SessionCookies(b"k" * 32, lifetime=60)
    value = cookies.issue("ann", now=1000.0)
    assert cookies.read(value, now=1059.0) == "ann"
    assert cookies.read(value, now=1060.0) is None
    assert cookies.issue("ann", now=1000.0) != value, "each sign-in its own cookie"


def test_a_forged_or_altered_cookie_signs_in_nobody() -> None:
    cookies = SessionCookies(b"k" * 32)
    value = cookies.issue("ann", now=0.0)
    name, expires, nonce, mac = value.split(":")
    assert cookies.read(f"Ym9i:{expires}:{nonce}:{mac}", now=1.0) is None  # "bob"
    assert cookies.read(f"{name}:9{expires}:{nonce}:{mac}", now=1.0) is None
    assert SessionCookies(b"x" * 32).read(value, now=1.0) is None, "another server's secret"
    for junk in ("", "a:b", "a:b:c:d", None):
        assert cookies.read(junk, now=1.0) is None


def test_the_csrf_token_is_bound_to_the_cookie_and_the_flags_are_set() -> None:
    cookies = SessionCookies(b"k" * 32)
    first, second = cookies.issue("ann", 0.0), cookies.issue("ann", 0.0)
    assert cookies.csrf_of(first) != cookies.csrf_of(second)
    header = cookies.header(first, secure=True)
    assert header.startswith(f"arbiter_session={first}; ")
    for flag in ("HttpOnly", "SameSite=Strict", "Secure", "Path=/", "Max-Age=28800"):
        assert flag in header.split("; ")
    assert "Secure" not in cookies.header(first, secure=False)
