"""One connected client: its session (reader, writer, outbox and byte budget), who gets in and how
much each may ask (admission, limits, token checks), and how late the event loop runs (stalls).
It knows nothing of games or matches beyond the `Peer` interface a match drives."""
