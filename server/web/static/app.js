// The page's path says which view to draw: every path is served the same shell.
import { showLobby } from "./lobby.js";
import { showMatch } from "./match.js";
import { showPlay } from "./play.js";
import { showPlayer } from "./player.js";
import { showTournament } from "./tournament.js";

const main = document.getElementById("main");
const path = location.pathname;
const named = (prefix) => {
  const found = path.match(new RegExp(`^/${prefix}/([^/]+)$`));
  return found ? decodeURIComponent(found[1]) : null;
};

if (named("match")) showMatch(main, Number(named("match")));
else if (named("tournament")) showTournament(main, named("tournament"));
else if (named("player")) showPlayer(main, named("player"));
else if (path === "/play") showPlay(main);
else showLobby(main);
