// /play/{slug}: a stored session played through the session API. Keys come from the
// game's controls (the terminal's table); commands queue and go out one request at a
// time, because each answer carries the agent-check puzzle the next request answers.
import { registerPlayer, Session } from "./api.js";
import { seconds } from "./boards/chimestep.js";
import { cellName } from "./boards/gemswap.js";
import { painter } from "./boards/index.js";
import { $, addMessage, messagesOf, showProblem, showView } from "./ui.js";
import { commandText, eventText, keyText, refusalText } from "./words.js";

const slug = document.querySelector("main").dataset.slug;
const controls = JSON.parse($("controls").textContent);
const MAX_BATCH = 100;
const MAX_TICKS = 30;
const PROMPT = "...";
const BROWSER_KEYS = {
  ArrowUp: "KEY_UP",
  ArrowDown: "KEY_DOWN",
  ArrowLeft: "KEY_LEFT",
  ArrowRight: "KEY_RIGHT",
  Home: "KEY_HOME",
  End: "KEY_END",
  PageUp: "KEY_PPAGE",
  PageDown: "KEY_NPAGE",
  Enter: "\n",
};
const STORE = `playbench:${slug}:token`;
const NAME = "playbench:player";
const KEY = "playbench:player-key";

const parts = { board: $("board"), score: $("score"), status: $("status"), fields: $("fields") };
const messages = $("messages");
const commandBox = $("command");
let session = null;
let queue = [];
let busy = false;
let previousBoard = null;
let hintCells = null;
let pendingKeys = "";
// a command sent while the game's clock counts down to play (Chimestep's stage intro):
// held, and sent the moment play begins
let held = null;

const seedParam = new URLSearchParams(location.search).get("seed");

function canTick() {
  return session && !session.view.gameOver && session.view.commands.some((c) => c === "tick" || c.startsWith("tick "));
}

function render(view, drawn = {}) {
  const drawOptions = {};
  if (slug === "gem-swap") {
    drawOptions.previous = drawn.animate ? previousBoard : null;
    drawOptions.onCell = (name) => enqueue(`select ${name}`);
    drawOptions.hint = hintCells;
    previousBoard = view.observation.board;
  }
  showView(slug, view, { ...parts, drawOptions });
  if (slug === "cogcrawl") $("say-panel").hidden = false;
  for (const button of $("buttons").querySelectorAll("button")) button.disabled = view.gameOver;
  $("command").disabled = view.gameOver;
  if (held && !countdown(view)) {
    const command = held;
    held = null;
    enqueue(command);
  }
  const over = view.gameOver && !view.finished;
  $("finish-panel").hidden = !(view.gameOver || view.finished);
  $("finish-form").hidden = !over;
  const who = view.player ? ` as ${view.player}` : "";
  const kind = view.ranked ? `Ranked game${who}: the seed stays hidden until you finish.` : `Practice on seed ${view.seed}${who}: not ranked.`;
  $("session-note").innerHTML = "";
  $("session-note").append(`${kind} Spectators: `);
  const link = document.createElement("a");
  link.href = `/watch/${view.sessionId}`;
  link.textContent = `/watch/${view.sessionId}`;
  link.id = "watch-link";
  $("session-note").append(link);
  parts.board.dataset.session = view.sessionId;
}

const GOOD = new Set(["levelClear", "stageClear", "won", "exitOpen"]);

function report(answer, sent) {
  for (const result of answer.results) {
    if (!result.ok) addMessage(messages, `Not done (${commandText(result.command)}): ${refusalText(result.reason)}.`, "refused");
    for (const event of result.events) {
      if (event.type === "say") $("say").textContent = event.text || "…";
      if (event.type === "hint" && typeof event.swap === "string") hintCells = hintOf(event.swap);
      let text = eventText(slug, event);
      if (event.type === "moves" && slug === "gem-swap") {
        const swaps = answer.commands.filter((c) => c.startsWith("swap ")).map((c) => c.slice(5));
        if (swaps.length) text += ` ${swaps.join(", ")}.`;
      }
      if (text) addMessage(messages, text, GOOD.has(event.type) ? "good" : "event");
    }
  }
  const skipped = sent.length - answer.results.length;
  if (skipped > 0) addMessage(messages, `${skipped} more key press(es) dropped after that.`, "refused");
  for (const line of messagesOf(answer.observation)) addMessage(messages, line, "event");
}

