// /play/{slug}: a stored session played through the session API. Keys, the on-screen
// pad, board taps and swipes and the panels all come from the game's controls (the
// terminal's table); commands queue and go out one request at a time, because each
// answer carries the agent-check puzzle the next request answers.
//
// Opening the page never starts a ranked game: it resumes the open ranked game this
// browser holds (its token is in localStorage, so every tab finds it), else this tab's
// practice game, else it starts a practice game. A ranked game starts only when asked,
// after a warning when it would close an open one.
import { registerPlayer, Session } from "./api.js";
import { seconds } from "./boards/chimestep.js";
import { painter } from "./boards/index.js";
import { touchScreen } from "./touch.js";
import { $, addMessage, messagesOf, showProblem, showView } from "./ui.js";
import { commandText, eventText, keyText, refusalText, spaced } from "./words.js";

const slug = document.querySelector("main").dataset.slug;
// false where the seed changes nothing (Delvewick's fixed levels): no seed is offered
const seeded = document.querySelector("main").dataset.seeded !== "false";
const controls = JSON.parse($("controls").textContent);
const MAX_BATCH = 100;
const MAX_TICKS = 30;
const PROMPT = "...";
const SWIPE_PIXELS = 24;
const PRACTICE_SEEDS = 2 ** 31;
// the largest seed the games take (2^63-1), as text: seeds pass JavaScript's exact integers
const MAX_SEED = "9223372036854775807";
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
// this tab's practice game
const PRACTICE = `playbench:${slug}:token`;
// the open ranked game, shared by every tab of this browser
const RANKED = `playbench:${slug}:ranked`;
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
// the open panel's key, and the prompt command it finishes (a pick), if any
let openPanel = null;
let picking = null;
// the last thing the game said, for the game-over overlay
let lastWords = "";
// a command sent while the game's clock counts down to play (Chimestep's stage intro):
// held, and sent the moment play begins
let held = null;

const params = new URLSearchParams(location.search);
const seedParam = params.get("seed");
// an episode of a suite played by a person (/bench/play/{suite}): its options, and where
// its finished session is recorded
const optionsParam = params.get("options");
const suiteEpisode = params.get("suite") && params.get("hash") && params.get("episode") !== null
  ? { store: `playbench:suite:${params.get("suite")}:${params.get("hash")}`, suite: params.get("suite"), episode: params.get("episode") }
  : null;

function canTick() {
  return session && !session.view.gameOver && session.view.commands.some((c) => c === "tick" || c.startsWith("tick "));
}

function isRanked(view) {
  return view.ranked && !view.finished && !view.abandoned;
}

function render(view, drawn = {}) {
  const drawOptions = { previous: drawn.animate ? previousBoard : null, hint: hintCells };
  if (controls.tap) drawOptions.onCell = (name) => enqueue(controls.tap.replace("{cell}", name));
  previousBoard = view.observation.board;
  showView(slug, view, { ...parts, drawOptions });
  const closed = view.gameOver || view.finished || view.abandoned;
  for (const button of document.querySelectorAll("#pad button, #panel-lines button")) button.disabled = closed;
  $("command").disabled = closed;
  if (held && !countdown(view)) {
    const command = held;
    held = null;
    enqueue(command);
  }
  if (openPanel) fillPanel();
  showOver(view);
  showMode(view);
  parts.board.dataset.session = view.sessionId;
  fitBoard();
}

// On a phone the score bar, the board and the pad share one screen: the board is drawn no
// taller than the room the page leaves it above the pad (arena.css reads --board-max).
const PHONE = matchMedia("(max-width: 640px)");
const BOARD_FLOOR = 120;

function fitBoard() {
  const board = parts.board;
  if (!PHONE.matches) {
    board.style.removeProperty("--board-max");
    return;
  }
  const box = board.getBoundingClientRect();
  const pad = $("pad");
  const below = pad.hidden ? 0 : pad.getBoundingClientRect().bottom - box.bottom;
  const room = innerHeight - (box.top + scrollY) - below - 8;
  board.style.setProperty("--board-max", `${Math.max(BOARD_FLOOR, Math.floor(room))}px`);
}
window.addEventListener("resize", fitBoard);

