// /replay/{sessionId} and /replay: step a replay forward and back. Boards are rebuilt by
// the rules from the seed, options and actions: POST /api/games/{slug}/frames answers a
// window of up to 200 boards in one request, so a jump to any step costs one request
// (and a step inside the window none), and the viewer shows exactly what the rules make
// of the actions. A replay file written by
// `playbench run` opens the same way; its format (playbench/runner/replay.py, the one
// the CLI reads) is a header {replay: 1, game, seed, options, agent, version}, one line
// per applied action {step, action, reward, score, ...} and the end line {end: {score,
// fingerprint, steps, outcome, progress}}, whose score the last board must match.
import { games, postJson, spectate } from "./api.js";
import { $, showProblem, showView } from "./ui.js";
import { eventText } from "./words.js";

const PLAY_STEP_MS = 160;
const STEP_TEXT_CHARS = 240;
// frames one request answers (the server's most), and how many of them lie behind the
// step asked for
const WINDOW = 200;
const BEHIND = 50;
const parts = { board: $("board"), score: $("score"), status: $("status"), fields: $("fields") };
let replay = null;
// step -> frame, filled a window at a time
let frames = new Map();
// where the last command asked to be (clicks come faster than the boards are built)
let wanted = 0;
let timer = null;
let work = Promise.resolve();

function parseReplayFile(text) {
  const lines = text.split("\n").map((l) => l.trim()).filter(Boolean);
  if (lines.length === 0) throw new Error("the file is empty");
  const rows = lines.map((line, i) => {
    try {
      return JSON.parse(line);
    } catch {
      throw new Error(`line ${i + 1} is not JSON`);
    }
  });
  const [header, ...steps] = rows;
  if (!header || typeof header.game !== "string" || !Number.isSafeInteger(header.seed)) {
    throw new Error("the first line must be the header {replay, game, seed, options, agent, version} with a seed below 2^53");
  }
  const last = steps[steps.length - 1];
  const end = last && typeof last === "object" && last.end && typeof last.end === "object" ? steps.pop().end : null;
  steps.forEach((step, i) => {
    if (!step || typeof step !== "object" || !("action" in step)) throw new Error(`line ${i + 2} is neither an action line nor the last line's end`);
  });
  return { game: header.game, seed: header.seed, options: header.options || {}, agent: header.agent, steps, end };
}

// The frame after `k` actions: from the frames fetched, else a window around it.
async function frame(k) {
  if (frames.has(k)) return frames.get(k);
  const first = Math.max(0, k - BEHIND);
  const body = { seed: replay.seed, actions: replay.steps.map((step) => step.action), start: first, count: WINDOW };
  if (replay.options && Object.keys(replay.options).length) body.options = replay.options;
  const answer = await postJson(`/api/games/${replay.game}/frames`, body);
  for (const found of answer.frames) frames.set(found.step, found);
  if (!frames.has(k)) throw new Error(`the server gave no frame ${k}`);
  return frames.get(k);
}

function draw(k, current) {
  const total = replay.steps.length;
  showView(replay.game, { observation: current.observation, score: current.score, moves: k, gameOver: current.gameOver, finished: k === total && replay.end !== null }, parts);
  // the badge tells where the replay stands: a step on the way, or how the game ended
  if (k < total) {
    parts.status.textContent = `step ${k} of ${total}`;
    parts.status.className = "status-word";
  }
  $("scrubber").max = String(total);
  $("scrubber").value = String(k);
  $("position").textContent = `${k} / ${total}`;
  const step = k > 0 ? replay.steps[k - 1] : null;
  const box = $("step");
  if (!step) {
    box.textContent = "the start";
  } else {
    const full = current.command || JSON.stringify(step.action);
    const said = full.length > STEP_TEXT_CHARS ? `${full.slice(0, STEP_TEXT_CHARS)}…` : full;
    const events = current.events
      .map((event) => eventText(replay.game, event))
      .filter(Boolean)
      .join(" ");
    const gained = Number.isInteger(step.reward) ? step.reward : 0;
    box.textContent = `Step ${k}: ${said}.${current.reason ? ` Refused, and counted: ${current.reason}.` : ""}${events ? ` ${events}` : ""}${gained ? ` Score ${current.score} (${gained > 0 ? "+" : ""}${gained}).` : ` Score ${current.score}.`}`;
    if (Number.isInteger(step.score) && step.score !== current.score) {
      showProblem(`step ${k}: the rules give score ${current.score}, the replay says ${step.score}`);
    }
  }
  if (k === total && replay.end && Number.isInteger(replay.end.score) && replay.end.score !== current.score) {
    showProblem(`the rules end the replay at score ${current.score}, its end line says ${replay.end.score}`);
  }
}