// "swap D6 down" -> the two cells it names.
function hintOf(text) {
  const found = /swap ([A-H])(\d) (up|down|left|right)/i.exec(text);
  if (!found) return null;
  const c = "ABCDEFGH".indexOf(found[1].toUpperCase());
  const r = Number(found[2]) - 1;
  const [dr, dc] = { up: [-1, 0], down: [1, 0], left: [0, -1], right: [0, 1] }[found[3].toLowerCase()];
  return [cellName(r, c), cellName(r + dr, c + dc)];
}

// The ticks until play while the clock counts down a phase in which the game acts on
// nothing but ticks (0: none).
function countdown(view) {
  const ticks = view.observation && view.observation.phaseTicks;
  return controls.idle && ticks > 0 && !view.gameOver ? ticks : 0;
}

// Whether the game acts on the command now; while a phase counts down, one it would not
// act on is held (the last such wins) and the page says how long until play.
function actsNow(command) {
  const waiting = countdown(session.view);
  const verb = command.split(" ")[0];
  if (!waiting || verb === "tick" || session.view.commands.some((c) => c.split(" ")[0] === verb)) return true;
  held = command;
  addMessage(messages, `Wait ${seconds(waiting)}: play has not started yet. Your ${commandText(command)} goes the moment it does.`, "info");
  return false;
}

function enqueue(command) {
  if (!session) return;
  const last = queue[queue.length - 1];
  if (command === "tick" && last && /^tick( \d+)?$/.test(last)) {
    const count = Number(last.split(" ")[1] || 1);
    if (count < MAX_TICKS) {
      queue[queue.length - 1] = `tick ${count + 1}`;
      pump();
      return;
    }
  }
  queue.push(command);
  pump();
}

async function pump() {
  if (busy || !session) return;
  queue = queue.filter(actsNow);
  if (queue.length === 0) return;
  busy = true;
  const batch = queue.splice(0, MAX_BATCH);
  try {
    const before = session.view.observation.movesMade;
    const answer = await session.act(batch);
    if (answer.observation.movesMade !== before) hintCells = null;
    report(answer, batch);
    render(answer, { animate: true });
    showProblem("");
    if (answer.gameOver) queue = [];
  } catch (error) {
    addMessage(messages, `refused: ${error.message}`, "refused");
    showProblem(error.message);
    if (error.status === 409) await resync();
  } finally {
    busy = false;
    if (queue.length) pump();
  }
}

async function resync() {
  try {
    session = await Session.resume(slug, session.token);
    render(session.view);
  } catch (error) {
    showProblem(error.message);
  }
}

function keyName(event) {
  return BROWSER_KEYS[event.key] || event.key;
}

function runControl(command) {
  if (command.endsWith(PROMPT)) {
    const start = command.slice(0, -PROMPT.length);
    if (start === "" && slug === "cogcrawl") {
      $("raw").focus();
      return;
    }
    commandBox.value = start;
    commandBox.focus();
    return;
  }
  enqueue(command);
}

document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, textarea, select") || event.ctrlKey || event.metaKey || event.altKey) return;
  const key = keyName(event);
  const sequence = pendingKeys + key;
  if (controls.keys[sequence] !== undefined) {
    pendingKeys = "";
    event.preventDefault();
    runControl(controls.keys[sequence]);
    return;
  }
  if (Object.keys(controls.keys).some((k) => k.length > sequence.length && k.startsWith(sequence))) {
    pendingKeys = sequence;
    event.preventDefault();
    return;
  }
  pendingKeys = "";
  if (controls.keys[key] !== undefined) {
    event.preventDefault();
    runControl(controls.keys[key]);
  }
});

$("command-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = commandBox.value.trim();
  if (!text) return;
  enqueue(text);
  commandBox.value = "";
});

$("raw-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("raw").value.trim();
  if (!text.startsWith("{")) {
    showProblem("a seat reply is a JSON object: it starts with {");
    return;
  }
  enqueue(text);
});

$("finish-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("finish-send").disabled = true;
  try {
    const done = await session.finish(Number($("rating").value), $("review").value);
    const box = $("finished");
    box.hidden = false;
    box.replaceChildren();
    const rank = document.createElement("p");
    rank.className = "rank";
    rank.id = "rank";
    rank.textContent = done.rank === null ? `Finished with ${done.score}: practice, not ranked.` : `Finished with ${done.score}: rank #${done.rank}.`;
    const links = document.createElement("p");
    links.innerHTML = `<a class="button" href="/leaderboard/${slug}">Leaderboard</a> <a class="button" href="/replay/${done.sessionId}">Replay</a>`;
    box.append(rank, links);
    $("finish-form").hidden = true;
    session.view = { ...session.view, finished: true, seed: done.seed };
    sessionStorage.removeItem(STORE);
  } catch (error) {
    showProblem(error.message);
  } finally {
    $("finish-send").disabled = false;
  }
});

