// /leaderboard/{slug}: the players' table (a statistic over all of each player's ranked
// games) and, as a second view, a row per best finished ranked game.
import { getJson } from "./api.js";
import { $, showProblem } from "./ui.js";

const slug = document.querySelector("main").dataset.slug;

// Each cell carries its column's name: a phone, which hides the table's head, shows it
// beside the figure (arena.css), so no number stands unlabelled.
function cell(row, text, className, label) {
  const td = document.createElement("td");
  td.textContent = text;
  if (className) td.className = className;
  if (label) td.dataset.label = label;
  row.append(td);
  return td;
}

async function load() {
  try {
    const board = await getJson(`/api/leaderboard/${slug}?limit=100`);
    $("note").textContent = board.note;
    const formula = Object.assign(document.createElement("a"), { href: `/api/leaderboard/${slug}`, textContent: "the formula" });
    formula.title = board.statistic;
    $("statistic").replaceChildren(
      `Every ranked game counts, finished or abandoned. Players are ranked from ${board.minGames} games on by a cautious mean: the lowest their mean score could likely be, given how their games vary, and a little lower the more players there are, so a few lucky games do not rank first (`,
      formula,
      ", under statistic).",
    );
    const players = $("players");
    players.replaceChildren();
    for (const standing of board.players) {
      const row = document.createElement("tr");
      row.dataset.testid = "players-row";
      const rank = cell(row, standing.rank === null ? "unranked" : `#${standing.rank}`, "rank-cell num", "rank");
      if (standing.rank === null) {
        const more = board.minGames - standing.games;
        rank.title = `ranked after ${board.minGames} games: ${more} more to play`;
        rank.append(Object.assign(document.createElement("small"), { className: "to-go", textContent: ` ${more} more ${more === 1 ? "game" : "games"}` }));
      }
      cell(row, standing.player, "player", "player");
      cell(row, String(standing.games), "num games-cell", "games");
      cell(row, standing.mean.toFixed(1), "num mean-cell", "mean score");
      cell(row, `${standing.low.toFixed(1)} – ${standing.high.toFixed(1)}`, "num", "95% interval");
      cell(row, String(standing.best), "num", "best score");
      cell(row, new Date(standing.lastPlayed).toLocaleString(), "num", "last played");
      players.append(row);
    }
    $("no-players").hidden = board.players.length > 0;
    const body = $("rows");
    body.replaceChildren();
    for (const entry of board.entries) {
      const row = document.createElement("tr");
      row.dataset.testid = "leaderboard-row";
      cell(row, `#${entry.rank}`, "rank-cell num", "rank");
      cell(row, entry.player || "anonymous", "player", "player");
      cell(row, String(entry.score), "num score-cell", "score");
      cell(row, new Date(entry.finishedAt).toLocaleString(), "num", "finished");
      cell(row, entry.rating === null ? "" : `${entry.rating}/10`, "num", "rating");
      cell(row, entry.review || "", "review", "review");
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
