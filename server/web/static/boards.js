// Each game's position drawn as SVG from the game's own state dict (docs/games/*.md): row
// strings, top row first. Only how things look lives here: which cells a move names is read
// from its notation (moves.js); the positions themselves come from the server, computed by the
// rules.
import { squaresOf } from "./moves.js";
import { escape } from "./view.js";

const CELL = 44;
const MARGIN = 22;
const INK = "#222";
const MARK = "rgba(255, 196, 0, 0.55)";


function stone(x, y, fill, stroke = INK) {
  return `<circle cx="${x + CELL / 2}" cy="${y + CELL / 2}" r="${CELL * 0.36}" fill="${fill}"`
    + ` stroke="${stroke}" stroke-width="2"/>`;
}

function cross(x, y, colour) {
  const a = CELL * 0.2;
  const b = CELL - a;
  return `<path d="M${x + a} ${y + a}L${x + b} ${y + b}M${x + b} ${y + a}L${x + a} ${y + b}"`
    + ` stroke="${colour}" stroke-width="3"/>`;
}

// One square grid as an SVG group at (left, top): `fill(char, row, column)` is a square's
// background, `pieces[char]` draws what stands on it; a square's name in the notation is its
// column's label, then its row's (after `id`, for a board of several).
function grid({ rows, columns, rowLabels, fill, pieces, marked, left = 0, top = 0, title,
  id = "" }) {
  const parts = [];
  if (title) {
    parts.push(`<text x="${left + MARGIN}" y="${top + 14}" font-size="13">${escape(title)}</text>`);
  }
  rows.forEach((row, r) => {
    [...row].forEach((char, c) => {
      const x = left + MARGIN + c * CELL;
      const y = top + MARGIN + r * CELL;
      const name = `${id}${columns[c]}${rowLabels[r]}`;
      parts.push(`<g class="square" data-square="${escape(name)}" data-cell="${escape(char)}">`
        + `<rect x="${x}" y="${y}" width="${CELL}" height="${CELL}" fill="${fill(char, r, c)}"`
        + ` stroke="#777" stroke-width="0.5"/>`);
      if (marked.has(name)) {
        parts.push(`<rect class="last-move" x="${x + 2}" y="${y + 2}" width="${CELL - 4}"`
          + ` height="${CELL - 4}" fill="${MARK}"/>`);
      }
      parts.push(pieces[char]?.(x, y) ?? "", "</g>");
    });
  });
  const size = rows.length * CELL;
  columns.forEach((label, c) => parts.push(`<text x="${left + MARGIN + c * CELL + CELL / 2}"`
    + ` y="${top + MARGIN + size + 15}" font-size="12" text-anchor="middle">${label}</text>`));
  rowLabels.forEach((label, r) => parts.push(`<text x="${left + MARGIN - 8}"`
    + ` y="${top + MARGIN + r * CELL + CELL / 2 + 4}" font-size="12" text-anchor="end">${label}</text>`));
  return parts.join("");
}

const svg = (width, height, game, body) => `<svg class="board" data-game="${game}"`
  + ` xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}">${body}</svg>`;

const LIGHT = "#f0d9b5";
const DARK = "#b58863";
const DOWN_FROM_8 = [..."87654321"];
const white = (x, y) => stone(x, y, "#fff");
const black = (x, y) => stone(x, y, "#222");

function amazon(x, y, fill, stroke) {
  const s = CELL / 44;
  const points = [[8, 34], [6, 14], [15, 24], [22, 9], [29, 24], [38, 14], [36, 34]]
    .map(([px, py]) => `${x + px * s},${y + py * s}`).join(" ");
  return `<polygon points="${points}" fill="${fill}" stroke="${stroke}" stroke-width="2"/>`;
}

// A game drawn on one grid: its state's `board` rows, top row first.
function oneBoard({ columns, rowLabels, fill, pieces }) {
  const width = 2 * MARGIN + columns.length * CELL;
  return (state, marked, game) => svg(width, width + 4, game,
    grid({ rows: state.board, columns, rowLabels, fill, pieces, marked }));
}

const SHOBU_CODES = { bd: "black-dark", bl: "black-light", wd: "white-dark", wl: "white-light" };
const SHOBU_STONES = { B: (x, y) => stone(x, y, "#222", "#000"), W: white };

function shobu(state, marked) {
  const size = 2 * MARGIN + 4 * CELL;
  const layout = [["wd", 0, 0], ["wl", 1, 0], ["bd", 0, 1], ["bl", 1, 1]];
  const rope = 30;
  const body = layout.map(([code, column, row]) => {
    const name = SHOBU_CODES[code];
    const wood = name.endsWith("dark") ? "#8b5a2b" : "#e3c290";
    return grid({ rows: state.boards[name], columns: [..."abcd"], rowLabels: [..."4321"],
      fill: () => wood, pieces: SHOBU_STONES, marked, left: column * (size + 10),
      top: row * (size + rope), title: `${name} (${code})`, id: `${code}:` });
  }).join("");
  const ropeY = size + rope / 2 + 4;
  const line = `<path d="M${MARGIN} ${ropeY} H${2 * size}" stroke="#a0522d" stroke-width="4"`
    + ` stroke-dasharray="8 4"/>`;
  return svg(2 * size + 10, 2 * size + rope + 4, "shobu", body + line);
}

const inCourt = (r, c) => r >= 2 && r <= 5 && c >= 2 && c <= 5;

const DRAWINGS = {
  "kings-court": oneBoard({
    columns: [..."ABCDEFGH"],
    rowLabels: DOWN_FROM_8,
    fill: (char, r, c) => (inCourt(r, c) ? "#c8d6a0" : "#ece6d6"),
    pieces: { w: white, b: black },
  }),
  "watch-your-back": oneBoard({
    columns: [..."01234567"],
    rowLabels: [..."01234567"],
    fill: (char) => (char === "#" ? "#555" : char === "X" ? "#3a3a3a" : "#e8e2cf"),
    pieces: { O: white, "@": black, X: (x, y) => cross(x, y, "#ddd") },
  }),
  "war-of-life": oneBoard({
    columns: [..."abcdefgh"],
    rowLabels: DOWN_FROM_8,
    fill: (char, r, c) => ((r + c) % 2 === 0 ? "#f4f4f4" : "#dcdcdc"),
    pieces: { b: (x, y) => stone(x, y, "#2b6cd4", "#123"),
      r: (x, y) => stone(x, y, "#d43b2b", "#311") },
  }),
  amazons: oneBoard({
    columns: [..."abcdefghij"],
    rowLabels: Array.from({ length: 10 }, (_, i) => String(10 - i)),
    fill: (char, r, c) => (char === "x" ? "#4a3426" : (r + c) % 2 === 0 ? LIGHT : DARK),
    pieces: { W: (x, y) => amazon(x, y, "#fff", INK), B: (x, y) => amazon(x, y, "#222", "#ccc"),
      x: (x, y) => cross(x, y, "#c96") },
  }),
  shobu,
};

// The SVG markup of `state` (a game's state dict), the squares of `move` marked.
export function drawBoard(game, state, move) {
  const drawing = DRAWINGS[game];
  if (!drawing) return `<p class="error">no drawing for ${escape(game)}</p>`;
  return drawing(state, new Set(squaresOf(game, move)), game);
}
