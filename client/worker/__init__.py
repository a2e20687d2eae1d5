"""`arbiter worker`: a client that runs agents for a server, which stays the only referee.

The worker signs in under a `worker` account, says how many seats it hosts at once, and for
each `host` frame runs the agent named (`seat.py`) as an agent process (`agent_process.py`, the
seam a sandbox plugs into), joined to the server through a relay of the worker's own
(`relay.py`) that stamps each move with the CPU seconds it cost (`cpu.py`).
"""
