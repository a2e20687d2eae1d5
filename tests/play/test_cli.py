"""`arbiter play` and `arbiter watch` name a bad command line before connecting anywhere."""

from __future__ import annotations

import pytest

from arbiter.client.cli import main


@pytest.mark.parametrize(
    ("args", "complaint"),
    [
        (["play", "kings-court"], "one of the arguments --server --vs is required"),
        (["play", "chess", "--vs", "random"], "invalid choice: 'chess'"),
        (["play", "kings-court", "--vs", "oracle"], "invalid choice: 'oracle'"),
        (["play", "kings-court", "--vs", "random", "--time", "move=fast"], "'fast'"),
        (["play", "kings-court", "--vs", "human", "--seat", "black"], "--seat chooses your seat"),
        (["play", "kings-court", "--vs", "random", "--seat", "red"], "has no seat 'red'"),
        (["play", "kings-court", "--vs", "bloodlust"], "no agent 'bloodlust' for kings-court"),
        (["watch", "kings-court", "--server", "127.0.0.1:7777"], "takes a match id"),
        (["watch", "5", "--vs", "random", "random"], "no game '5'"),
        (["watch", "5"], "one of the arguments --server --vs is required"),
    ],
)
def test_bad_arguments_are_named(
    args: list[str], complaint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(args)
    assert exit_.value.code == 2
    assert complaint in capsys.readouterr().err


def test_a_server_that_is_not_there_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["play", "kings-court", "--server", "127.0.0.1:1"])
    assert exit_.value.code == 1
    assert "arbiter: cannot connect to 127.0.0.1:1 (connection refused)" in capsys.readouterr().err