function go(k) {
  if (!replay) return work;
  const target = Math.max(0, Math.min(k, replay.steps.length));
  wanted = target;
  work = work.then(async () => {
    try {
      draw(target, await frame(target));
    } catch (error) {
      pause();
      showProblem(error.message);
    }
  });
  return work;
}

function pause() {
  if (timer) clearInterval(timer);
  timer = null;
  $("play").textContent = "▶ Play";
}

function play() {
  if (!replay) return;
  if (wanted >= replay.steps.length) go(0);
  $("play").textContent = "Pause";
  timer = setInterval(() => {
    if (wanted >= replay.steps.length) pause();
    else go(wanted + 1);
  }, PLAY_STEP_MS);
}

// A game's name by its slug (the slug itself for a game this server does not serve).
async function nameOf(slug) {
  try {
    const found = (await games()).find((game) => game.slug === slug);
    return found ? found.name : slug;
  } catch {
    return slug;
  }
}

// The replay's header: its seed, its final score as the rules give it, and its moves as
// the game counts them (a game that counts its own moves, as Gem Swap's movesMade, may
// take two actions to one move: a pick, then a swap).
function header(last) {
  const total = replay.steps.length;
  const own = last.observation && last.observation.movesMade;
  const moves = Number.isInteger(own) && own !== total ? `${own} moves (${total} actions)` : `${total} moves`;
  const ended = replay.end ? (last.gameOver ? "final score" : "score when it was finished") : "score at its last step";
  return `seed ${replay.seed} · ${ended} ${last.score} · ${moves}`;
}

async function open(source) {
  pause();
  showProblem("");
  replay = source;
  frames = new Map();
  wanted = 0;
  const name = await nameOf(replay.game);
  const who = replay.agent || "anonymous";
  $("heading").textContent = `Replay: ${name} · ${who}`;
  document.title = `Replay: ${name} · ${who} · playbench arena`;
  $("who").textContent = `seed ${replay.seed} · ${replay.steps.length} actions`;
  for (const button of document.querySelectorAll(".transport button, .transport input")) button.disabled = false;
  await go(0);
  try {
    $("who").textContent = header(await frame(replay.steps.length));
  } catch (error) {
    showProblem(error.message);
  }
}

$("next").addEventListener("click", () => go(wanted + 1));
$("prev").addEventListener("click", () => go(wanted - 1));
$("first").addEventListener("click", () => go(0));
$("last").addEventListener("click", () => replay && go(replay.steps.length));
$("play").addEventListener("click", () => (timer ? pause() : play()));
$("scrubber").addEventListener("input", (event) => go(Number(event.target.value)));
document.addEventListener("keydown", (event) => {
  if (event.target.closest("input[type=text], textarea")) return;
  const moves = { ArrowRight: () => go(wanted + 1), ArrowLeft: () => go(wanted - 1), Home: () => go(0), End: () => replay && go(replay.steps.length), " ": () => (timer ? pause() : play()) };
  if (moves[event.key]) {
    event.preventDefault();
    moves[event.key]();
  }
});

async function openFile(file) {
  try {
    await open(parseReplayFile(await file.text()));
  } catch (error) {
    showProblem(`${file.name}: ${error.message}`);
  }
}

$("file").addEventListener("change", (event) => event.target.files[0] && openFile(event.target.files[0]));
const zone = $("dropzone");
zone.addEventListener("dragover", (event) => {
  event.preventDefault();
  zone.classList.add("over");
});
zone.addEventListener("dragleave", () => zone.classList.remove("over"));
zone.addEventListener("drop", (event) => {
  event.preventDefault();
  zone.classList.remove("over");
  if (event.dataTransfer.files[0]) openFile(event.dataTransfer.files[0]);
});

const id = location.pathname.split("/")[2];
if (id) {
  spectate
    .replay(id)
    .then((r) => {
      // a seed past 2^53 comes as its digits (api.js), and goes back to the server so
      if (!Number.isSafeInteger(r.seed) && !/^\d+$/.test(String(r.seed))) {
        throw new Error(`this session's seed ${r.seed} is not a whole number`);
      }
      return open({ game: r.game, seed: r.seed, options: r.options, agent: r.agent, steps: r.steps, end: r.finished ? { score: r.score } : null });
    })
    .catch((error) => showProblem(error.message));
}

// /replay?src=/bench/{id}/files/...: a replay file of a bench result the server verified
const src = new URLSearchParams(location.search).get("src");
if (!id && src && src.startsWith("/bench/")) {
  fetch(src)
    .then((answer) => {
      if (!answer.ok) throw new Error(`${src}: HTTP ${answer.status}`);
      return answer.text();
    })
    .then((text) => open(parseReplayFile(text)))
    .catch((error) => showProblem(error.message));
}
