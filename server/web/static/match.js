// A match: its board, both clocks, the move list and the result, live as moves are played; any
// position of it can be shown again (step, slider, a link per move: `#ply=N`).
import { drawBoard } from "./boards.js";
import { connect, spectatorName } from "./wire.js";
import { element, formatSeconds, link, playerLink, say } from "./view.js";

export function showMatch(main, matchId) {
  const view = new MatchView(main, matchId);
  const wire = connect({ name: spectatorName() }, (message) => view.receive(message, wire));
  window.addEventListener("hashchange", () => view.render());
  setInterval(() => view.tickClocks(), 200);
  showLogs(main, matchId);
}

// What the signed-in author's hosted agents printed in this match (an admin sees every hosted
// seat's): nothing is shown to anyone else. A worker reports a log when its agent ends, a moment
// after the game does, so a signed-in author's page asks again for a while.
const LOG_RETRY_MS = 2000;

async function showLogs(main, matchId, retries = 30) {
  const answer = await fetch(`/match/${matchId}/logs`);
  if (answer.status !== 200) return;
  const { logs } = await answer.json();
  if (logs.length === 0) {
    if (retries > 0) setTimeout(() => showLogs(main, matchId, retries - 1), LOG_RETRY_MS);
    return;
  }
  main.append(element("section", { class: "logs" }, element("h2", { text: "Agent logs" }),
    ...logs.map((entry) => element("div", {},
      element("h3", { text: `${entry.seat}: ${entry.player}` }),
      element("pre", { text: entry.log })))));
}

export class MatchView {
  constructor(main, matchId) {
    this.matchId = matchId;
    // {game, seats, players, time, moves: the moves from number moves_from on, states: the
    // positions from ply states_from on (a long game's earliest ones are not sent), boards: the
    // game's description of its boards, move_squares: the squares each move touched, from the
    // move squares_from on}
    this.match = null;
    this.clocks = null;
    this.moveLeft = null; // seconds for the move in progress, as of clockAt
    this.clockAt = performance.now();
    this.toMove = null;
    this.over = null;
    this.termination = null; // how it ended as a fixed kind (game_over's), once over
    this.status = element("p", { class: "note", text: "connecting…" });
    this.title = element("h1", { text: `Match ${matchId}` });
    this.board = element("div", { class: "board-box" });
    this.players = element("div");
    this.result = element("p", { class: "result" });
    this.slider = element("input", { type: "range", min: "0", max: "0", value: "0",
      "aria-label": "position", oninput: () => this.goTo(Number(this.slider.value)) });
    this.moves = element("div", { class: "moves" });
    this.since = element("p", { class: "note" });
    const button = (text, label, to) => element("button", { text, "aria-label": label,
      onclick: () => this.goTo(to()) });
    const replay = element("div", { class: "replay" },
      button("|<", "first position", () => this.earliest()),
      button("<", "previous move", () => this.shown() - 1),
      button(">", "next move", () => this.shown() + 1),
      button(">|", "latest position", () => this.latest()),
      this.slider);
    this.side = element("div", { class: "side" }, this.players, this.result, replay, this.since,
      this.moves);
    main.replaceChildren(this.title, this.status,
      element("div", { class: "match" }, this.board, this.side));
  }

  receive(message, wire) {
    switch (message.type) {
      case "welcome":
        this.status.textContent = "";
        wire.send({ type: "watch", match: this.matchId });
        wire.send({ type: "lobby" });
        break;
      case "watching":
        this.match = { ...message };
        this.toMove = message.to_move;
        this.startClocks(null, message.time.move ?? null);
        break;
      case "lobby_listing": {
        const live = message.matches.find((m) => m.match === this.matchId);
        if (live && this.match && live.ply === this.latest()) {
          this.startClocks(live.clocks, live.time_left);
        }
        break;
      }
      case "opponent_moved":
        if (!this.match || message.ply !== this.latest() + 1) break;
        this.match.moves.push(message.move);
        this.match.states.push(message.state);
        this.match.move_squares.push(message.squares ?? []);
        this.toMove = message.to_move;
        this.startClocks(message.clocks, this.match.time.move ?? null);
        break;
      case "game_over":
        this.over = message;
        this.toMove = null;
        this.termination = message.termination ?? null;
        break;
      case "error":
        say(this.status, message.message, "error");
        break;
      case "closed":
        if (!this.over) this.status.textContent = "disconnected: reload the page to reconnect";
        break;
      default:
        return;
    }
    this.render();
  }

