"""The argparse types every `arbiter` subcommand shares (`client.options`): one parser for a time
control typed on the command line, with the codec's sentence as argparse's error."""

from __future__ import annotations

import argparse

import pytest

from arbiter.client import options
from arbiter.protocol import TimeControl


@pytest.mark.parametrize(
    ("text", "control"),
    [
        ("move=5", TimeControl(move=5.0)),
        ("clock=300+2", TimeControl(clock=300.0, increment=2.0)),
        (" clock=60+0 , move=10 ", TimeControl(move=10.0, clock=60.0)),
        ("move=1,lag=off", TimeControl(move=1.0, lag=False)),
    ],
)
def test_a_time_control_is_parsed_once_into_the_codec_s_value(
    text: str, control: TimeControl
) -> None:
    assert options.time_control(text) == control


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("5", "cannot read time control '5'"),
        ("move=5,move=6", "cannot read time control"),
        ("move=fast", "'fast' in time control 'move=fast' is not a number of seconds"),
        ("clock=60+x", "'x' in time control"),
        ("moves=5", "unknown part 'moves=5'"),
        ("lag=maybe", "unknown part 'lag=maybe'"),
        ("move=0", "'move' must be between 0.05"),
        ("move=1e9", "'move' must be between"),
        ("lag=off", "needs a move limit, a game clock or both"),
    ],
)
def test_a_time_control_typo_is_an_argparse_error_with_the_reason(text: str, words: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as caught:
        options.time_control(text)
    assert words in str(caught.value)


def test_move_time_is_the_move_limit_it_stands_for() -> None:
    assert options.move_time("2.5") == TimeControl(move=2.5)
    with pytest.raises(argparse.ArgumentTypeError, match="not a number of seconds"):
        options.move_time("soon")


def test_the_parser_names_the_bad_value_before_anything_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from arbiter.client.cli import build_parser

    argv = ["referee", "kings-court", "random", "random", "--time", "mov=1"]
    with pytest.raises(SystemExit):
        build_parser(argv).parse_args(argv)
    assert "unknown part 'mov=1'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("127.0.0.1:7777", ("127.0.0.1", 7777)),
        ("h:1", ("h", 1)),
        ("localhost", ("localhost", 7777)),  # HOST alone: the server's default port
        ("example.org", ("example.org", 7777)),
    ],
)
def test_host_port(text: str, value: tuple[str, int]) -> None:
    assert options.host_port(text) == value


@pytest.mark.parametrize("text", ["7777", ":7777", "h:0", "h:65536", "h:x"])
def test_host_port_refuses(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="expected HOST or HOST:PORT"):
        options.host_port(text)


def test_positive_int() -> None:
    assert options.positive_int("3") == 3
    for text in ("0", "-1", "x"):
        with pytest.raises(argparse.ArgumentTypeError, match="at least 1"):
            options.positive_int(text)
