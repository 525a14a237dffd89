// Delvewick: the mine drawn on a canvas: soil, bedrock, boulders, gems, the mole.
import { makeCanvas, roundRect, speckle } from "./canvas.js";
import { palette, shade } from "./palette.js";

const CELLS = palette.delvewick.cells;

function soil(ctx, x, y, s) {
  ctx.fillStyle = shade(CELLS["%"], -0.12);
  ctx.fillRect(x, y, s, s);
  ctx.fillStyle = CELLS["%"];
  for (let k = 0; k < 5; k++) {
    const px = x + speckle(x, y, k) * (s - 4);
    const py = y + speckle(y, x, k + 7) * (s - 4);
    ctx.fillRect(px, py, 3, 3);
  }
}

function bedrock(ctx, x, y, s) {
  ctx.fillStyle = CELLS["#"];
  ctx.fillRect(x, y, s, s);
  ctx.strokeStyle = shade(CELLS["#"], 0.15);
  ctx.lineWidth = 2;
  ctx.strokeRect(x + 2, y + 2, s - 4, s - 4);
  ctx.fillStyle = shade(CELLS["#"], -0.25);
  ctx.fillRect(x + s * 0.55, y + s * 0.2, s * 0.25, s * 0.2);
}

function boulder(ctx, x, y, s, falling) {
  const c = s / 2;
  const base = CELLS[falling ? "o" : "O"];
  const g = ctx.createRadialGradient(x + c * 0.7, y + c * 0.7, 2, x + c, y + c, c);
  g.addColorStop(0, shade(base, 0.35));
  g.addColorStop(1, shade(base, -0.35));
  ctx.fillStyle = g;
  ctx.beginPath();
  ctx.arc(x + c, y + c, c * 0.84, 0, Math.PI * 2);
  ctx.fill();
  if (falling) streaks(ctx, x, y, s);
}

function gem(ctx, x, y, s, hue, falling) {
  const c = s / 2;
  ctx.fillStyle = hue;
  ctx.beginPath();
  ctx.moveTo(x + c, y + s * 0.12);
  ctx.lineTo(x + s * 0.86, y + c);
  ctx.lineTo(x + c, y + s * 0.88);
  ctx.lineTo(x + s * 0.14, y + c);
  ctx.closePath();
  ctx.fill();
  ctx.fillStyle = "rgba(255,255,255,0.55)";
  ctx.beginPath();
  ctx.moveTo(x + c, y + s * 0.2);
  ctx.lineTo(x + s * 0.7, y + c);
  ctx.lineTo(x + c, y + c * 0.95);
  ctx.closePath();
  ctx.fill();
  if (falling) streaks(ctx, x, y, s);
}

function streaks(ctx, x, y, s) {
  ctx.strokeStyle = "rgba(255,255,255,0.35)";
  ctx.lineWidth = 2;
  for (const dx of [0.3, 0.5, 0.7]) {
    ctx.beginPath();
    ctx.moveTo(x + s * dx, y - s * 0.05);
    ctx.lineTo(x + s * dx, y + s * 0.15);
    ctx.stroke();
  }
}

function exit(ctx, x, y, s, open) {
  const colour = CELLS[open ? "E" : "X"];
  ctx.fillStyle = shade(colour, -0.6);
  roundRect(ctx, x + 3, y + 2, s - 6, s - 4, 6);
  ctx.fill();
  ctx.strokeStyle = colour;
  ctx.lineWidth = 3;
  ctx.stroke();
  if (open) {
    ctx.fillStyle = shade(colour, -0.2);
    ctx.fillRect(x + 8, y + 8, s - 16, s - 14);
  } else {
    ctx.fillStyle = shade(colour, 0.3);
    ctx.fillRect(x + s / 2 - 3, y + s / 2 - 3, 6, 8);
  }
}

