// A player: their finished games, the latest first, each linked to its replay.
import { element, matchLink, playerLink, say, table } from "./view.js";

export async function showPlayer(main, name) {
  const status = element("p", { class: "note", text: "loading…" });
  main.replaceChildren(element("h1", { text: name }), status);
  const answer = await fetch(`/records/player/${encodeURIComponent(name)}`);
  const found = await answer.json();
  if (!answer.ok) {
    say(status, found.error, "error");
    return;
  }
  const score = { won: 0, drawn: 0, lost: 0 };
  const rows = found.games.map((g) => {
    const seat = g.players.indexOf(name);
    const mine = g.scores[seat];
    const outcome = mine === 1 ? "won" : mine === 0.5 ? "drawn" : "lost";
    score[outcome] += 1;
    const opponent = g.players[1 - seat];
    return [matchLink(g.match), g.game, g.seats[seat], playerLink(opponent), outcome,
      g.termination ?? "", g.reason ?? "", g.moves, g.tournament ?? ""];
  });
  status.textContent = `${found.games.length} games: ${score.won} won, ${score.drawn} drawn,`
    + ` ${score.lost} lost`;
  main.append(table(["match", "game", "seat", "opponent", "result", "how", "reason", "moves",
    "tournament"], rows, "No finished games."));
}
