"""Play: the lobby that routes each session's requests, seeks and pairing, spectators, and the match
that keeps a game's authoritative state and clock. Built on the connection and storage wings."""
