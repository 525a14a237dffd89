// /leaderboard/{slug}: a row per ranked, finished game.
import { getJson } from "./api.js";
import { $, showProblem } from "./ui.js";

const slug = document.querySelector("main").dataset.slug;

function cell(row, text, className) {
  const td = document.createElement("td");
  td.textContent = text;
  if (className) td.className = className;
  row.append(td);
  return td;
}

async function load() {
  try {
    const board = await getJson(`/api/leaderboard/${slug}?limit=100`);
    const body = $("rows");
    body.replaceChildren();
    for (const entry of board.entries) {
      const row = document.createElement("tr");
      row.dataset.testid = "leaderboard-row";
      cell(row, `#${entry.rank}`, "rank-cell num");
      cell(row, entry.player || "anonymous", "player");
      cell(row, String(entry.score), "num score-cell");
      cell(row, new Date(entry.finishedAt).toLocaleString(), "num");
      cell(row, entry.rating === null ? "" : `${entry.rating}/10`, "num");
      cell(row, entry.review || "", "review");
      const replay = cell(row, "");
      const link = document.createElement("a");
      link.href = `/replay/${entry.sessionId}`;
      link.textContent = "replay";
      replay.append(link);
      body.append(row);
    }
    $("empty").hidden = board.entries.length > 0;
  } catch (error) {
    showProblem(error.message);
  }
}

load();
