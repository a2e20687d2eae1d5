// One protocol client over a WebSocket: the messages of docs/protocol.md as JSON objects, one a
// WebSocket message. The server treats this page as any TCP client; pings are answered here.

const PROTOCOL_VERSION = 2;

export function spectatorName() {
  return `web-${Math.random().toString(16).slice(2, 10)}`;
}

// Opens the socket and says hello ({name, token?, resume?}); `onMessage` gets every message but
// pings, and {type: "closed"} when the socket ends.
export function connect(hello, onMessage) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/socket`);
  const wire = {
    send(message) {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
    },
    close() { socket.close(); },
  };
  socket.onopen = () => wire.send({ type: "hello", version: PROTOCOL_VERSION, ...hello });
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "ping") wire.send({ type: "pong", nonce: message.nonce });
    else onMessage(message);
  };
  socket.onclose = () => onMessage({ type: "closed" });
  return wire;
}
