// /bench/play/{suite}: a published suite's episodes played by a person, in order. Each
// opens the play page on its game, seed and options; finishing it there records the
// session here (local storage); the finished set is published as a bench result.
import { $, showProblem } from "./ui.js";

const main = document.querySelector("main");
const STORE = `playbench:suite:${main.dataset.suite}:${main.dataset.hash}`;
const NAME = "playbench:player";
const KEY = "playbench:player-key";
const rows = [...document.querySelectorAll("[data-testid=episode]")];

const done = () => JSON.parse(localStorage.getItem(STORE) || "{}");

function show() {
  const finished = done();
  const next = rows.findIndex((row) => !finished[row.dataset.index]);
  $("strip").replaceChildren(
    ...rows.map((row) => Object.assign(document.createElement("span"), { className: finished[row.dataset.index] ? "done" : row === rows[next] ? "next" : "" })),
  );
  for (const row of rows) {
    const index = row.dataset.index;
    const link = row.querySelector("[data-play]");
    row.classList.toggle("done", Boolean(finished[index]));
    const query = new URLSearchParams({ seed: row.dataset.seed, suite: main.dataset.suite, hash: main.dataset.hash, episode: index });
    if (row.dataset.options !== "{}") query.set("options", row.dataset.options);
    link.href = `/play/${row.dataset.slug}?${query}`;
    link.textContent = finished[index] ? "done" : "play";
    link.hidden = Boolean(finished[index]) || row !== rows[next];
  }
  const count = rows.filter((row) => finished[row.dataset.index]).length;
  $("count").textContent = `${count} of ${rows.length} episodes finished.`;
  $("publish").disabled = count < rows.length;
}

$("publish").addEventListener("click", async () => {
  const player = localStorage.getItem(NAME);
  const key = localStorage.getItem(KEY);
  if (!player || !key) {
    showProblem("register a name on a play page first: the set is published under it");
    return;
  }
  $("publish").disabled = true;
  try {
    const finished = done();
    const sessions = rows.map((row) => finished[row.dataset.index]);
    const reply = await fetch("/api/bench/human", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Player-Key": key },
      body: JSON.stringify({ suite: main.dataset.suite, player, sessions }),
    });
    const answer = await reply.json();
    if (!reply.ok) throw new Error(answer.error || `HTTP ${reply.status}`);
    $("published").innerHTML = "";
    $("published").append(`Published as ${answer.id} under ${answer.player}: `, Object.assign(document.createElement("a"), { href: "/bench", textContent: "see it on /bench" }));
    showProblem("");
  } catch (error) {
    showProblem(error.message);
    $("publish").disabled = false;
  }
});

$("forget").addEventListener("click", () => {
  localStorage.removeItem(STORE);
  show();
});

window.addEventListener("storage", show);
show();
