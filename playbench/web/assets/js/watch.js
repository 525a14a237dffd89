// /watch/{sessionId}: a live spectator view; the server pushes every stored move.
import { spectate } from "./api.js";
import { $, addMessage, messagesOf, showProblem, showView } from "./ui.js";

const sessionId = location.pathname.split("/").pop();
const parts = { board: $("board"), score: $("score"), status: $("status"), fields: $("fields") };
let lastSay = null;
let lastVersion = -1;

function describeLast(last) {
  if (!last) return "none yet";
  const verdict = last.ok ? `accepted${last.reward ? `, ${last.reward > 0 ? "+" : ""}${last.reward}` : ""}` : `refused: ${last.reason}`;
  return `${last.command} (${verdict})`;
}

function show(record) {
  if (record.version <= lastVersion) return;
  lastVersion = record.version;
  showView(record.slug, record, parts);
  document.title = `${record.name}: ${record.player || "anonymous"} · watching`;
  $("heading").textContent = `${record.name}: ${record.player || "anonymous"}`;
  $("who").textContent = `${record.ranked ? "Ranked game" : `Practice on seed ${record.seed}`} · session ${record.sessionId}`;
  $("last").textContent = describeLast(record.lastAction);
  $("last").className = record.lastAction && !record.lastAction.ok ? "refused" : "";
  parts.board.dataset.version = String(record.version);
  if (record.say !== null) {
    $("say-panel").hidden = false;
    if (record.say && record.say !== lastSay) {
      const li = document.createElement("li");
      const when = document.createElement("span");
      when.textContent = `move ${record.moves}`;
      li.append(when, record.say);
      $("say-feed").prepend(li);
    }
    lastSay = record.say;
  }
  const lines = messagesOf(record.observation);
  if (lines.length) {
    $("messages-panel").hidden = false;
    for (const line of lines) addMessage($("messages"), line);
  }
  $("replay-link").href = `/replay/${record.sessionId}`;
  $("replay-panel").hidden = record.ranked && !record.finished;
}

const source = spectate.stream(
  sessionId,
  (record) => {
    showProblem("");
    show(record);
  },
  () => {
    $("live-note").textContent = "The game is finished: the stream has ended.";
  },
);
source.addEventListener("error", () => {
  if (source.readyState === EventSource.CLOSED) return;
  showProblem("the live feed dropped; reconnecting…");
});
spectate.record(sessionId).then(show, (error) => {
  showProblem(error.message);
  source.close();
});
