"""Play: the lobby that routes each session's requests to sign-in, seeks and pairing, the live
matches, and spectators; one registry of who sits where; every frame play sends built in one
place (`messages`); and the match that keeps a game's authoritative state and clock. Tournaments
plug in from above through `tournament_desk`. Built on the connection and storage wings."""
