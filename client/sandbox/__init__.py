"""The sandbox untrusted agents run in: bubblewrap with no network, a read-only system and code,
a capped scratch folder, limits on memory, processes, files, output and time, and one channel
(its stdio) to the process that plays its seat.

The modules, lowest first: `limits` (the caps and their sentences), `command` (bubblewrap's
command line, pure), `toolchain` (what of this machine it sees), `tree` (a process tree's CPU
time from /proc), `ending` (how a run ended, pure), `process` (one run, watched), `relay` (the
inside end of the channel), `link` (the outside end), `launch` (`python -m
arbiter.client.sandbox.launch`, the command a launcher wraps an entrant's command in).
Importing this package imports none of them: the relay runs by path with a bare interpreter.
"""
