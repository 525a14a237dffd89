// The public APIs the pages speak: the session API (with its agent check), the
// stateless API (for replays), the spectator API and its push feed.

export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

// Seeds go up to 2^63-1, past JavaScript's exact integers (2^53): a page holds a seed as
// its decimal text, sends it as the JSON number those digits spell, and reads a seed
// that a number would round as its text.
const SEED_KEYS = new Set(["seed"]);

function seedNumber(seed) {
  const text = String(seed);
  return JSON.rawJSON && /^\d+$/.test(text) ? JSON.rawJSON(text) : Number(text);
}

function exactSeeds(key, value, context) {
  if (SEED_KEYS.has(key) && typeof value === "number" && !Number.isSafeInteger(value) && context && context.source) {
    return context.source;
  }
  return value;
}

async function request(method, url, body, headers = {}) {
  const init = { method, headers: { Accept: "application/json", ...headers } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    const sent = body.seed === undefined ? body : { ...body, seed: seedNumber(body.seed) };
    init.body = JSON.stringify(sent);
  }
  const reply = await fetch(url, init);
  const text = await reply.text();
  let data = null;
  try {
    data = text ? JSON.parse(text, exactSeeds) : null;
  } catch {
    data = { error: text };
  }
  if (!reply.ok) {
    const message = (data && data.error) || `${method} ${url} answered ${reply.status}`;
    throw new ApiError(reply.status, message, data);
  }
  return data;
}

export const getJson = (url) => request("GET", url);
export const postJson = (url, body) => request("POST", url, body);

// The agent check asks "What is a + b * c?"; the page answers it like any client.
const QUESTION = /What is (-?\d+) \+ (-?\d+) \* (-?\d+)\?/;

export function solvePuzzle(puzzle) {
  const found = QUESTION.exec(puzzle.question);
  if (!found) throw new Error(`cannot read the agent check: ${puzzle.question}`);
  const [a, b, c] = found.slice(1).map(Number);
  return a + b * c;
}

// One stored session, played through /games/{slug}/api. Commands go out one request at
// a time, because each answer carries the puzzle the next request must answer.
// A session under a player's name sends the name's key (X-Player-Key) with new, act and
// finish; without a name it is anonymous.
export class Session {
  constructor(slug, token, view, key) {
    this.slug = slug;
    this.token = token;
    this.view = view;
    this.key = key || null;
    this.puzzle = view.agentCheck;
  }

  // Ranked only when asked: { ranked: true } and no seed; otherwise practice, on the seed
  // given (decimal text or a number) or on one the server draws.
  static async create(slug, { seed, options, player, key, ranked = false } = {}) {
    const body = { ranked };
    if (!ranked && seed !== undefined && seed !== null) body.seed = seed;
    if (!ranked && options && Object.keys(options).length) body.options = options;
    if (player) body.player = player;
    const view = await request("POST", `/games/${slug}/api/new`, body, player && key ? { "X-Player-Key": key } : {});
    return new Session(slug, view.token, view, player ? key : null);
  }

  static async resume(slug, token, key) {
    const view = await request("GET", `/games/${slug}/api/state`, undefined, {
      Authorization: `Bearer ${token}`,
    });
    return new Session(slug, token, view, view.player ? key : null);
  }

  headers() {
    const headers = { Authorization: `Bearer ${this.token}` };
    if (this.key) headers["X-Player-Key"] = this.key;
    if (this.puzzle) {
      headers["X-Agent-Check"] = this.puzzle.token;
      headers["X-Agent-Answer"] = String(solvePuzzle(this.puzzle));
    }
    return headers;
  }

  // A refused agent check (a puzzle that expired while a person was thinking) is
  // answered once more with the fresh puzzle the refusal carries.
  async send(path, body, retry = true) {
    try {
      const answer = await request("POST", `/games/${this.slug}/api/${path}`, body, this.headers());
      this.puzzle = answer.agentCheck;
      return answer;
    } catch (error) {
      if (error.body && error.body.agentCheck) this.puzzle = error.body.agentCheck;
      if (retry && error.status === 403 && error.body && error.body.agentCheck) {
        return this.send(path, body, false);
      }
      throw error;
    }
  }

  async act(commands) {
    const answer = await this.send("act", { commands });
    this.view = answer;
    return answer;
  }

  finish(rating, review) {
    return this.send("finish", { rating, review });
  }
}

// Register a player name: its key comes back once.
export const registerPlayer = (name) => postJson("/api/players", { name });

// The stateless API: a sealed state carried forward, one action at a time.
export async function statelessInit(slug, seed, options) {
  const body = { seed };
  if (options && Object.keys(options).length) body.options = options;
  return postJson(`/api/games/${slug}/init`, body);
}

export function statelessAction(slug, state, action) {
  return postJson(`/api/games/${slug}/action`, { state, action });
}

export const spectate = {
  record: (id) => getJson(`/api/spectate/sessions/${id}`),
  replay: (id) => getJson(`/api/spectate/sessions/${id}/replay`),
  live: (slug) => getJson(`/api/spectate/live${slug ? `?slug=${encodeURIComponent(slug)}` : ""}`),
  // Server-sent events: onState(record) for each push; the server ends the stream with
  // an `end` event once the session is finished.
  stream(id, onState, onEnd) {
    const source = new EventSource(`/api/spectate/sessions/${id}/stream`);
    source.addEventListener("state", (event) => onState(JSON.parse(event.data)));
    source.addEventListener("end", () => {
      source.close();
      if (onEnd) onEnd();
    });
    return source;
  },
};

export async function games() {
  return (await getJson("/api/games")).games;
}
