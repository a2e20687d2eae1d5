"""Tournaments: the schedule, the runner that seats entrants through the lobby's seeks, standings
and ratings. Built on play."""
