"""Tournaments: the schedule, the desk plugged into the lobby from above
(`server.play.tournament_desk`), the runner that seats entrants through the lobby's seeks and
plays their games as live matches, standings and ratings. Built on play."""
