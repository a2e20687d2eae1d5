// Which squares a move names, read from its notation (docs/games/*.md), by the names the boards
// give their squares (boards.js): to mark the last move, and to compose a move by clicks. The
// rules stay on the server: a page only ever clicks out one of the legal moves it was sent.

const SQUARES = {
  "kings-court": /([A-H])([1-8])/g, // A1A3C3: the squares the piece visits
  "watch-your-back": /([0-7]),([0-7])/g, // 3,4 or 3,4-3,6: column,row
  "war-of-life": /([a-h])([1-8])/g, // c8-b7
  amazons: /([a-j])(10|[1-9])/g, // d1-d7/g7: from, to, arrow
};

const SHOBU_STEPS = { n: [-1, 0], ne: [-1, 1], e: [0, 1], se: [1, 1], s: [1, 0], sw: [1, -1],
  w: [0, -1], nw: [-1, -1] };
const FILES = "abcd";
const RANKS = "4321"; // top row first, as drawn; north is up

// A Shobu turn `bda1 wla1 n2`: each stone's square and where it goes, on its board ("bd:a1").
function shobuSquares(move) {
  const words = move.toLowerCase().split(" ");
  if (words.length !== 3) return [];
  const step = SHOBU_STEPS[words[2].slice(0, -1)];
  const distance = Number(words[2].slice(-1));
  if (!step) return [];
  return words.slice(0, 2).flatMap((word) => {
    const code = word.slice(0, 2);
    const row = RANKS.indexOf(word[3]) + step[0] * distance;
    const column = FILES.indexOf(word[2]) + step[1] * distance;
    const inside = row >= 0 && row < 4 && column >= 0 && column < 4;
    const start = `${code}:${word.slice(2, 4)}`;
    return inside ? [start, `${code}:${FILES[column]}${RANKS[row]}`] : [start];
  });
}

// The squares `move` touches, in the order it names them.
export function squaresOf(game, move) {
  if (!move) return [];
  if (game === "shobu") return shobuSquares(move);
  const pattern = SQUARES[game];
  return pattern ? [...move.matchAll(pattern)].map((m) => `${m[1]}${m[2]}`) : [];
}

// The squares a person clicks to make `move`: all it names, but for a Shobu turn, whose
// aggressive stone goes the passive one's way (its stone's square is enough); none for a pass.
export function clickPath(game, move) {
  if (game === "shobu") return shobuSquares(move).slice(0, 3);
  return squaresOf(game, move);
}
