// The page's path says which view to draw: every path is served the same shell.
import { showLobby } from "./lobby.js";
import { showMatch } from "./match.js";

const main = document.getElementById("main");
const path = location.pathname;
const matchPath = path.match(/^\/match\/(\d+)$/);

if (matchPath) showMatch(main, Number(matchPath[1]));
else showLobby(main);
