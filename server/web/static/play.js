// Play in the browser: a person says who they are (a name, or a registered player's name and
// token), seeks a game or accepts an open seek, then plays by clicking (playing.js). The page is
// a protocol client like any other: its seeks ask for hints and `illegal: retry`, and the server
// checks everything it sends.
//
// The name, the token and the welcome's `session` are kept in sessionStorage (this tab only,
// never in a URL): a reloaded page says hello with `resume` and gets its seats back within the
// server's grace period.
import { PlayView } from "./playing.js";
import { connect } from "./wire.js";
import { element, formatControl, say, seekCells, table } from "./view.js";

const KEPT = "arbiter-player";

export function showPlay(main) {
  const kept = JSON.parse(sessionStorage.getItem(KEPT) ?? "null");
  if (kept) new Table(main, kept, true);
  else signIn(main);
}

function signIn(main, problem = "") {
  const name = element("input", { name: "name", required: "", maxlength: "64",
    autocomplete: "nickname", "aria-label": "name" });
  const token = element("input", { name: "token", type: "password", maxlength: "128",
    autocomplete: "off", "aria-label": "token" });
  const form = element("form", { class: "sign-in" },
    element("label", {}, "Name ", name),
    element("label", {}, " Token (registered players only) ", token),
    element("button", { type: "submit", text: "Enter" }));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    new Table(main, { name: name.value, token: token.value || null }, false);
  });
  main.replaceChildren(element("h1", { text: "Play" }),
    element("p", { class: problem ? "error" : "note", text: problem }), form);
  name.focus();
}

// One connection: the seek form and the open seeks until a match starts, then the match.
class Table {
  constructor(main, who, resuming) {
    this.main = main;
    this.who = who;
    this.games = [];
    this.view = null;
    this.status = element("p", { class: "note", text: "connecting…" });
    this.form = element("form", { class: "seek" });
    this.seeks = element("div");
    main.replaceChildren(element("h1", { text: `Play as ${who.name}` }), this.status);
    const hello = { name: who.name, token: who.token ?? undefined };
    if (resuming) hello.resume = who.session;
    this.wire = connect(hello, (message) => this.receive(message));
  }

  receive(message) {
    const forTheView = message.type === "error" || message.type === "closed";
    if (this.view && (this.view.takes(message) || (forTheView && !this.view.over))) {
      this.view.receive(message, this.wire);
      return;
    }
    switch (message.type) {
      case "welcome":
        sessionStorage.setItem(KEPT, JSON.stringify({ ...this.who, session: message.session }));
        this.wire.send({ type: "list_games" });
        this.wire.send({ type: "lobby", follow: true });
        this.showSeeking();
        break;
      case "games":
        this.games = message.games;
        this.drawForm();
        break;
      case "lobby_listing":
        this.listing = message;
        this.drawSeeks();
        break;
      case "seeking":
        say(this.status, `seeking ${message.game} (${formatControl(message.time)})…`);
        this.seek = message.seek;
        this.drawForm();
        break;
      case "seek_cancelled":
        say(this.status, "seek cancelled");
        this.seek = null;
        this.drawForm();
        break;
      case "match_started":
      case "resumed":
        this.view = new PlayView(this.main, message, this.wire, () => this.showSeeking());
        break;
      case "error":
        this.refused(message);
        break;
      case "closed":
        say(this.status, "disconnected: reload the page to take your seat back", "error");
        break;
      default:
    }
  }

  refused(message) {
    if (message.ref === "hello" && message.code !== "unknown_session") {
      sessionStorage.removeItem(KEPT);
      signIn(this.main, message.message);
    } else if (message.code === "unknown_session") {
      say(this.status, "no game to take back: seek a new one");
    } else {
      say(this.status, message.message, "error");
    }
  }

  showSeeking() {
    this.view = null;
    this.seek = null;
    const leave = element("button", { text: "Sign out", onclick: () => {
      sessionStorage.removeItem(KEPT);
      this.wire.close();
      signIn(this.main);
    } });
    this.main.replaceChildren(element("h1", {}, `Play as ${this.who.name} `, leave),
      this.status, element("h2", { text: "Seek a game" }), this.form,
      element("h2", { text: "Open seeks" }), this.seeks);
    this.drawForm();
    this.drawSeeks();
  }

