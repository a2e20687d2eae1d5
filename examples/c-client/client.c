/* A random Arbiter player in C, written from docs/protocol.md alone, with no library but libc.
 *
 *   gcc -O2 -o client client.c
 *   ./client HOST:PORT [GAME] [NAME] [SECONDS_PER_MOVE]
 *
 * It connects, says hello in protocol version 2, seeks one game, answers every your_turn with a
 * random move from the server's hints (the `legal` list), and exits when the game is over: 0
 * after a finished game, 1 if the server refused something or the connection ended first. As a
 * tournament entrant or a hosted agent it is told everything in its environment:
 * ARBITER_SERVER, ARBITER_GAME, ARBITER_NAME, ARBITER_TOKEN (sent in hello) and
 * ARBITER_TOURNAMENT; with a tournament it keeps seeking while the tournament's status lists a
 * game of its own not yet finished.
 *
 * msgpack is small enough to write by hand: the encoder below writes the few types a client
 * sends; the decoder reads any message into a tree of `value`s and skips what it does not need.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_FRAME (4u * 1024u * 1024u)

/* -- encoding: a growing buffer ---------------------------------------------------------- */

typedef struct {
  unsigned char *data;
  size_t size, used;
} buffer;

static void put(buffer *b, const void *bytes, size_t n) {
  if (b->used + n > b->size) {
    b->size = (b->used + n) * 2;
    b->data = realloc(b->data, b->size);
    if (!b->data) abort();
  }
  memcpy(b->data + b->used, bytes, n);
  b->used += n;
}

static void put_byte(buffer *b, unsigned char c) { put(b, &c, 1); }

static void put_be(buffer *b, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; i--) put_byte(b, (unsigned char)(v >> (8 * i)));
}

static void put_map(buffer *b, unsigned n) { put_byte(b, (unsigned char)(0x80 | n)); } /* n < 16 */

static void put_str(buffer *b, const char *s) {
  size_t n = strlen(s);
  if (n < 32) put_byte(b, (unsigned char)(0xa0 | n));
  else if (n < 256) { put_byte(b, 0xd9); put_be(b, n, 1); }
  else { put_byte(b, 0xda); put_be(b, n, 2); }
  put(b, s, n);
}

static void put_int(buffer *b, int64_t v) {
  if (v >= 0 && v < 128) put_byte(b, (unsigned char)v);
  else { put_byte(b, 0xd3); put_be(b, (uint64_t)v, 8); }
}

static void put_float(buffer *b, double v) {
  uint64_t bits;
  memcpy(&bits, &v, 8);
  put_byte(b, 0xcb);
  put_be(b, bits, 8);
}

/* -- decoding: a tree of values ---------------------------------------------------------- */

typedef enum { NIL, BOOL, INT, FLOAT, STR, BIN, ARRAY, MAP } kind;

typedef struct value {
  kind kind;
  int64_t integer; /* INT, BOOL */
  double number;   /* FLOAT */
  const char *text; /* STR (not NUL-terminated: `length`) */
  size_t length;    /* STR, BIN: bytes; ARRAY, MAP: items (a map's are key, value, key...) */
  struct value *items;
} value;

typedef struct {
  const unsigned char *at, *end;
  int broken;
} reader;

static uint64_t take_be(reader *r, int bytes) {
  uint64_t v = 0;
  if (r->end - r->at < bytes) { r->broken = 1; return 0; }
  for (int i = 0; i < bytes; i++) v = (v << 8) | *r->at++;
  return v;
}

static void read_value(reader *r, value *out, int depth);

static void read_items(reader *r, value *out, kind k, size_t n, int depth) {
  out->kind = k;
  out->length = n;
  size_t count = k == MAP ? 2 * n : n;
  if (count > (size_t)(r->end - r->at)) { r->broken = 1; out->length = 0; return; }
  out->items = count ? calloc(count, sizeof(value)) : NULL;
  for (size_t i = 0; i < count && !r->broken; i++) read_value(r, &out->items[i], depth + 1);
}

static void read_bytes(reader *r, value *out, kind k, size_t n) {
  out->kind = k;
  if ((size_t)(r->end - r->at) < n) { r->broken = 1; return; }
  out->text = (const char *)r->at;
  out->length = n;
  r->at += n;
}

