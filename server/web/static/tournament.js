// A tournament: its format, progress, a match's SPRT, standings, the crosstable, a knockout's
// bracket and each
// entrant's Elo with its 95 % margin as a chart, from `tournament_status`; asked again whenever
// the lobby says a game finished.
import { connect, spectatorName } from "./wire.js";
import { element, escape, matchLink, playerLink, say, table } from "./view.js";

export function showTournament(main, name) {
  const status = element("p", { class: "note", text: "connecting…" });
  const body = element("div");
  main.replaceChildren(element("h1", { text: `Tournament ${name}` }), status, body);
  let played = null;
  const wire = connect({ name: spectatorName() }, (message) => {
    if (message.type === "welcome") {
      wire.send({ type: "tournament_status", tournament: name });
      wire.send({ type: "lobby", follow: true });
    } else if (message.type === "lobby_listing") {
      const listed = message.tournaments.find((t) => t.name === name);
      if (listed && played !== null && listed.played !== played) {
        wire.send({ type: "tournament_status", tournament: name });
      }
    } else if (message.type === "tournament") {
      played = message.games.filter((g) => g.status === "finished").length;
      status.textContent = "";
      render(body, message, played);
    } else if (message.type === "error") {
      say(status, message.message, "error");
    }
  });
}

function render(body, t, played) {
  const standings = t.standings.map((s) => [
    s.rank, playerLink(s.player), s.points, s.games,
    s.wins, s.draws, s.losses, s.forfeits, s.tiebreak,
    s.rating === null || s.rating === undefined ? "" : `${Math.round(s.rating)} ± ${Math.round(s.margin)}`,
  ]);
  const players = t.standings.map((s) => s.player);
  const cross = t.standings.map((s) => [s.player, ...players.map((other) => (other === s.player
    ? "—" : (s.against[other] ?? []).join(" ")))]);
  const games = t.games.map((g) => [
    g.number, g.round, g.first, g.second,
    g.match === null ? "" : matchLink(g.match),
    g.status, g.status === "finished" ? (g.winner ?? g.result.replace("_", " ")) : "", g.reason ?? "",
  ]);
  const format = t.format ?? "round-robin";
  const bracket = (t.bracket ?? []).map((tie) => [
    tie.round, playerLink(tie.higher), tie.lower === null ? "" : playerLink(tie.lower),
    tie.lower === null ? "bye" : tie.points.join("-"), tie.winner ?? "",
  ]);
  const knockout = t.bracket ? [
    element("h2", { text: "Bracket" }),
    table(["round", "higher seed", "lower seed", "points", "through"], bracket, "No ties yet."),
  ] : [];
  const sprt = t.sprt ? [element("p", { class: "sprt", text: sprtLine(t.sprt) })] : [];
  body.replaceChildren(
    element("p", { class: "progress", text: `${t.game}, ${format}, ${t.status}: ${played} of`
      + ` ${t.games.length} games played (${t.rounds} round${t.rounds === 1 ? "" : "s"})` }),
    element("progress", { max: String(t.games.length || 1), value: String(played) }),
    ...sprt,
    element("h2", { text: "Standings" }),
    table(["#", "player", "points", "games", "won", "drawn", "lost", "forfeits", "tiebreak",
      "Elo"], standings, "No standings yet."),
    ...knockout,
    element("h2", { text: "Crosstable" }),
    table(["", ...players], cross, "No games yet."),
    element("h2", { text: "Elo (95 % margin)" }),
    eloChart(t.standings),
    element("h2", { text: "Games" }),
    table(["game", "round", "first", "second", "match", "status", "winner", "reason"], games,
      "No games scheduled."),
  );
}

// Where a match's SPRT stands, as `arbiter match` says it: the pairs counted, the LLR against
// its bounds, and the hypothesis accepted (or why it stopped, or that it has not decided).
function sprtLine(s) {
  const verdict = s.decision ? `${s.decision} accepted` : (s.stopped ?? "undecided");
  return `SPRT (elo0=${s.elo0} elo1=${s.elo1}, alpha ${s.alpha}, beta ${s.beta}): ${s.pairs}`
    + ` pair${s.pairs === 1 ? "" : "s"} counted, LLR ${s.llr.toFixed(2)}`
    + ` [${s.lower.toFixed(2)}, ${s.upper.toFixed(2)}]: ${verdict}`;
}

// One row per rated entrant: a dot at its rating and a bar across its margin, on one scale.
function eloChart(standings) {
  const rated = standings.filter((s) => s.rating !== null && s.rating !== undefined);
  if (rated.length === 0) return element("p", { class: "empty", text: "No ratings yet." });
  const low = Math.min(...rated.map((s) => s.rating - (s.margin ?? 0)));
  const high = Math.max(...rated.map((s) => s.rating + (s.margin ?? 0)));
  const span = Math.max(high - low, 1);
  const width = 600;
  const left = 140;
  const row = 28;
  const x = (value) => left + ((value - low) / span) * (width - left - 20);
  const parts = rated.map((s, i) => {
    const y = 20 + i * row;
    const margin = s.margin ?? 0;
    return `<g class="elo" data-player="${escape(s.player)}">`
      + `<text x="${left - 10}" y="${y + 4}" text-anchor="end" font-size="13">`
      + `${escape(s.player)}</text>`
      + `<line x1="${x(s.rating - margin)}" x2="${x(s.rating + margin)}" y1="${y}" y2="${y}"`
      + ` stroke="#555" stroke-width="2"/>`
      + `<circle cx="${x(s.rating)}" cy="${y}" r="5" fill="#2d3142"/>`
      + `<text x="${x(s.rating)}" y="${y - 8}" text-anchor="middle" font-size="11">`
      + `${Math.round(s.rating)}</text></g>`;
  });
  const height = 30 + rated.length * row;
  const chart = element("div");
  chart.innerHTML = `<svg class="elo-chart" xmlns="http://www.w3.org/2000/svg" width="${width}"`
    + ` height="${height}" viewBox="0 0 ${width} ${height}">${parts.join("")}</svg>`;
  return chart;
}