function showOver(view) {
  const over = $("over");
  const wasHidden = over.hidden;
  over.hidden = !(view.gameOver || view.abandoned);
  over.parentElement.classList.toggle("over", !over.hidden);
  if (over.hidden) return;
  const word = spaced(painter(slug).state(view.observation) || "over");
  $("over-title").textContent = view.abandoned ? "Closed as abandoned" : ["won", "lost"].includes(word) ? `Game over: ${word}` : "Game over";
  $("over-reason").textContent = view.abandoned ? "This ranked game was closed unfinished; it counts at its score." : lastWords || `The game is ${word}.`;
  $("over-score").textContent = String(view.score);
  const open = view.gameOver && !view.finished && !view.abandoned;
  $("finish-form").hidden = !open;
  $("finish-send").textContent = view.ranked ? "Finish and rank" : "Finish";
  $("over-next").textContent = !open
    ? "Next: another game."
    : view.ranked
      ? "Next: rate it and finish, so it stands on the leaderboard with your review (unfinished, it counts as abandoned at this score)."
      : `Next: finish to see ${seeded ? "the seed and " : ""}the replay. Practice never reaches the leaderboard.`;
  if (wasHidden) over.querySelector(".overlay-card").scrollIntoView({ block: "nearest" });
}

function showMode(view) {
  const who = view.player ? ` as ${view.player}` : "";
  const note = isRanked(view)
    ? `Ranked game${who}: it counts on the leaderboard, finished or not; the seed stays hidden until you finish.`
    : view.ranked
      ? `Ranked game${who}, ${view.finished ? "finished" : "closed as abandoned"}.`
      : `Practice${seeded ? ` on seed ${view.seed}` : ""}${who}: not ranked, never on the leaderboard.`;
  $("mode-note").textContent = note;
  $("mode-bar").dataset.mode = view.ranked ? "ranked" : "practice";
  const stored = localStorage.getItem(RANKED);
  $("resume-ranked").hidden = !stored || stored === session.token;
  $("session-note").replaceChildren(`${note} Spectators: `);
  const link = document.createElement("a");
  link.href = `/watch/${view.sessionId}`;
  link.textContent = `/watch/${view.sessionId}`;
  link.id = "watch-link";
  $("session-note").append(link);
}

const GOOD = new Set(["levelClear", "stageClear", "won", "exitOpen"]);

function report(answer, sent) {
  for (const result of answer.results) {
    if (!result.ok) addMessage(messages, `Not done (${commandText(result.command)}): ${refusalText(result.reason)}.`, "refused");
    for (const event of result.events) {
      if (event.type === "say") $("say").textContent = event.text || "…";
      if (event.type === "hint" && typeof event.swap === "string") hintCells = hintOf(event.swap);
      let text = eventText(slug, event);
      if (event.type === "moves") {
        const swaps = answer.commands.filter((c) => c.startsWith("swap ")).map((c) => c.slice(5));
        if (swaps.length) text += ` ${swaps.join(", ")}.`;
      }
      if (text) {
        addMessage(messages, text, GOOD.has(event.type) ? "good" : "event");
        lastWords = text;
      }
    }
  }
  const skipped = sent.length - answer.results.length;
  if (skipped > 0) addMessage(messages, `${skipped} more key press(es) dropped after that.`, "refused");
  for (const line of messagesOf(answer.observation)) {
    addMessage(messages, line, "event");
    lastWords = line;
  }
}

// "swap D6 down" -> the two cells it names.
function hintOf(text) {
  const found = /swap ([A-H])(\d) (up|down|left|right)/i.exec(text);
  if (!found) return null;
  const c = "ABCDEFGH".indexOf(found[1].toUpperCase());
  const r = Number(found[2]) - 1;
  const [dr, dc] = { up: [-1, 0], down: [1, 0], left: [0, -1], right: [0, 1] }[found[3].toLowerCase()];
  return [`${"ABCDEFGH"[c]}${r + 1}`, `${"ABCDEFGH"[c + dc]}${r + dr + 1}`];
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
    session = await Session.resume(slug, session.token, localStorage.getItem(KEY));
    if (session.view.ranked && (session.view.finished || session.view.abandoned)) forgetRanked(session.token);
    render(session.view);
  } catch (error) {
    showProblem(error.message);
  }
}

function forgetRanked(token) {
  if (localStorage.getItem(RANKED) === token) localStorage.removeItem(RANKED);
}

// -- keys, pad, panels, board gestures ----------------------------------------------
function pickPanel() {
  return Object.keys(controls.panels).find((key) => controls.panels[key].pick);
}

