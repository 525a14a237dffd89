// Cogcrawl: the dungeon on a canvas: stone walls, lit floor, doors, stairs, lava, items,
// monsters (letters on a red token) and the cog.
import { makeCanvas, roundRect, speckle } from "./canvas.js";
import { palette, shade } from "./palette.js";

const COLOURS = palette.cogcrawl;
const CELLS = COLOURS.cells;
const ITEMS = '$%!)["';

function floor(ctx, x, y, s) {
  ctx.fillStyle = shade(CELLS["."], -0.45);
  ctx.fillRect(x, y, s, s);
  ctx.fillStyle = CELLS["."];
  ctx.fillRect(x + s / 2 - 1, y + s / 2 - 1, 2, 2);
}

function wall(ctx, x, y, s) {
  ctx.fillStyle = shade(CELLS["|"], -0.35);
  ctx.fillRect(x, y, s, s);
  ctx.fillStyle = CELLS["|"];
  ctx.fillRect(x, y, s, 3);
  ctx.strokeStyle = shade(CELLS["|"], -0.55);
  ctx.lineWidth = 1;
  ctx.strokeRect(x + 0.5, y + 0.5, s - 1, s - 1);
}

function glyph(ctx, text, x, y, s, colour, bold = true) {
  ctx.fillStyle = colour;
  ctx.font = `${bold ? "bold " : ""}${Math.round(s * 0.8)}px ui-monospace, "DejaVu Sans Mono", monospace`;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(text, x + s / 2, y + s / 2 + 1);
}

// The cells seen so far, with a margin: a thumbnail shows only these.
function seenBounds(rows, margin) {
  let top = rows.length;
  let bottom = -1;
  let left = rows[0].length;
  let right = -1;
  rows.forEach((line, r) => {
    [...line].forEach((g, c) => {
      if (g === " ") return;
      top = Math.min(top, r);
      bottom = Math.max(bottom, r);
      left = Math.min(left, c);
      right = Math.max(right, c);
    });
  });
  if (bottom < 0) return { top: 0, left: 0, rows: rows.length, cols: rows[0].length };
  top = Math.max(0, top - margin);
  left = Math.max(0, left - margin);
  return {
    top,
    left,
    rows: Math.min(rows.length, bottom + margin + 1) - top,
    cols: Math.min(rows[0].length, right + margin + 1) - left,
  };
}

// the play board: the explored part of the map with a margin, cells of at most this size
const LARGEST_CELL = 40;
const SMALLEST_CELL = 8;
const MARGIN = 2;

