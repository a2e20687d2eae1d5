"""One `Encoding` per game, by the game's registry name: the five games' own (fixed, so trained
policies stay valid), any other game's made from its description of its boards (`squares`)."""

from __future__ import annotations

from arbiter.bridges.encoding import Encoding
from arbiter.bridges.encodings.amazons import AmazonsEncoding
from arbiter.bridges.encodings.kings_court import KingsCourtEncoding
from arbiter.bridges.encodings.shobu import ShobuEncoding
from arbiter.bridges.encodings.squares import squares_encoding
from arbiter.bridges.encodings.war_of_life import WarOfLifeEncoding
from arbiter.bridges.encodings.watch_your_back import WatchYourBackEncoding
from arbiter.games import GAME_NAMES

OWN: dict[str, Encoding] = {
    encoding.game_name: encoding
    for encoding in (
        KingsCourtEncoding(),
        WatchYourBackEncoding(),
        WarOfLifeEncoding(),
        AmazonsEncoding(),
        ShobuEncoding(),
    )
}
ENCODINGS: dict[str, Encoding] = {
    name: OWN[name] if name in OWN else squares_encoding(name) for name in GAME_NAMES
}


def encoding_for(game_name: str) -> Encoding:
    return ENCODINGS[game_name]
