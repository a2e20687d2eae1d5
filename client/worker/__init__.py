"""`arbiter worker`: a client that runs agents for a server, which stays the only referee.

The worker signs in under a `worker` account, says how many seats it hosts at once, and for
each `host` frame runs the agent named (`seat.py`) in a sandbox (`client.sandbox`), a
submission fetched once into its cache (`archives.py`) and prepared there (`prepared.py`); the
sandbox's channel is linked to the server with each frame rewritten by `stamper.py`, which
writes each move's CPU seconds.
"""
