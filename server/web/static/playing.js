// A match the page plays: the match view (board, clocks, moves) that also takes clicks. On its
// turn the server's hints list the legal moves, each with the squares a person clicks to make it
// (`paths`, from the game's rules); a click keeps the moves whose squares start with the squares
// clicked so far, marks where the next click may go, and sends the move
// once one is left. A King's Court jump that may go on is finished by clicking its last square
// again; a move without squares (a pass) is a button. Any text can be typed and sent as well:
// the server refuses what is not a legal move with its sentence, and the game goes on.
import { MatchView } from "./match.js";
import { element, say } from "./view.js";

const FOR_A_MATCH = new Set(["your_turn", "move_accepted", "move_refused", "opponent_moved",
  "game_over"]);
const SVG = "http://www.w3.org/2000/svg";

export class PlayView extends MatchView {
  // `started` is `match_started` or `resumed`; `again` goes back to seeking once it is over.
  constructor(main, started, wire, again) {
    super(main, started.match);
    this.wire = wire;
    this.seat = started.seat;
    this.legal = null; // the hints of this turn, until a move is accepted
    this.paths = null; // the squares clicked for each of them
    this.turnPly = null; // the ply of the latest `your_turn`
    this.picked = []; // the squares clicked so far this turn
    this.sent = false;
    this.match = { ...started, states: started.states ?? [started.state],
      moves: started.moves ?? [], move_squares: started.move_squares ?? [] };
    this.toMove = null;
    this.startClocks(started.clocks ?? null, null);
    this.choices = element("div", { class: "choices" });
    this.typed = element("input", { name: "move", "aria-label": "move text",
      placeholder: "or type a move", autocomplete: "off" });
    const typing = element("form", { class: "typed" }, this.typed,
      element("button", { type: "submit", text: "Send" }));
    typing.addEventListener("submit", (event) => {
      event.preventDefault();
      if (this.typed.value.trim()) this.send(this.typed.value.trim());
    });
    this.again = element("button", { text: "New game", onclick: again });
    this.again.hidden = true;
    const resign = element("button", { text: "Resign",
      onclick: () => wire.send({ type: "resign", match: this.matchId }) });
    this.side.prepend(this.choices, typing, element("div", {}, resign, this.again));
    this.board.addEventListener("click", (event) => {
      const square = event.target.closest?.(".square");
      if (square) this.pick(square.dataset.square);
    });
    this.status.textContent = "";
    this.render();
  }

  takes(message) {
    return FOR_A_MATCH.has(message.type) && message.match === this.matchId;
  }

  receive(message, wire) {
    switch (message.type) {
      case "your_turn":
        this.legal = message.legal;
        this.paths = message.paths ?? null;
        this.turnPly = message.ply;
        this.picked = [];
        this.sent = false;
        this.toMove = this.seat;
        this.startClocks(message.clocks, message.time_left);
        say(this.status, "your move");
        break;
      case "move_accepted":
        this.match.moves.push(message.move);
        this.match.states.push(message.state);
        this.match.move_squares.push(message.squares ?? []);
        this.toMove = message.to_move;
        this.legal = null;
        this.startClocks(message.clocks, null);
        say(this.status, "");
        break;
      case "move_refused":
        this.sent = false;
        say(this.status, `${message.move}: ${message.reason}`, "error");
        break;
      case "game_over":
        this.legal = null;
        this.again.hidden = false;
        say(this.status, "");
        super.receive(message, wire);
        return;
      default:
        super.receive(message, wire);
        return;
    }
    this.render();
  }

  // The person's turn: a `your_turn` for the latest position, and no end.
  mine() {
    return !this.over && this.turnPly === this.latest();
  }

  send(move) {
    if (this.sent || this.over) return;
    this.sent = true;
    this.picked = [];
    this.typed.value = "";
    this.wire.send({ type: "move", match: this.matchId, move });
    this.render();
  }

  // The legal moves still open after the clicks so far, each with its squares.
  open() {
    if (!this.legal || !this.paths || this.sent || !this.mine()
      || this.shown() !== this.latest()) return [];
    return this.legal.map((move, i) => ({ move, path: this.paths[i] }))
      .filter(({ path }) => this.picked.every((square, i) => path[i] === square));
  }

  pick(square) {
    const open = this.open();
    const done = open.find(({ path }) => path.length === this.picked.length);
    if (done && this.picked.length > 0 && square === this.picked.at(-1)) {
      this.send(done.move);
      return;
    }
    const next = open.filter(({ path }) => path[this.picked.length] === square);
    if (next.length === 0) {
      this.picked = [];
      if (this.open().some(({ path }) => path[0] === square)) this.picked = [square];
    } else {
      this.picked.push(square);
      const whole = next.filter(({ path }) => path.length === this.picked.length);
      if (whole.length === 1 && next.length === 1) {
        this.send(whole[0].move);
        return;
      }
    }
    this.render();
  }

  render() {
    super.render();
    if (!this.match) return;
    this.board.dataset.turn = this.over ? "over" : this.mine() ? "mine" : "theirs";
    const open = this.open();
    const depth = this.picked.length;
    const targets = new Set(open.map(({ path }) => path[depth]).filter(Boolean));
    for (const square of this.board.querySelectorAll(".square")) {
      const name = square.dataset.square;
      if (this.picked.includes(name)) square.classList.add("picked");
      if (targets.has(name)) mark(square);
    }
    const buttons = open.filter(({ path }) => path.length === depth)
      .map(({ move }) => element("button", { text: depth ? `play ${move}` : move,
        onclick: () => this.send(move) }));
    if (depth) {
      buttons.push(element("button", { text: "clear", onclick: () => {
        this.picked = [];
        this.render();
      } }));
    }
    this.choices?.replaceChildren(...buttons);
  }
}

// A dot on a square the next click may choose.
function mark(square) {
  const rect = square.querySelector("rect");
  const size = Number(rect.getAttribute("width"));
  const dot = document.createElementNS(SVG, "circle");
  dot.setAttribute("class", "target");
  dot.setAttribute("cx", String(Number(rect.getAttribute("x")) + size / 2));
  dot.setAttribute("cy", String(Number(rect.getAttribute("y")) + size / 2));
  dot.setAttribute("r", String(size * 0.14));
  square.append(dot);
}
