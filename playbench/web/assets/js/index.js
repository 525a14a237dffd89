// The home page: a picture of each game's board (seed 7 through the stateless API) and
// links to games worth watching: those being played right now (a game opened and left
// without a move is not one), and the best finished ranked games, to replay.
import { getJson, spectate } from "./api.js";
import { thumbnail } from "./boards/index.js";

const PICTURE_SEED = 7;
const LIVE_LINKS = 4;
const LIVE_REFRESH_MS = 10000;
const FINISHED_LINKS = 2;

function chip(box, href, text, testid) {
  const link = document.createElement("a");
  link.href = href;
  link.dataset.testid = testid;
  link.textContent = text;
  box.append(link);
}

async function finished(slug) {
  try {
    return (await getJson(`/api/leaderboard/${slug}?limit=${FINISHED_LINKS}`)).entries;
  } catch {
    return [];
  }
}

async function pictures() {
  for (const host of document.querySelectorAll("[data-thumb]")) {
    const slug = host.dataset.thumb;
    try {
      const start = await getJson(`/api/games/${slug}/init?seed=${PICTURE_SEED}`);
      thumbnail(slug, host, start.observation);
    } catch (error) {
      host.textContent = error.message;
    }
  }
}

async function live() {
  let sessions = [];
  try {
    sessions = (await spectate.live()).sessions;
  } catch {
    return;
  }
  for (const box of document.querySelectorAll("[data-live]")) {
    const mine = sessions.filter((s) => s.slug === box.dataset.live && s.moves > 0).slice(0, LIVE_LINKS);
    const done = await finished(box.dataset.live);
    box.replaceChildren();
    if (mine.length === 0 && done.length === 0) {
      const none = document.createElement("span");
      none.className = "muted";
      none.textContent = "nobody is playing";
      box.append(none);
      continue;
    }
    const label = document.createElement("span");
    label.className = "muted";
    label.textContent = mine.length ? "watch:" : "nobody is playing; replay:";
    box.append(label);
    for (const s of mine) {
      const moves = `${s.moves} ${s.moves === 1 ? "move" : "moves"}`;
      chip(box, s.watchUrl, `${s.player || "anonymous"} · ${s.score} after ${moves}`, "watch-link");
    }
    if (mine.length && done.length) box.append(Object.assign(document.createElement("span"), { className: "muted", textContent: "replay:" }));
    for (const entry of done) chip(box, `/replay/${entry.sessionId}`, `#${entry.rank} ${entry.player || "anonymous"} · ${entry.score}`, "replay-link");
  }
}

pictures();
live();
setInterval(live, LIVE_REFRESH_MS);
