// The lobby: live matches (with clocks ticking from the server's figures), open seeks and
// tournaments, from the server's `lobby_listing`, which it pushes as things change.
import { connect, spectatorName } from "./wire.js";
import { element, formatSeconds, link, matchLink, say, seekCells, table } from "./view.js";

export function showLobby(main) {
  const status = element("p", { class: "note", text: "connecting…" });
  const sections = element("div");
  main.replaceChildren(element("h1", { text: "Lobby" }), status, sections);
  let ticking = [];
  const wire = connect({ name: spectatorName() }, (message) => {
    if (message.type === "welcome") {
      status.textContent = "live";
      wire.send({ type: "lobby", follow: true });
    } else if (message.type === "lobby_listing") {
      ticking = render(sections, message, performance.now());
    } else if (message.type === "error") {
      say(status, message.message, "error");
    } else if (message.type === "closed") {
      status.textContent = "disconnected: reload the page to reconnect";
    }
  });
  setInterval(() => ticking.forEach((tick) => tick(performance.now())), 200);
}

// Draws the listing; returns the clocks to tick.
function render(sections, listing, receivedAt) {
  const ticking = [];
  const clockCell = (seconds, running) => {
    const cell = element("span", { class: "clock", text: formatSeconds(seconds) });
    if (running && seconds !== null && seconds !== undefined) {
      ticking.push((now) => {
        cell.textContent = formatSeconds(seconds - (now - receivedAt) / 1000);
      });
    }
    return cell;
  };
  const matches = listing.matches.map((m) => {
    const mover = m.seats.indexOf(m.to_move);
    const clocks = m.seats.map((_, i) => (m.clocks ? clockCell(m.clocks[i], i === mover) : ""));
    return [
      matchLink(m.match),
      m.game,
      `${m.players[0]} (${m.seats[0]})`,
      clocks[0],
      `${m.players[1]} (${m.seats[1]})`,
      clocks[1],
      m.ply,
      m.to_move ?? "",
      clockCell(m.time_left, true),
    ];
  });
  const seeks = listing.seeks.map((s) => [...seekCells(s), s.unpaired ?? ""]);
  const tournaments = listing.tournaments.map((t) => [
    link(`/tournament/${encodeURIComponent(t.name)}`, t.name), t.game, t.status,
    `${t.played} / ${t.games}`,
  ]);
  sections.replaceChildren(
    element("h2", { text: "Live matches" }),
    table(["match", "game", "first", "clock", "second", "clock", "moves", "to move",
      "for this move"], matches, "No match is being played."),
    element("h2", { text: "Open seeks" }),
    table(["player", "game", "time", "options", "challenges", "why unpaired"], seeks,
      "Nobody is seeking a game."),
    element("h2", { text: "Tournaments" }),
    table(["name", "game", "status", "played"], tournaments, "No tournaments."),
  );
  return ticking;
}
