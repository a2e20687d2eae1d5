"""A stamper as the worker's tests drive it, without I/O: a process tree whose CPU seconds the
test sets, and a stamper signed in through it."""

from __future__ import annotations

from arbiter.client.worker.stamper import Stamper

MATCH_STARTED = {"type": "match_started", "match": 7}


class FakeTree:
    """The CPU seconds a process tree has used, as a test sets them."""

    def __init__(self) -> None:
        self.used = 0.0

    def __call__(self) -> float:
        return self.used


def signed_in(tree: FakeTree, version: int = 2) -> Stamper:
    """A stamper whose agent said hello (with a token of its own, replaced by the ticket)."""
    stamper = Stamper("ticket", tree)
    hello = stamper.to_server({"type": "hello", "version": version, "name": "a", "token": "mine"})
    assert hello is not None
    assert hello["token"] == "ticket"
    return stamper