function runControl(command) {
  if (command.endsWith(PROMPT)) {
    const start = command.slice(0, -PROMPT.length);
    if (start === "" && controls.seatReply) {
      $("raw-form").open = true;
      $("raw").focus();
      return;
    }
    const panel = start === "" ? undefined : pickPanel();
    commandBox.value = start;
    if (panel) {
      picking = start;
      showPanel(panel);
      return;
    }
    commandBox.focus();
    return;
  }
  enqueue(command);
}

// A key of the game's table (or a panel's), pressed on the keyboard or on the pad.
function press(key) {
  if (controls.panels[key] !== undefined) {
    if (openPanel === key && !picking) hidePanel();
    else {
      picking = null;
      showPanel(key);
    }
    return;
  }
  if (controls.keys[key] !== undefined) {
    if (openPanel && !picking) hidePanel();
    runControl(controls.keys[key]);
  }
}

function showPanel(key) {
  openPanel = key;
  $("panel").hidden = false;
  fillPanel();
}

function hidePanel() {
  openPanel = null;
  picking = null;
  $("panel").hidden = true;
}

function itemLine(item, show) {
  const [first, second, ...rest] = show.map((field) => (item[field] === true ? field : item[field]));
  const notes = rest.filter((value) => value !== undefined && value !== false && value !== null && value !== "");
  return `${first} - ${second}${notes.length ? ` (${notes.join(", ")})` : ""}`;
}

function fillPanel() {
  const panel = controls.panels[openPanel];
  const items = (session && session.view.observation[panel.source]) || [];
  $("panel-title").textContent = picking ? `${spaced(picking.trim())}: which one?` : panel.title;
  const list = $("panel-lines");
  list.replaceChildren();
  for (const item of items) {
    const li = document.createElement("li");
    li.dataset.testid = "panel-line";
    if (picking && panel.pick) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = itemLine(item, panel.show);
      button.setAttribute("aria-label", `${picking}${item[panel.pick]}`);
      const command = `${picking}${item[panel.pick]}`;
      button.addEventListener("click", () => {
        hidePanel();
        commandBox.value = "";
        enqueue(command);
      });
      li.append(button);
    } else li.textContent = itemLine(item, panel.show);
    list.append(li);
  }
  if (items.length === 0) {
    const li = document.createElement("li");
    li.textContent = panel.empty || "nothing";
    list.append(li);
  }
  if (picking) {
    const li = document.createElement("li");
    const cancel = document.createElement("button");
    cancel.type = "button";
    cancel.className = "quiet";
    cancel.textContent = "cancel";
    cancel.addEventListener("click", () => {
      hidePanel();
      commandBox.value = "";
    });
    li.append(cancel);
    list.append(li);
  }
}

function keyName(event) {
  return BROWSER_KEYS[event.key] || event.key;
}

document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, textarea, select") || event.ctrlKey || event.metaKey || event.altKey) return;
  const key = keyName(event);
  if (event.key === "Escape" && openPanel) {
    hidePanel();
    return;
  }
  const sequence = pendingKeys + key;
  if (controls.keys[sequence] !== undefined || (!pendingKeys && controls.panels[key] !== undefined)) {
    pendingKeys = "";
    event.preventDefault();
    press(sequence);
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
    press(key);
  }
});

function pad() {
  if (controls.pad.length === 0) return;
  $("pad").hidden = false;
  const cross = $("pad-cross");
  const actions = $("pad-actions");
  const cells = Array.from({ length: 9 }, () => null);
  for (const entry of controls.pad) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "pad-button";
    button.textContent = entry.label;
    if (entry.label !== entry.name) button.setAttribute("aria-label", entry.name);
    button.dataset.key = entry.key;
    const command = controls.keys[entry.key];
    button.title = `${entry.name} (${keyText(entry.key)})${command ? `: ${commandText(command, PROMPT)}` : ""}`;
    button.addEventListener("click", () => press(entry.key));
    if (entry.cell === null) actions.append(button);
    else cells[entry.cell] = button;
  }
  if (cells.some((cell) => cell)) {
    for (const cell of cells) cross.append(cell || Object.assign(document.createElement("span"), { className: "pad-gap" }));
  } else cross.hidden = true;
}

