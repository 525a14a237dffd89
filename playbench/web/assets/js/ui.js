// Small pieces every page shares: the status panel, messages, the problem banner.
import { painter } from "./boards/index.js";
import { spaced } from "./words.js";

export const $ = (id) => document.getElementById(id);

export function showProblem(message) {
  const box = $("problem");
  if (!box) return;
  box.textContent = message || "";
  box.hidden = !message;
}

export function fillFields(dl, pairs) {
  dl.replaceChildren();
  for (const [name, value] of pairs) {
    const dt = document.createElement("dt");
    dt.textContent = name;
    const dd = document.createElement("dd");
    dd.textContent = String(value);
    const pair = document.createElement("div");
    pair.append(dt, dd);
    dl.append(pair);
  }
}

export function addMessage(list, text, kind = "event", limit = 200) {
  const li = document.createElement("li");
  li.className = kind;
  li.textContent = text;
  list.prepend(li);
  while (list.children.length > limit) list.lastChild.remove();
}

// Draw a view (observation + score + moves) into the common page parts.
export function showView(slug, view, { board, score, status, fields, drawOptions = {} }) {
  const paint = painter(slug);
  paint.draw(board, view.observation, { text: view.board, ...drawOptions });
  board.dataset.moves = String(view.moves);
  score.textContent = String(view.score);
  const word = view.finished ? "finished" : view.gameOver ? gameOverWord(paint.state(view.observation)) : paint.state(view.observation) || "playing";
  status.textContent = spaced(word);
  status.className = `status-word ${word}`;
  if (fields) fillFields(fields, [...paint.status(view.observation), ["actions", view.moves]]);
}

function gameOverWord(word) {
  return ["won", "lost"].includes(word) ? word : "over";
}

export function messagesOf(observation) {
  return Array.isArray(observation.messages) ? observation.messages : [];
}