  // The seek form: the game, its options (from `games`), the time control and a challenge.
  drawForm() {
    if (this.seek) {
      this.form.replaceChildren(element("button", { type: "button", text: "Cancel the seek",
        onclick: () => this.wire.send({ type: "cancel_seek", seek: this.seek }) }));
      return;
    }
    if (!this.games.length) return;
    const chosen = this.form.elements.game?.value ?? this.games[0].name;
    const game = element("select", { name: "game", "aria-label": "game",
      onchange: () => this.drawForm() },
    ...this.games.map((g) => element("option", { value: g.name, text: g.title })));
    game.value = chosen;
    const options = this.games.find((g) => g.name === chosen).options.map(optionInput);
    const time = element("input", { name: "time", "aria-label": "time control",
      placeholder: "clock=600+5 (the default for a person)" });
    const opponent = element("input", { name: "opponent", "aria-label": "opponent",
      placeholder: "anyone", maxlength: "64" });
    this.form.replaceChildren(
      element("label", {}, "Game ", game),
      ...options.map((o) => o.label),
      element("label", {}, " Time ", time),
      element("label", {}, " Opponent ", opponent),
      element("button", { type: "submit", text: "Seek" }));
    this.form.onsubmit = (event) => {
      event.preventDefault();
      const chosenOptions = Object.fromEntries(options.map((o) => [o.name, o.value()])
        .filter(([, value]) => value !== undefined));
      this.send(chosen, chosenOptions, parseTime(time.value), opponent.value || null);
    };
  }

  send(game, options, time, opponent) {
    this.wire.send({ type: "seek", game, options, time, hints: true, illegal: "retry",
      opponent });
  }

  // Open seeks with a button to accept each: the same seek back, naming its player.
  drawSeeks() {
    if (!this.listing) return;
    const name = this.who.name;
    const rows = this.listing.seeks.filter((s) => s.player !== name).map((s) => {
      const open = s.opponent === null || s.opponent === undefined || s.opponent === name;
      const accept = element("button", { text: "Accept", "aria-label": `accept ${s.player}`,
        onclick: () => this.send(s.game, s.options, s.time, s.player) });
      if (!open || this.seek) accept.disabled = true;
      return [...seekCells(s), accept];
    });
    this.seeks.replaceChildren(table(["player", "game", "time", "options", "challenges", ""],
      rows, "Nobody else is seeking a game."));
  }
}

// One option's input, its name and the value to send (undefined: the game's default).
function optionInput(option) {
  const attributes = { name: option.name, "aria-label": option.name, title: option.help };
  if (option.type === "bool") {
    const box = element("input", { ...attributes, type: "checkbox" });
    box.checked = Boolean(option.default);
    return { name: option.name, label: element("label", {}, ` ${option.name} `, box),
      value: () => (box.checked === Boolean(option.default) ? undefined : box.checked) };
  }
  const input = element("input", { ...attributes, type: option.type === "int" ? "number" : "text",
    placeholder: option.default === null ? "any" : String(option.default) });
  return { name: option.name, label: element("label", {}, ` ${option.name} `, input),
    value: () => {
      if (input.value === "") return undefined;
      return option.type === "int" ? Number(input.value) : input.value;
    } };
}

// `clock=300+2,move=10,lag=off` (the terminal's form) as a seek's `time` map; what cannot be read
// is sent as written, for the server to refuse with its sentence.
function parseTime(text) {
  const time = {};
  for (const part of text.split(",").map((p) => p.trim()).filter(Boolean)) {
    const [key, value = ""] = part.split("=", 2).map((p) => p.trim());
    if (key === "clock" && value.includes("+")) {
      const [clock, increment] = value.split("+", 2);
      time.clock = number(clock);
      time.increment = number(increment);
    } else if (key === "lag" && (value === "off" || value === "on")) {
      time.lag = value === "on" ? 1 : 0;
    } else {
      time[key] = number(value);
    }
  }
  return time;
}

function number(text) {
  const value = Number(text);
  return text.trim() === "" || Number.isNaN(value) ? text : value;
}