  startClocks(clocks, moveLeft) {
    this.clocks = clocks ? [...clocks] : null;
    this.moveLeft = moveLeft;
    this.clockAt = performance.now();
  }

  latest() { return this.match ? this.movesFrom() + this.match.moves.length : 0; }

  // The number of the first move the page lists (a long game's earliest are not sent).
  movesFrom() { return this.match?.moves_from ?? 0; }

  // The first ply whose position the page has.
  earliest() { return this.match?.states_from ?? 0; }

  stateAt(ply) { return this.match.states[ply - this.earliest()]; }

  shown() {
    const asked = location.hash.match(/^#ply=(\d+)$/);
    if (!asked) return this.latest();
    return Math.max(this.earliest(), Math.min(Number(asked[1]), this.latest()));
  }

  goTo(ply) {
    const bounded = Math.max(this.earliest(), Math.min(ply, this.latest()));
    history.replaceState(null, "", bounded === this.latest() && !this.over ? location.pathname
      : `#ply=${bounded}`);
    this.render();
  }

  render() {
    if (!this.match) return;
    const { game, seats, players, moves, boards } = this.match;
    const ply = this.shown();
    this.title.textContent = `Match ${this.matchId}: ${game}`;
    const squaresFrom = this.match.squares_from ?? 0;
    const marked = ply > 0 ? this.match.move_squares[ply - 1 - squaresFrom] ?? [] : [];
    this.board.innerHTML = drawBoard(game, boards, this.stateAt(ply), marked);
    this.board.dataset.ply = String(ply);
    this.slider.min = String(this.earliest());
    this.slider.max = String(this.latest());
    this.slider.value = String(ply);
    this.clockCells = seats.map(() => element("span", { class: "clock" }));
    this.players.replaceChildren(...seats.map((seat, i) => element("div", {
      class: `player${seat === this.toMove ? " to-move" : ""}`, "data-seat": seat,
    }, element("span", {}, playerLink(players[i]), ` (${seat})`), this.clockCells[i])));
    this.since.textContent = this.earliest() > 0
      ? `a long game: its positions and moves are shown from move ${this.earliest()} on` : "";
    this.tickClocks();
    const first = this.movesFrom();
    this.moves.replaceChildren(...moves.map((move, i) => {
      const anchor = link(`#ply=${first + i + 1}`, `${first + i + 1}. ${move}`);
      if (first + i + 1 === ply) anchor.className = "current";
      return anchor;
    }));
    this.moves.querySelector(".current")?.scrollIntoView({ block: "nearest" });
    if (this.over) {
      // spelled as every client spells a result (client/verdict.py): `both forfeit: ...`
      const winner = this.over.winner ? `${this.over.winner} wins` : this.over.result.replace("_", " ");
      const kind = this.termination ? ` (${this.termination})` : "";
      this.result.textContent = `${winner}: ${this.over.reason}${kind}`;
      this.result.dataset.termination = this.termination ?? "";
    }
  }

  tickClocks() {
    if (!this.match || !this.clockCells) return;
    const running = (performance.now() - this.clockAt) / 1000;
    this.match.seats.forEach((seat, i) => {
      const moving = seat === this.toMove && !this.over;
      const parts = [];
      if (this.clocks) parts.push(formatSeconds(this.clocks[i] - (moving ? running : 0)));
      if (moving && this.moveLeft !== null) {
        parts.push(`move ${formatSeconds(this.moveLeft - running)}`);
      }
      this.clockCells[i].textContent = parts.join(" · ");
    });
  }
}