static void read_value(reader *r, value *out, int depth) {
  memset(out, 0, sizeof *out);
  if (depth > 64 || r->at >= r->end) { r->broken = 1; return; }
  unsigned char c = *r->at++;
  if (c <= 0x7f) { out->kind = INT; out->integer = c; }
  else if (c >= 0xe0) { out->kind = INT; out->integer = (int8_t)c; }
  else if ((c & 0xf0) == 0x80) read_items(r, out, MAP, c & 0x0f, depth);
  else if ((c & 0xf0) == 0x90) read_items(r, out, ARRAY, c & 0x0f, depth);
  else if ((c & 0xe0) == 0xa0) read_bytes(r, out, STR, c & 0x1f);
  else switch (c) {
    case 0xc0: out->kind = NIL; break;
    case 0xc2: case 0xc3: out->kind = BOOL; out->integer = c == 0xc3; break;
    case 0xc4: read_bytes(r, out, BIN, take_be(r, 1)); break;
    case 0xc5: read_bytes(r, out, BIN, take_be(r, 2)); break;
    case 0xc6: read_bytes(r, out, BIN, take_be(r, 4)); break;
    case 0xca: { uint32_t bits = (uint32_t)take_be(r, 4); float f; memcpy(&f, &bits, 4);
                 out->kind = FLOAT; out->number = f; break; }
    case 0xcb: { uint64_t bits = take_be(r, 8); out->kind = FLOAT; memcpy(&out->number, &bits, 8);
                 break; }
    case 0xcc: out->kind = INT; out->integer = (int64_t)take_be(r, 1); break;
    case 0xcd: out->kind = INT; out->integer = (int64_t)take_be(r, 2); break;
    case 0xce: out->kind = INT; out->integer = (int64_t)take_be(r, 4); break;
    case 0xcf: out->kind = INT; out->integer = (int64_t)take_be(r, 8); break;
    case 0xd0: out->kind = INT; out->integer = (int8_t)take_be(r, 1); break;
    case 0xd1: out->kind = INT; out->integer = (int16_t)take_be(r, 2); break;
    case 0xd2: out->kind = INT; out->integer = (int32_t)take_be(r, 4); break;
    case 0xd3: out->kind = INT; out->integer = (int64_t)take_be(r, 8); break;
    case 0xd9: read_bytes(r, out, STR, take_be(r, 1)); break;
    case 0xda: read_bytes(r, out, STR, take_be(r, 2)); break;
    case 0xdb: read_bytes(r, out, STR, take_be(r, 4)); break;
    case 0xdc: read_items(r, out, ARRAY, take_be(r, 2), depth); break;
    case 0xdd: read_items(r, out, ARRAY, take_be(r, 4), depth); break;
    case 0xde: read_items(r, out, MAP, take_be(r, 2), depth); break;
    case 0xdf: read_items(r, out, MAP, take_be(r, 4), depth); break;
    default: r->broken = 1; /* ext types: the protocol never sends them */
  }
}

static void free_value(value *v) {
  if (v->kind == ARRAY || v->kind == MAP) {
    size_t count = v->kind == MAP ? 2 * v->length : v->length;
    for (size_t i = 0; i < count; i++) free_value(&v->items[i]);
    free(v->items);
  }
}

static int is_text(const value *v, const char *s) {
  return v && v->kind == STR && v->length == strlen(s) && memcmp(v->text, s, v->length) == 0;
}

static const value *field(const value *map, const char *key) {
  if (map->kind != MAP) return NULL;
  for (size_t i = 0; i < map->length; i++)
    if (is_text(&map->items[2 * i], key)) return &map->items[2 * i + 1];
  return NULL;
}

static char *copy_text(const value *v) {
  if (!v || v->kind != STR) return strdup("");
  char *s = malloc(v->length + 1);
  memcpy(s, v->text, v->length);
  s[v->length] = 0;
  return s;
}

/* -- the connection ---------------------------------------------------------------------- */

static int sock = -1;

static void send_frame(buffer *body) {
  unsigned char header[4] = {body->used >> 24, body->used >> 16, body->used >> 8, body->used};
  if (write(sock, header, 4) != 4 || write(sock, body->data, body->used) != (ssize_t)body->used) {
    fprintf(stderr, "connection failed while sending\n");
    exit(1);
  }
  body->used = 0;
}

static int read_exactly(unsigned char *into, size_t n) {
  while (n) {
    ssize_t got = read(sock, into, n);
    if (got <= 0) return 0;
    into += got;
    n -= (size_t)got;
  }
  return 1;
}

static int connect_to(const char *address) {
  char host[256];
  const char *colon = strrchr(address, ':');
  if (!colon || (size_t)(colon - address) >= sizeof host) return -1;
  memcpy(host, address, (size_t)(colon - address));
  host[colon - address] = 0;
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *found;
  if (getaddrinfo(host, colon + 1, &hints, &found) != 0) return -1;
  int fd = -1;
  for (struct addrinfo *a = found; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) { close(fd); fd = -1; }
  }
  freeaddrinfo(found);
  return fd;
}

/* -- the player -------------------------------------------------------------------------- */

static const char *game, *name, *tournament;
static double seconds;
static int64_t my_match = -1;
static buffer out;

static void seek(void) {
  put_map(&out, 4);
  put_str(&out, "type"); put_str(&out, "seek");
  put_str(&out, "game"); put_str(&out, game);
  put_str(&out, "time"); put_map(&out, 1); put_str(&out, "move"); put_float(&out, seconds);
  put_str(&out, "hints"); put_byte(&out, 0xc3);
  send_frame(&out);
}

/* The next step after a game (or at the start): in a tournament, ask whether a game is left. */
static void next(void) {
  if (!tournament) { seek(); return; }
  put_map(&out, 2);
  put_str(&out, "type"); put_str(&out, "tournament_status");
  put_str(&out, "tournament"); put_str(&out, tournament);
  send_frame(&out);
}