function mole(ctx, x, y, s) {
  const c = s / 2;
  ctx.fillStyle = CELLS.M;
  ctx.beginPath();
  ctx.ellipse(x + c, y + c + 2, c * 0.75, c * 0.68, 0, 0, Math.PI * 2);
  ctx.fill();
  ctx.fillStyle = "#f2a0a8";
  ctx.beginPath();
  ctx.arc(x + c, y + c + 6, 4, 0, Math.PI * 2);
  ctx.fill();
  ctx.fillStyle = "#fff";
  for (const dx of [-7, 7]) {
    ctx.beginPath();
    ctx.arc(x + c + dx, y + c - 4, 3.2, 0, Math.PI * 2);
    ctx.fill();
  }
  ctx.fillStyle = "#111";
  for (const dx of [-7, 7]) {
    ctx.beginPath();
    ctx.arc(x + c + dx, y + c - 4, 1.6, 0, Math.PI * 2);
    ctx.fill();
  }
  ctx.fillStyle = "#ffd35e";
  ctx.fillRect(x + c - 7, y + 3, 14, 4);
}

export function drawDelvewick(host, observation, { size = 34 } = {}) {
  const rows = observation.board;
  const width = rows[0].length * size;
  const height = rows.length * size;
  const ctx = makeCanvas(host, width, height);
  ctx.fillStyle = CELLS["."];
  ctx.fillRect(0, 0, width, height);
  rows.forEach((line, r) => {
    [...line].forEach((glyph, c) => {
      const x = c * size;
      const y = r * size;
      switch (glyph) {
        case "#":
          bedrock(ctx, x, y, size);
          break;
        case "%":
          soil(ctx, x, y, size);
          break;
        case "O":
        case "o":
          boulder(ctx, x, y, size, glyph === "o");
          break;
        case "*":
        case "v":
          gem(ctx, x, y, size, CELLS[glyph], glyph === "v");
          break;
        case "G":
        case "g":
          gem(ctx, x, y, size, CELLS[glyph], glyph === "g");
          ctx.strokeStyle = "#ffe08a";
          ctx.lineWidth = 2;
          ctx.strokeRect(x + 5, y + 5, size - 10, size - 10);
          break;
        case "X":
        case "E":
          exit(ctx, x, y, size, glyph === "E");
          break;
        case "M":
          mole(ctx, x, y, size);
          break;
        default:
          break;
      }
    });
  });
}

export function delvewickStatus(observation) {
  return [
    ["level", `${observation.level} · ${observation.levelName}`],
    ["gems", `${observation.gemsCollected}/${observation.quota}`],
    ["exit", observation.exitOpen ? "open" : "closed"],
    ["oil", observation.oil],
    ["chain", observation.chain],
    ["tick", observation.tick],
  ];
}

export function delvewickState(observation) {
  return observation.status;
}

const LEGEND = [
  ["M", "you, the mole"],
  ["%", "soil: dig through it"],
  ["#", "bedrock"],
  ["O", "boulder: falls, rolls, pushed sideways"],
  ["*", "gem: collect the quota"],
  ["G", "geode: a falling boulder cracks it"],
  ["X", "exit, closed until the quota"],
  ["E", "exit, open: step on it"],
];

// Each thing on the board drawn small, with what it is; oil is the lamp's moves.
export function delvewickLegend(host) {
  host.replaceChildren();
  for (const [glyph, words] of LEGEND) {
    const item = document.createElement("div");
    item.className = "legend-item";
    const picture = document.createElement("span");
    picture.className = "legend-picture";
    drawDelvewick(picture, { board: [glyph] }, { size: 26 });
    const label = document.createElement("span");
    label.textContent = words;
    item.append(picture, label);
    host.append(item);
  }
  const oil = document.createElement("p");
  oil.className = "note";
  oil.textContent = "Oil: your lamp. Every move or wait burns one; at 0 the run ends.";
  host.append(oil);
}

export const delvewickGuide = {
  keys: "Arrows, WASD, the pad or a swipe on the board move the mole (digging through soil); space or wait waits a tick.",
  touch: "The pad's arrows or a swipe on the board move the mole (digging through soil); wait lets a tick pass.",
};
