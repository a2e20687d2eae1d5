// A random Arbiter player in Node.js, written from docs/protocol.md alone.
//
//   npm ci
//   node client.js HOST:PORT [GAME] [NAME] [SECONDS_PER_MOVE]
//
// It connects, says hello in protocol version 2, seeks one game, answers every your_turn with a
// random move from the server's hints (the `legal` list), and exits when the game is over: 0
// after a finished game, 1 if the server refused something or the connection ended first. Being
// a version 2 client, it reads only the fields it knows and ignores any others the server sends.
//
// As a tournament entrant (`arbiter tournament local GAME cmd="node client.js"`, or
// `arbiter tournament play NAME --agent cmd="node client.js"`) it is told everything in its
// environment: ARBITER_SERVER, ARBITER_GAME, ARBITER_NAME, ARBITER_TOKEN (sent in hello) and
// ARBITER_TOURNAMENT. With a tournament it keeps seeking while the tournament's status lists a
// game of its own not yet finished, and exits 0 when none is left.

import net from "node:net";
import { decode, encode } from "@msgpack/msgpack";

const PROTOCOL_VERSION = 2;
const MAX_FRAME = 4 * 1024 * 1024; // a finished long game's record can pass the server's 64 KiB

const env = process.env;
const [
  address = env.ARBITER_SERVER ?? "127.0.0.1:7777",
  game = env.ARBITER_GAME ?? "kings-court",
  name = env.ARBITER_NAME ?? "node-random",
  seconds = "10",
] = process.argv.slice(2);
const token = env.ARBITER_TOKEN || null;
const tournament = env.ARBITER_TOURNAMENT || null;
const split = address.lastIndexOf(":");
const host = address.slice(0, split);
const port = Number(address.slice(split + 1));

// Framing (protocol section 1): a 4-byte big-endian length, then one msgpack map.
function frame(message) {
  const body = encode(message);
  const header = Buffer.alloc(4);
  header.writeUInt32BE(body.byteLength);
  return Buffer.concat([header, body]);
}

// Reassembles frames from TCP chunks, which may split or join frames anywhere.
class FrameReader {
  constructor() {
    this.buffer = Buffer.alloc(0);
  }

  push(chunk) {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    const messages = [];
    while (this.buffer.length >= 4) {
      const size = this.buffer.readUInt32BE(0);
      if (size > MAX_FRAME) throw new Error(`frame of ${size} bytes is over our limit`);
      if (this.buffer.length < 4 + size) break;
      messages.push(decode(this.buffer.subarray(4, 4 + size)));
      this.buffer = this.buffer.subarray(4 + size);
    }
    return messages;
  }
}

const socket = net.createConnection({ host, port });
const reader = new FrameReader();
let myMatch = null;
let finished = false;
// Once done, nothing more is written: frames that came in the same read as game_over (a ping)
// are read and left unanswered.
const send = (message) => finished || socket.write(frame(message));

const seek = () => send({ type: "seek", game, time: { move: Number(seconds) }, hints: true });
// The next step after a game (or at the start): in a tournament, ask whether a game is left.
const next = () => (tournament ? send({ type: "tournament_status", tournament }) : seek());

function done() {
  finished = true;
  socket.end();
}

function handle(message) {
  switch (message.type) {
    case "welcome":
      console.log(`connected to ${message.server} (protocol ${message.version}); seeking ${game}`);
      next();
      break;
    case "tournament": {
      const mine = message.games.filter(
        (g) => (g.first === name || g.second === name) && g.status !== "finished",
      );
      if (mine.length > 0) seek();
      else done();
      break;
    }
    case "seek_cancelled": // the tournament needs no seek of ours any more
      next();
      break;
    case "seeking":
      console.log(`waiting for an opponent (seek ${message.seek})`);
      break;
    case "match_started":
      myMatch = message.match;
      console.log(`match ${message.match}: ${message.players.join(" vs ")}, I am ${message.seat}`);
      break;
    case "your_turn": {
      if (message.legal === null || message.legal.length === 0) {
        // No hints (or too many to send): this client has no rules of its own, so it gives up.
        send({ type: "resign", match: message.match });
        break;
      }
      const move = message.legal[Math.floor(Math.random() * message.legal.length)];
      send({ type: "move", match: message.match, move });
      break;
    }
    case "ping":
      send({ type: "pong", nonce: message.nonce });
      break;
    case "game_over":
      if (message.match !== myMatch) break;
      // termination: how it ended (version 2), e.g. "rule", "time", "resignation".
      console.log(
        `game over after ${message.moves.length} moves: ${message.result}` +
          (message.winner === null ? "" : `, ${message.winner} wins`) +
          ` (${message.reason}) [${message.termination}]`,
      );
      if (tournament) next();
      else done();
      break;
    case "error":
      console.error(`server error ${message.code}: ${message.message}`);
      if (message.code !== "game_over") socket.end();
      break;
    default:
      break; // move_accepted, opponent_moved, resumed...: the next your_turn says all we need
  }
}

socket.on("connect", () =>
  send({ type: "hello", version: PROTOCOL_VERSION, name, ...(token ? { token } : {}) }),
);
socket.on("data", (chunk) => {
  for (const message of reader.push(chunk)) handle(message);
});
socket.on("error", (error) => {
  console.error(`connection failed: ${error.message}`);
  process.exitCode = 1;
});
socket.on("close", () => {
  if (!finished) {
    console.error("the connection ended before the game did");
    process.exitCode = 1;
  }
});
