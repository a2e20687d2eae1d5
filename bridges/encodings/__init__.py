"""One `Encoding` per game, by the game's registry name."""

from __future__ import annotations

from arbiter.bridges.encoding import Encoding
from arbiter.bridges.encodings.amazons import AmazonsEncoding
from arbiter.bridges.encodings.kings_court import KingsCourtEncoding
from arbiter.bridges.encodings.shobu import ShobuEncoding
from arbiter.bridges.encodings.war_of_life import WarOfLifeEncoding
from arbiter.bridges.encodings.watch_your_back import WatchYourBackEncoding

ENCODINGS: dict[str, Encoding] = {
    encoding.game_name: encoding
    for encoding in (
        KingsCourtEncoding(),
        WatchYourBackEncoding(),
        WarOfLifeEncoding(),
        AmazonsEncoding(),
        ShobuEncoding(),
    )
}


def encoding_for(game_name: str) -> Encoding:
    return ENCODINGS[game_name]