// A swipe on the board presses the key the game gives that direction.
function swipes() {
  if (Object.keys(controls.swipes).length === 0) return;
  const board = parts.board;
  board.classList.add("swipes");
  let start = null;
  board.addEventListener("pointerdown", (event) => {
    if (event.pointerType !== "mouse") start = [event.clientX, event.clientY];
  });
  board.addEventListener("pointerup", (event) => {
    if (!start) return;
    const [dx, dy] = [event.clientX - start[0], event.clientY - start[1]];
    start = null;
    if (Math.max(Math.abs(dx), Math.abs(dy)) < SWIPE_PIXELS) return;
    const direction = Math.abs(dx) > Math.abs(dy) ? (dx > 0 ? "right" : "left") : dy > 0 ? "down" : "up";
    if (controls.swipes[direction]) press(controls.swipes[direction]);
  });
  board.addEventListener("pointercancel", () => {
    start = null;
  });
}

function keyList() {
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
    ...[...byCommand].map(([command, labels]) => `${kbd(labels)} ${escapeHtml(command === PROMPT && controls.seatReply ? "type a seat reply (raw JSON)" : commandText(command, PROMPT))}`),
    ...Object.entries(controls.panels).map(([key, panel]) => `${kbd([keyText(key)])} ${escapeHtml(panel.title.split(" (")[0].toLowerCase())}`),
    ...[...sequences.values()].map(([first, verb]) => `${kbd([first])} then a direction key: ${escapeHtml(verb)}`),
  ]
    .map((entry) => `<span class="key">${entry}</span>`)
    .join("");
  $("keys").innerHTML = keys;
}

function escapeHtml(text) {
  return text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

// -- forms ---------------------------------------------------------------------------
$("command-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = commandBox.value.trim();
  if (!text) return;
  if (picking) hidePanel();
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
    if (suiteEpisode && !session.view.ranked) {
      const kept = JSON.parse(localStorage.getItem(suiteEpisode.store) || "{}");
      kept[suiteEpisode.episode] = done.sessionId;
      localStorage.setItem(suiteEpisode.store, JSON.stringify(kept));
      const back = Object.assign(document.createElement("a"), { className: "button primary", href: `/bench/play/${suiteEpisode.suite}`, textContent: "Next episode of the suite" });
      back.dataset.testid = "suite-next";
      links.append(" ", back);
    }
    forgetRanked(session.token);
    if (sessionStorage.getItem(PRACTICE) === session.token) sessionStorage.removeItem(PRACTICE);
    session.view = { ...session.view, finished: true, seed: done.seed };
    render(session.view);
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
  $("player-note").textContent = $("player").value.trim()
    ? `Your next game is played as ${$("player").value.trim()}.`
    : "Your next game is played anonymously.";
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
    $("player-note").textContent = `Registered ${made.name}. Its key, kept in this browser (copy it to play elsewhere): ${made.key}. Your next game is played under it.`;
    showProblem("");
  } catch (error) {
    showProblem(error.message);
  }
});

// -- starting and resuming -----------------------------------------------------------
function use(found, note) {
  session = found;
  queue = [];
  held = null;
  hintCells = null;
  previousBoard = null;
  lastWords = "";
  hidePanel();
  messages.replaceChildren();
  $("finished").hidden = true;
  $("ranked-warning").hidden = true;
  if (note) addMessage(messages, note, "info");
  for (const line of messagesOf(session.view.observation)) addMessage(messages, line, "event");
  render(session.view);
  showProblem("");
  parts.board.focus({ preventScroll: true });
}

function owner() {
  const player = localStorage.getItem(NAME) || undefined;
  return { player, key: player ? localStorage.getItem(KEY) || undefined : undefined };
}

// The open ranked game this browser holds (null: none, or it is closed).
async function openRanked() {
  const token = localStorage.getItem(RANKED);
  if (!token) return null;
  try {
    const found = await Session.resume(slug, token, localStorage.getItem(KEY));
    if (found.view.finished || found.view.abandoned) {
      forgetRanked(token);
      return null;
    }
    return found;
  } catch {
    forgetRanked(token);
    return null;
  }
}

// A practice game under the kept name; when the server refuses the name's key, the
// practice game is played anonymously and the page says why.
async function startPractice(seed, options) {
  const chosen = seed === undefined ? Math.floor(Math.random() * PRACTICE_SEEDS) : seed;
  let refused = "";
  let made = null;
  try {
    try {
      made = await Session.create(slug, { seed: chosen, options, ...owner() });
    } catch (error) {
      if (!owner().player || ![401, 403, 404].includes(error.status)) throw error;
      refused = error.message;
      made = await Session.create(slug, { seed: chosen, options });
    }
    sessionStorage.setItem(PRACTICE, made.token);
    use(made);
    if (refused) showProblem(`${refused}: this practice game is played anonymously`);
  } catch (error) {
    showProblem(`could not start a game: ${error.message}`);
  }
}