/* True while the tournament lists a game of ours not yet finished. */
static int games_left(const value *status) {
  const value *games = field(status, "games");
  if (!games || games->kind != ARRAY) return 0;
  for (size_t i = 0; i < games->length; i++) {
    const value *g = &games->items[i];
    if ((is_text(field(g, "first"), name) || is_text(field(g, "second"), name)) &&
        !is_text(field(g, "status"), "finished"))
      return 1;
  }
  return 0;
}

#define DONE 100 /* handle's answer when the client has nothing left to play */

/* Handle one message: 0 to go on, DONE, or 1 for a refusal that ends the client. */
static int handle(const value *m) {
  const value *type = field(m, "type");
  if (is_text(type, "welcome")) {
    printf("connected (protocol %lld); seeking %s\n", (long long)field(m, "version")->integer, game);
    next();
  } else if (is_text(type, "tournament")) {
    if (!games_left(m)) {
      printf("no game of mine is left in the tournament\n");
      return DONE;
    }
    seek();
  } else if (is_text(type, "seek_cancelled")) {
    next();
  } else if (is_text(type, "match_started")) {
    my_match = field(m, "match")->integer;
    printf("match %lld started\n", (long long)my_match);
  } else if (is_text(type, "your_turn")) {
    const value *legal = field(m, "legal");
    int64_t match = field(m, "match")->integer;
    if (!legal || legal->kind != ARRAY || legal->length == 0) {
      /* no hints: this client has no rules of its own, so it gives up */
      put_map(&out, 2);
      put_str(&out, "type"); put_str(&out, "resign");
      put_str(&out, "match"); put_int(&out, match);
    } else {
      char *move = copy_text(&legal->items[(size_t)rand() % legal->length]);
      put_map(&out, 3);
      put_str(&out, "type"); put_str(&out, "move");
      put_str(&out, "match"); put_int(&out, match);
      put_str(&out, "move"); put_str(&out, move);
      free(move);
    }
    send_frame(&out);
  } else if (is_text(type, "ping")) {
    put_map(&out, 2);
    put_str(&out, "type"); put_str(&out, "pong");
    put_str(&out, "nonce"); put_int(&out, field(m, "nonce")->integer);
    send_frame(&out);
  } else if (is_text(type, "game_over")) {
    if (field(m, "match")->integer != my_match) return 0;
    char *result = copy_text(field(m, "result")), *reason = copy_text(field(m, "reason"));
    char *termination = copy_text(field(m, "termination"));
    printf("game over after %zu moves: %s (%s) [%s]\n", field(m, "moves")->length, result, reason,
           termination);
    free(result); free(reason); free(termination);
    if (!tournament) return DONE;
    next();
  } else if (is_text(type, "error")) {
    char *code = copy_text(field(m, "code")), *text = copy_text(field(m, "message"));
    fprintf(stderr, "server error %s: %s\n", code, text);
    int fatal = strcmp(code, "game_over") != 0;
    free(code); free(text);
    if (fatal) return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *env_server = getenv("ARBITER_SERVER"), *env_game = getenv("ARBITER_GAME");
  const char *env_name = getenv("ARBITER_NAME"), *token = getenv("ARBITER_TOKEN");
  const char *address = argc > 1 ? argv[1] : env_server ? env_server : "127.0.0.1:7777";
  game = argc > 2 ? argv[2] : env_game ? env_game : "kings-court";
  name = argc > 3 ? argv[3] : env_name ? env_name : "c-random";
  seconds = argc > 4 ? atof(argv[4]) : 10.0;
  tournament = getenv("ARBITER_TOURNAMENT");
  if (tournament && !*tournament) tournament = NULL;
  srand((unsigned)time(NULL) ^ (unsigned)getpid());
  setvbuf(stdout, NULL, _IOLBF, 0);

  sock = connect_to(address);
  if (sock < 0) { fprintf(stderr, "connection failed: cannot reach %s\n", address); return 1; }
  int with_token = token && *token;
  put_map(&out, with_token ? 4 : 3);
  put_str(&out, "type"); put_str(&out, "hello");
  put_str(&out, "version"); put_int(&out, 2);
  put_str(&out, "name"); put_str(&out, name);
  if (with_token) { put_str(&out, "token"); put_str(&out, token); }
  send_frame(&out);

  unsigned char header[4];
  while (read_exactly(header, 4)) {
    uint32_t size = (uint32_t)header[0] << 24 | header[1] << 16 | header[2] << 8 | header[3];
    if (size > MAX_FRAME) { fprintf(stderr, "frame of %u bytes is over our limit\n", size); return 1; }
    unsigned char *body = malloc(size ? size : 1);
    if (!read_exactly(body, size)) { free(body); break; }
    reader r = {body, body + size, 0};
    value message;
    read_value(&r, &message, 0);
    int status = r.broken || message.kind != MAP ? (fprintf(stderr, "a frame that is no map\n"), 1)
                                                 : handle(&message);
    free_value(&message);
    free(body);
    if (status) { close(sock); return status == DONE ? 0 : status; }
  }
  fprintf(stderr, "the connection ended before the game did\n");
  return 1;
}
