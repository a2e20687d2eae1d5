// Any game's position drawn as SVG from the game's description of its boards (`boards`, sent
// by the server from the game's rules module: grids, labels, square colours, pieces) and the
// state dict the server computed (docs/games/*.md). Nothing here knows a game: which squares
// a move touches comes with the move, named as the boards name their squares.
import { escape } from "./view.js";

const CELL = 44;
const MARGIN = 22;
const BAND_GAP = 10; // between the boards of a band
const SEPARATOR = 30; // between bands, where a separator (Shobu's rope) is drawn
const MARK = "rgba(255, 196, 0, 0.55)";

function stone(x, y, fill, stroke) {
  return `<circle cx="${x + CELL / 2}" cy="${y + CELL / 2}" r="${CELL * 0.36}" fill="${fill}"`
    + ` stroke="${stroke}" stroke-width="2"/>`;
}

function cross(x, y, fill, stroke) {
  const a = CELL * 0.2;
  const b = CELL - a;
  return `<path d="M${x + a} ${y + a}L${x + b} ${y + b}M${x + b} ${y + a}L${x + a} ${y + b}"`
    + ` stroke="${stroke}" stroke-width="3"/>`;
}

function amazon(x, y, fill, stroke) {
  const s = CELL / 44;
  const points = [[8, 34], [6, 14], [15, 24], [22, 9], [29, 24], [38, 14], [36, 34]]
    .map(([px, py]) => `${x + px * s},${y + py * s}`).join(" ");
  return `<polygon points="${points}" fill="${fill}" stroke="${stroke}" stroke-width="2"/>`;
}

const SHAPES = { stone, cross, amazon };

const size = (grid) => ({ width: 2 * MARGIN + grid.columns.length * CELL,
  height: 2 * MARGIN + grid.rows.length * CELL });

// The rows of `grid` in the state dict (its `path` of keys).
const rowsOf = (grid, state) => grid.path.reduce((found, key) => found[key], state);

// One grid as an SVG group at (left, top); a square is named by the grid's prefix, its
// column's label, then its row's, as the notation names it.
function grid(described, pieces, rows, marked, left, top) {
  const { columns, rows: rowLabels, ground, title, prefix } = described;
  const parts = [];
  if (title) {
    parts.push(`<text x="${left + MARGIN}" y="${top + 14}" font-size="13">${escape(title)}</text>`);
  }
  rows.forEach((row, r) => {
    [...row].forEach((char, c) => {
      const x = left + MARGIN + c * CELL;
      const y = top + MARGIN + r * CELL;
      const name = `${prefix}${columns[c]}${rowLabels[r]}`;
      const piece = pieces[char];
      parts.push(`<g class="square" data-square="${escape(name)}" data-cell="${escape(char)}">`
        + `<rect x="${x}" y="${y}" width="${CELL}" height="${CELL}"`
        + ` fill="${piece?.ground || ground[r][c]}" stroke="#777" stroke-width="0.5"/>`);
      if (marked.has(name)) {
        parts.push(`<rect class="last-move" x="${x + 2}" y="${y + 2}" width="${CELL - 4}"`
          + ` height="${CELL - 4}" fill="${MARK}"/>`);
      }
      const shape = piece?.shape ? SHAPES[piece.shape](x, y, piece.fill, piece.stroke) : "";
      parts.push(shape, "</g>");
    });
  });
  const height = rows.length * CELL;
  columns.forEach((label, c) => parts.push(`<text x="${left + MARGIN + c * CELL + CELL / 2}"`
    + ` y="${top + MARGIN + height + 15}" font-size="12" text-anchor="middle">${label}</text>`));
  rowLabels.forEach((label, r) => parts.push(`<text x="${left + MARGIN - 8}"`
    + ` y="${top + MARGIN + r * CELL + CELL / 2 + 4}" font-size="12" text-anchor="end">${label}</text>`));
  return parts.join("");
}

// The SVG markup of `state` (a game's state dict) as `boards` describes it, the squares named
// in `marked` (the last move's) highlighted.
export function drawBoard(game, boards, state, marked = []) {
  if (!boards) return `<p class="error">no drawing for ${escape(game)}</p>`;
  const names = new Set(marked);
  const body = [];
  const lines = [];
  let top = 0;
  let width = 0;
  boards.bands.forEach((band, number) => {
    if (number) {
      if (boards.separator) {
        lines.push(`<path d="M${MARGIN} ${top + SEPARATOR / 2 + 4} H${width - BAND_GAP}"`
          + ` stroke="#a0522d" stroke-width="4" stroke-dasharray="8 4"/>`);
      }
      top += SEPARATOR;
    }
    let left = 0;
    let height = 0;
    band.forEach((index) => {
      const described = boards.grids[index];
      body.push(grid(described, boards.pieces, rowsOf(described, state), names, left, top));
      const { width: w, height: h } = size(described);
      left += w + BAND_GAP;
      height = Math.max(height, h);
    });
    width = Math.max(width, left - BAND_GAP);
    top += height;
  });
  return `<svg class="board" data-game="${escape(game)}" xmlns="http://www.w3.org/2000/svg"`
    + ` viewBox="0 0 ${width} ${top + 4}">${body.join("")}${lines.join("")}</svg>`;
}
