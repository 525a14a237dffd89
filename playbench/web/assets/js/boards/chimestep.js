// Chimestep: the pyramid of chime tiles as isometric blocks (SVG), the chick, the Hush.
import { touchScreen } from "../touch.js";
import { palette, shade } from "./palette.js";

const SVG = "http://www.w3.org/2000/svg";
// the world's clock (the game's controls tick it 12 times a second)
export const TICKS_PER_SECOND = 12;
// what each phase that counts down to play says, and what the countdown leads to
const PHASES = {
  stageIntro: ["Get ready", "play starts in"],
  recovering: ["A life lost", "play resumes in"],
  stageClear: ["Stage clear!", "next stage in"],
};
const COLOURS = palette.chimestep;
const HUSH = COLOURS.hush;

function node(name, attrs, parent) {
  const el = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
  if (parent) parent.appendChild(el);
  return el;
}

// Untouched tiles take the first colour, rung-up ones the middle, finished ones the last.
function levelColor(level, target) {
  const levels = COLOURS.levels;
  if (level >= target) return levels[levels.length - 1];
  return level === 0 ? levels[0] : levels[Math.min(level, levels.length - 2)];
}

export const seconds = (ticks) => `${(ticks / TICKS_PER_SECOND).toFixed(1)} s`;

// The banner over the pyramid: the phase, and how long until play.
export function phaseLine(observation) {
  const phase = PHASES[observation.status];
  if (phase) return [phase[0], `${phase[1]} ${seconds(observation.phaseTicks || 0)}`];
  if (observation.status === "waiting") {
    return touchScreen() ? ["Tap start to begin", "the pad hops diagonally"] : ["Press space to start", "arrows hop diagonally"];
  }
  if (observation.status === "done") return ["The run is over", `${observation.score} points`];
  return null;
}

// In the top left corner, which the pyramid leaves empty.
function banner(svg, lines) {
  const group = node("g", { "data-phase": lines[0] }, svg);
  node("rect", { x: 8, y: 8, width: 196, height: 50, rx: 12, fill: "#000000b8" }, group);
  const head = node("text", { x: 20, y: 29, fill: "#fff6d0", "font-size": 16, "font-weight": 700 }, group);
  head.textContent = lines[0];
  const tail = node("text", { x: 20, y: 49, fill: "#d8d0f5", "font-size": 14, "data-countdown": "" }, group);
  tail.textContent = lines[1];
}