export function drawCogcrawl(host, observation, { size = 0, crop = false } = {}) {
  const rows = observation.map;
  const view = crop || !size ? seenBounds(rows, crop ? 2 : MARGIN) : { top: 0, left: 0, rows: rows.length, cols: rows[0].length };
  if (!size) size = Math.max(SMALLEST_CELL, Math.min(LARGEST_CELL, Math.floor((host.clientWidth || 720) / view.cols)));
  const width = view.cols * size;
  const height = view.rows * size;
  const ctx = makeCanvas(host, width, height);
  ctx.fillStyle = COLOURS.background;
  ctx.fillRect(0, 0, width, height);
  ctx.translate(-view.left * size, -view.top * size);
  const monsters = new Map();
  for (const m of observation.monsters || []) monsters.set(`${m.x},${m.y}`, m);
  rows.forEach((line, r) => {
    [...line].forEach((g, c) => {
      const x = c * size;
      const y = r * size;
      switch (g) {
        case " ":
          return;
        case "|":
        case "-":
          wall(ctx, x, y, size);
          return;
        case "#":
          ctx.fillStyle = shade(CELLS["#"], -0.55);
          ctx.fillRect(x + 1, y + 1, size - 2, size - 2);
          ctx.fillStyle = shade(CELLS["#"], -0.3);
          ctx.fillRect(x + 3 + speckle(c, r) * 6, y + 4, 3, 3);
          return;
        case "+":
        case "'":
          floor(ctx, x, y, size);
          ctx.fillStyle = CELLS[g];
          ctx.fillRect(x + 2, y + 2, size - 4, size - 4);
          if (g === "'") {
            ctx.fillStyle = shade(CELLS["."], -0.45);
            ctx.fillRect(x + 5, y + 4, size - 10, size - 8);
          }
          return;
        case "}":
          ctx.fillStyle = shade(CELLS["}"], speckle(c, r) > 0.5 ? 0 : -0.15);
          ctx.fillRect(x, y, size, size);
          ctx.fillStyle = shade(CELLS["}"], 0.45);
          ctx.fillRect(x + speckle(r, c) * (size - 4), y + size / 2, 4, 2);
          return;
        default:
          break;
      }
      floor(ctx, x, y, size);
      if (g === "<" || g === ">") {
        ctx.fillStyle = shade(CELLS["."], -0.7);
        ctx.fillRect(x + 2, y + 2, size - 4, size - 4);
        glyph(ctx, g, x, y, size, CELLS[g]);
      } else if (g === "@") {
        const grad = ctx.createRadialGradient(x + size / 2, y + size / 2, 1, x + size / 2, y + size / 2, size);
        grad.addColorStop(0, `${CELLS["@"]}8c`);
        grad.addColorStop(1, `${CELLS["@"]}00`);
        ctx.fillStyle = grad;
        ctx.fillRect(x - size / 2, y - size / 2, size * 2, size * 2);
        glyph(ctx, "@", x, y, size, CELLS["@"]);
      } else if (ITEMS.includes(g)) {
        glyph(ctx, g, x, y, size, CELLS[g]);
      } else if (g !== ".") {
        ctx.fillStyle = shade(COLOURS.monster, -0.65);
        roundRect(ctx, x + 1, y + 1, size - 2, size - 2, 4);
        ctx.fill();
        glyph(ctx, g, x, y, size, shade(COLOURS.monster, 0.35));
      }
    });
  });
  for (const m of monsters.values()) {
    if (m.hp !== undefined && m.max_hp) {
      const x = m.x * size;
      const y = m.y * size;
      ctx.fillStyle = "#00000099";
      ctx.fillRect(x, y - 3, size, 3);
      ctx.fillStyle = COLOURS.monster;
      ctx.fillRect(x, y - 3, (size * m.hp) / m.max_hp, 3);
    }
  }
}

export function cogcrawlStatus(observation) {
  const s = observation.status;
  return [
    ["depth", `Dlvl ${s.dl}`],
    ["HP", `${s.hp}/${s.max_hp}`],
    ["AC", s.ac],
    ["XL", s.xl],
    ["gold", s.gold],
    ["hunger", s.hunger],
    ["turn", observation.turn],
  ];
}

export function cogcrawlState(observation) {
  return observation.run ? observation.run.state : "playing";
}

export const cogcrawlGuide = {
  keys: "Move with h j k l y u b n, the arrows, the pad or a swipe on the map; i shows the pack; the keys below do the rest, or send a whole seat reply as an agent does.",
  touch: "Move with the pad's arrows or a swipe on the map; pack shows what you carry; the pad's buttons do the rest.",
};

const LEGEND = [
  ["@", "you, the cog"],
  ["+", "door, closed: walk into it to open"],
  ["'", "door, open"],
  [">", "stairs down (the down button, >)"],
  ["<", "stairs up"],
  ["#", "corridor"],
  ["}", "lava: it kills"],
  ["$", "gold: pick up for points"],
  ["%", "food: eat it (e)"],
  ["!", "potion: quaff it (q)"],
  [")", "weapon: wield it (w)"],
  ["[", "armour: wear it (W)"],
  ['"', "the Cogheart, on level 10"],
  ["r", "a monster (its letter): walk into it to fight"],
];

// Each thing on the map drawn as the board draws it, with what it is.
export function cogcrawlLegend(host) {
  host.replaceChildren();
  for (const [g, words] of LEGEND) {
    const item = document.createElement("div");
    item.className = "legend-item";
    const picture = document.createElement("span");
    picture.className = "legend-picture";
    drawCogcrawl(picture, { map: [g], monsters: [] }, { size: 24 });
    const label = document.createElement("span");
    label.textContent = words;
    item.append(picture, label);
    host.append(item);
  }
  const pack = document.createElement("p");
  pack.className = "note";
  pack.textContent = "Your pack: i (or the pack button) lists it; eat, quaff, wield and wear ask which letter.";
  host.append(pack);
}
