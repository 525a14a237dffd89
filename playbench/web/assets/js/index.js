// The home page: a picture of each game's board (seed 7 through the stateless API) and
// links to the games being played right now.
import { getJson, spectate } from "./api.js";
import { thumbnail } from "./boards/index.js";

const PICTURE_SEED = 7;
const LIVE_LINKS = 4;
const LIVE_REFRESH_MS = 10000;

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
    const mine = sessions.filter((s) => s.slug === box.dataset.live).slice(0, LIVE_LINKS);
    box.replaceChildren();
    if (mine.length === 0) {
      const none = document.createElement("span");
      none.className = "muted";
      none.textContent = "nobody is playing";
      box.append(none);
      continue;
    }
    const label = document.createElement("span");
    label.className = "muted";
    label.textContent = "watch:";
    box.append(label);
    for (const s of mine) {
      const link = document.createElement("a");
      link.href = s.watchUrl;
      link.dataset.testid = "watch-link";
      link.textContent = `${s.player || "anonymous"} · ${s.score}`;
      box.append(link);
    }
  }
}

pictures();
live();
setInterval(live, LIVE_REFRESH_MS);