export function drawChimestep(host, observation, { tileW = 64, phase = true } = {}) {
  const rows = observation.tiles;
  const tileH = tileW * 0.5;
  const depth = tileW * 0.34;
  const width = rows.length * tileW + tileW;
  const height = rows.length * (tileH + depth * 0.55) + tileH + depth + 24;
  const svg = node("svg", { viewBox: `0 0 ${width} ${height}`, width, role: "img" });
  svg.setAttribute("aria-label", "the chime pyramid");
  node("rect", { x: 0, y: 0, width, height, fill: COLOURS.background, rx: 14 }, svg);
  const centre = (r, c) => ({
    x: width / 2 + (c - r / 2) * tileW,
    y: 24 + tileH / 2 + r * (tileH + depth * 0.55),
  });
  const hush = new Map();
  for (const cell of observation.hushCells || []) hush.set(`${cell.row},${cell.col}`, cell.kind);
  const dormant = new Map();
  for (const cell of observation.dormantHush || []) dormant.set(`${cell.row},${cell.col}`, cell.kind);
  rows.forEach((row, r) => {
    row.forEach((level, c) => {
      const { x, y } = centre(r, c);
      const w = tileW / 2 - 3;
      const h = tileH / 2 - 1.5;
      const top = levelColor(level, observation.target);
      const tile = node("g", { "data-tile": `${r},${c}`, "data-level": level }, svg);
      node(
        "polygon",
        { points: `${x - w},${y} ${x},${y + h} ${x},${y + h + depth} ${x - w},${y + depth}`, fill: shade(top, -0.55) },
        tile,
      );
      node(
        "polygon",
        { points: `${x + w},${y} ${x},${y + h} ${x},${y + h + depth} ${x + w},${y + depth}`, fill: shade(top, -0.4) },
        tile,
      );
      node(
        "polygon",
        {
          points: `${x},${y - h} ${x + w},${y} ${x},${y + h} ${x - w},${y}`,
          fill: top,
          stroke: shade(top, 0.4),
          "stroke-width": 1.5,
        },
        tile,
      );
      for (let k = 0; k < Math.min(level, 5); k++) {
        node("circle", { cx: x - 8 + k * 4, cy: y, r: 1.6, fill: "#ffffffaa" }, tile);
      }
      const key = `${r},${c}`;
      if (dormant.has(key)) {
        node("circle", { cx: x, cy: y - 2, r: 7, fill: "none", stroke: COLOURS.dormant, "stroke-dasharray": "3 2", "stroke-width": 2 }, tile);
      }
      if (hush.has(key)) {
        const colour = HUSH[hush.get(key)] || "#ccc";
        node("ellipse", { cx: x, cy: y - 6, rx: 11, ry: 12, fill: colour, opacity: 0.92 }, tile);
        node("circle", { cx: x - 4, cy: y - 9, r: 2.4, fill: COLOURS.background }, tile);
        node("circle", { cx: x + 4, cy: y - 9, r: 2.4, fill: COLOURS.background }, tile);
        node("path", { d: `M${x - 11},${y} q4,6 7,0 q4,6 7,0 q4,6 8,0`, fill: colour }, tile);
      }
    });
  });
  const at = observation.position;
  if (at) {
    const { x, y } = centre(at.row, at.col);
    const chick = node("g", { "data-chick": `${at.row},${at.col}` }, svg);
    node("ellipse", { cx: x, cy: y + 1, rx: 10, ry: 4, fill: "#00000055" }, chick);
    node("circle", { cx: x, cy: y - 10, r: 10, fill: COLOURS.chick, stroke: shade(COLOURS.chick, -0.35), "stroke-width": 1.5 }, chick);
    node("circle", { cx: x + 3, cy: y - 13, r: 1.8, fill: "#1b1b1b" }, chick);
    node("polygon", { points: `${x + 9},${y - 10} ${x + 15},${y - 8} ${x + 9},${y - 6}`, fill: shade(COLOURS.chick, -0.3) }, chick);
    if (observation.teeter) {
      node("text", { x, y: y - 24, "text-anchor": "middle", fill: "#ff5d5d", "font-size": 14 }, chick).textContent = "!";
    }
  }
  const lines = phase ? phaseLine(observation) : null;
  if (lines) banner(svg, lines);
  host.replaceChildren(svg);
}

export function chimestepStatus(observation) {
  const lines = phaseLine(observation);
  return [
    ...(lines && PHASES[observation.status] ? [["phase", `${lines[0].toLowerCase()}: ${lines[1]}`]] : []),
    ["stage", `${observation.stage} · target ${observation.target}`],
    ["lives", "♥".repeat(Math.max(observation.lives, 0)) || "0"],
    ["chain", observation.chain],
    ["tolls", `${observation.tollCharges}${observation.tollCooldown ? ` (ready in ${observation.tollCooldown})` : ""}`],
    ["tiles to ring", observation.remaining],
    ["hops", `${observation.stageHops}/par ${observation.par}`],
    ["tick", observation.tick],
  ];
}

export function chimestepState(observation) {
  return observation.status;
}

export const chimestepGuide = {
  keys: "Space (or start on the pad) starts. The chick hops along the diagonals: u or ← up-left, i or ↑ up-right, j or ↓ down-left, k or → down-right, or the pad's arrows; t rings the toll bell.",
  touch: "Tap start on the pad to begin. The chick hops along the diagonals by the pad's arrows; toll rings the bell.",
};
