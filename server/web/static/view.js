// Small DOM helpers shared by the pages.

export function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

// A table with a header row; each row is a list of cells (strings or nodes).
export function table(headings, rows, emptyText) {
  if (rows.length === 0) return element("p", { class: "empty", text: emptyText });
  const head = element("tr", {}, ...headings.map((h) => element("th", { text: h })));
  const body = rows.map((cells) => element("tr", {}, ...cells.map((cell) => {
    const td = element("td");
    if (typeof cell === "number") td.className = "number";
    td.append(cell === null || cell === undefined ? "" : cell);
    return td;
  })));
  return element("table", {}, head, ...body);
}

export function link(href, text) {
  return element("a", { href, text });
}

export const playerLink = (name) => link(`/player/${encodeURIComponent(name)}`, name);
export const matchLink = (match) => link(`/match/${match}`, `#${match}`);

// A page's status line: a note, or an error.
export function say(status, text, kind = "note") {
  status.textContent = text;
  status.className = kind;
}

// Text put in markup built as a string (the SVG of boards and charts), its specials escaped.
export function escape(text) {
  return String(text).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

// An open seek as the lobby and the play page list it: player, game, time, options, challenge.
export function seekCells(seek) {
  return [seek.player, seek.game, formatControl(seek.time), JSON.stringify(seek.options),
    seek.opponent ?? ""];
}

export function formatSeconds(seconds) {
  if (seconds === null || seconds === undefined) return "";
  const whole = Math.max(0, seconds);
  if (whole < 10) return whole.toFixed(1);
  const minutes = Math.floor(whole / 60);
  const rest = Math.floor(whole % 60).toString().padStart(2, "0");
  return `${minutes}:${rest}`;
}

export function formatControl(time) {
  const parts = [];
  if (time.clock !== undefined) parts.push(`clock ${time.clock}+${time.increment ?? 0}`);
  if (time.move !== undefined) parts.push(`${time.move} s/move`);
  return parts.join(", ");
}
