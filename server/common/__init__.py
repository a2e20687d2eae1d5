"""Small tools every wing of the server uses: the log, a bounded recently-used mapping, a tally."""