function keep(name, key) {
  for (const [item, value] of [[NAME, name], [KEY, key]]) {
    if (value) localStorage.setItem(item, value);
    else localStorage.removeItem(item);
  }
}

$("player-form").addEventListener("submit", (event) => {
  event.preventDefault();
  keep($("player").value.trim(), $("player-key").value.trim());
  start(true);
});

$("player-register").addEventListener("click", async () => {
  const name = $("player").value.trim();
  if (!name) {
    showProblem("type the name to register first");
    return;
  }
  try {
    const made = await registerPlayer(name);
    $("player").value = made.name;
    $("player-key").value = made.key;
    keep(made.name, made.key);
    $("player-note").textContent = `Registered ${made.name}. Its key, kept in this browser (copy it to play elsewhere): ${made.key}`;
    start(true);
  } catch (error) {
    showProblem(error.message);
  }
});

function buttons() {
  const host = $("buttons");
  const add = (label, command, title) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = label;
    button.dataset.command = command;
    if (title) button.title = title;
    button.addEventListener("click", () => runControl(command));
    host.append(button);
  };
  if (slug === "delvewick") add("Wait", "wait", "let the world move (space)");
  if (slug === "chimestep") {
    add("Start", "start", "space or s");
    add("Toll", "toll", "t: the bell scatters the Hush around the chick");
  }
  if (slug === "gem-swap") {
    add("Hint (−50)", "hint", "h: shows a good swap for 50 points");
    add("Moves", "moves", "m: lists the swaps that make a line");
    add("Deselect", "deselect", "d");
  }
  if (slug === "cogcrawl") {
    add("Search", "search", "s");
    add("Pick up", "pickup", ",");
    add("Down >", "down", ">");
    add("Wait", "wait", ".");
    $("raw-form").hidden = false;
  }
  // one entry per command; a two-key sequence (K then a direction) shows once per verb
  const byCommand = new Map();
  const sequences = new Map();
  for (const [key, command] of Object.entries(controls.keys)) {
    if (key.length > 1 && !key.startsWith("KEY_")) {
      sequences.set(`${key[0]}|${command.split(" ")[0]}`, [key[0], command.split(" ")[0]]);
      continue;
    }
    byCommand.set(command, [...(byCommand.get(command) || []), keyText(key)]);
  }
  const kbd = (labels) => labels.map((label) => `<kbd>${escapeHtml(label)}</kbd>`).join(" ");
  const keys = [
    ...[...byCommand].map(([command, labels]) => `${kbd(labels)} ${escapeHtml(command === PROMPT && slug === "cogcrawl" ? "type a seat reply (raw JSON)" : commandText(command, PROMPT))}`),
    ...[...sequences.values()].map(([first, verb]) => `${kbd([first])} then a direction key: ${escapeHtml(verb)}`),
  ]
    .map((entry) => `<span class="key">${entry}</span>`)
    .join("");
  $("keys").innerHTML = keys;
}

function escapeHtml(text) {
  return text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

async function start(fresh) {
  queue = [];
  held = null;
  hintCells = null;
  previousBoard = null;
  messages.replaceChildren();
  $("finished").hidden = true;
  try {
    const token = sessionStorage.getItem(STORE);
    if (!fresh && token && seedParam === null) {
      try {
        session = await Session.resume(slug, token, localStorage.getItem(KEY));
      } catch {
        session = null;
      }
      if (session && session.view.finished) session = null;
    }
    if (!session || fresh) {
      const player = localStorage.getItem(NAME) || undefined;
      const key = localStorage.getItem(KEY) || undefined;
      const seed = seedParam === null ? undefined : Number(seedParam);
      session = await Session.create(slug, { seed, player, key });
      sessionStorage.setItem(STORE, session.token);
    }
    for (const line of messagesOf(session.view.observation)) addMessage(messages, line, "event");
    render(session.view);
    showProblem("");
    parts.board.focus();
  } catch (error) {
    showProblem(`could not start a game: ${error.message}`);
  }
}

function guide() {
  const paint = painter(slug);
  if (paint.guide) {
    $("guide").textContent = paint.guide;
    $("guide").hidden = false;
  }
  if (paint.legend) {
    paint.legend($("legend"));
    $("legend-panel").hidden = false;
  }
}

$("player").value = localStorage.getItem(NAME) || "";
$("player-key").value = localStorage.getItem(KEY) || "";
buttons();
guide();
start(false);
if (controls.idle) {
  const [seconds, command] = controls.idle;
  setInterval(() => {
    if (canTick() && document.visibilityState === "visible") enqueue(command);
  }, seconds * 1000);
}
