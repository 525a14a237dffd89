// /replay/{sessionId} and /replay: step a replay forward and back. Boards are rebuilt by
// stepping the actions through the stateless API from the seed and options, so the
// viewer shows exactly what the rules make of them. A replay file written by
// `playbench run` opens the same way; its format (playbench/runner/replay.py, the one
// the CLI reads) is a header {replay: 1, game, seed, options, agent, version}, one line
// per applied action {step, action, reward, score, ...} and the end line {end: {score,
// fingerprint, steps, outcome, progress}}, whose score the last board must match.
import { spectate, statelessAction, statelessInit } from "./api.js";
import { $, showProblem, showView } from "./ui.js";
import { eventText } from "./words.js";

const PLAY_STEP_MS = 160;
const STEP_TEXT_CHARS = 240;
const parts = { board: $("board"), score: $("score"), status: $("status"), fields: $("fields") };
let replay = null;
let frames = [];
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

// The frame after `k` actions, stepping from the last frame built.
async function frame(k) {
  while (frames.length <= k) {
    const before = frames[frames.length - 1];
    const step = replay.steps[frames.length - 1];
    const answer = await statelessAction(replay.game, before.state, step.action);
    if (!answer.state) {
      throw new Error(`step ${frames.length}: the rules refused ${JSON.stringify(step.action)}: ${answer.reason}`);
    }
    frames.push({
      state: answer.state,
      observation: answer.observation,
      score: answer.score,
      gameOver: answer.gameOver,
      events: answer.events || [],
      reason: answer.ok ? "" : answer.reason,
    });
  }
  return frames[k];
}

function draw(k, current) {
  const total = replay.steps.length;
  showView(replay.game, { observation: current.observation, score: current.score, moves: k, gameOver: current.gameOver, finished: false }, parts);
  $("scrubber").max = String(total);
  $("scrubber").value = String(k);
  $("position").textContent = `${k} / ${total}`;
  const step = k > 0 ? replay.steps[k - 1] : null;
  const box = $("step");
  if (!step) {
    box.textContent = "the start";
  } else {
    const full = JSON.stringify(step.action);
    const said = full.length > STEP_TEXT_CHARS ? `${full.slice(0, STEP_TEXT_CHARS)}…` : full;
    const events = current.events
      .map((event) => eventText(replay.game, event))
      .filter(Boolean)
      .join(" ");
    box.textContent = `${said}${current.reason ? ` (refused, counted: ${current.reason})` : ""}${events ? ` → ${events}` : ""}`;
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

async function open(source) {
  pause();
  showProblem("");
  replay = source;
  const start = await statelessInit(replay.game, replay.seed, replay.options);
  frames = [{ state: start.state, observation: start.observation, score: start.score, gameOver: start.gameOver, events: [], reason: "" }];
  $("heading").textContent = `Replay: ${replay.game} · ${replay.agent || "anonymous"}`;
  $("who").textContent = `seed ${replay.seed} · ${replay.steps.length} actions`;
  await go(0);
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
      if (!Number.isSafeInteger(r.seed)) {
        throw new Error("this session's seed is 2^53 or more, which a browser cannot hold exactly: verify it with playbench verify --server instead");
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