async function startRanked() {
  try {
    const made = await Session.create(slug, { ...owner(), ranked: true });
    localStorage.setItem(RANKED, made.token);
    const closed = made.view.closedAsAbandoned || [];
    use(made, closed.length ? `Your open ranked game was closed as abandoned (${closed.join(", ")}); it counts at its score.` : "");
  } catch (error) {
    showProblem(`could not start a ranked game: ${error.message}`);
  }
}

async function askRanked() {
  const open = await openRanked();
  if (!open) {
    await startRanked();
    return;
  }
  const view = open.view;
  const name = owner().player;
  const whose = view.player ? ` as ${view.player}` : "";
  const closes =
    view.player && view.player === name
      ? "A new ranked game closes it as abandoned: it counts on the leaderboard at that score."
      : "A new one leaves it unfinished: the server closes it as abandoned once it has sat idle past its deadline, and it counts at that score.";
  $("ranked-warning-text").textContent = `You have a ranked game open${whose} (score ${view.score} after ${view.moves} moves${view.gameOver ? ", over but not finished" : ""}). ${closes}`;
  $("ranked-warning").hidden = false;
  $("ranked-confirm").focus();
}

async function resumeRanked() {
  const open = await openRanked();
  if (open) use(open, "Back to your open ranked game.");
  else if (session) render(session.view);
}

// The address's seed as decimal text, or undefined when it is not one the games take
// (empty, a sign, a fraction, hex, past 2^63-1): never rounded, never ranked.
function addressSeed(text) {
  const digits = /^\d{1,19}$/.test(text) ? text.replace(/^0+(?=\d)/, "") : null;
  if (digits === null) return undefined;
  if (digits.length === MAX_SEED.length && digits > MAX_SEED) return undefined;
  return digits;
}

async function opened() {
  if (seedParam !== null) {
    let options;
    try {
      options = optionsParam ? JSON.parse(optionsParam) : undefined;
    } catch {
      showProblem(`the address's options are not JSON: ${optionsParam}`);
      return;
    }
    const seed = addressSeed(seedParam);
    await startPractice(seed, options);
    if (seed === undefined) showProblem(`the address's seed "${seedParam}" is not a whole number from 0 to ${MAX_SEED}: this is practice on a random seed`);
    return;
  }
  const ranked = await openRanked();
  if (ranked) {
    use(ranked, "Resumed your open ranked game.");
    return;
  }
  const token = sessionStorage.getItem(PRACTICE);
  if (token) {
    try {
      const found = await Session.resume(slug, token, localStorage.getItem(KEY));
      if (!found.view.finished) {
        use(found);
        return;
      }
    } catch {
      sessionStorage.removeItem(PRACTICE);
    }
  }
  await startPractice();
}

for (const id of ["play-ranked", "over-ranked"]) $(id).addEventListener("click", askRanked);
for (const id of ["play-practice", "over-practice"]) $(id).addEventListener("click", () => startPractice());
$("resume-ranked").addEventListener("click", resumeRanked);
$("ranked-confirm").addEventListener("click", () => {
  $("ranked-warning").hidden = true;
  startRanked();
});
$("ranked-keep").addEventListener("click", () => {
  $("ranked-warning").hidden = true;
  resumeRanked();
});
window.addEventListener("storage", (event) => {
  if (event.key === RANKED && session) render(session.view);
});

function guide() {
  const paint = painter(slug);
  if (paint.guide) {
    $("guide").textContent = touchScreen() ? paint.guide.touch : paint.guide.keys;
    $("guide").hidden = false;
  }
  if (paint.legend) {
    paint.legend($("legend"));
    $("legend-panel").hidden = false;
  }
  if (controls.seatReply) {
    $("raw").placeholder = controls.seatReply;
    $("raw-form").hidden = false;
    $("say-panel").hidden = false;
  }
}

$("player").value = localStorage.getItem(NAME) || "";
$("player-key").value = localStorage.getItem(KEY) || "";
pad();
swipes();
keyList();
guide();
opened();
if (controls.idle) {
  const [interval, command] = controls.idle;
  setInterval(() => {
    if (canTick() && document.visibilityState === "visible") enqueue(command);
  }, interval * 1000);
}
