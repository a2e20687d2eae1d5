"""One connected client: its session (the reader, its request budget, deadlines and held
requests, pings) and what carries its bytes (transport, outbox and output budget); who gets in
and how much each may ask (admission, limits, token checks), and how late the event loop runs
(stalls). It knows nothing of games or matches beyond the `Peer` interface a match drives."""
