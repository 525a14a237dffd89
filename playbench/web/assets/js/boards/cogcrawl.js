// Cogcrawl: the dungeon on a canvas: stone walls, lit floor, doors, stairs, lava, items,
// monsters (letters on a red token) and the cog.
import { makeCanvas, roundRect, speckle } from "./canvas.js";

const ITEM_COLORS = { $: "#ffd35e", "%": "#ff9a3d", "!": "#ff6fd8", ")": "#c8d0ff", "[": "#7fd1ff", '"': "#ff4d6d" };

function floor(ctx, x, y, s, lit) {
  ctx.fillStyle = lit ? "#2a2636" : "#1f1c29";
  ctx.fillRect(x, y, s, s);
  ctx.fillStyle = "#3b3550";
  ctx.fillRect(x + s / 2 - 1, y + s / 2 - 1, 2, 2);
}

function wall(ctx, x, y, s) {
  ctx.fillStyle = "#59607a";
  ctx.fillRect(x, y, s, s);
  ctx.fillStyle = "#6d7594";
  ctx.fillRect(x, y, s, 3);
  ctx.strokeStyle = "#444a60";
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

export function drawCogcrawl(host, observation, { size = 18, crop = false } = {}) {
  const rows = observation.map;
  const view = crop ? seenBounds(rows, 2) : { top: 0, left: 0, rows: rows.length, cols: rows[0].length };
  const width = view.cols * size;
  const height = view.rows * size;
  const ctx = makeCanvas(host, width, height);
  ctx.fillStyle = "#0d0b12";
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
          ctx.fillStyle = "#232030";
          ctx.fillRect(x + 1, y + 1, size - 2, size - 2);
          ctx.fillStyle = "#2e2a3e";
          ctx.fillRect(x + 3 + speckle(c, r) * 6, y + 4, 3, 3);
          return;
        case "+":
        case "'":
          floor(ctx, x, y, size, true);
          ctx.fillStyle = g === "+" ? "#8a5a2b" : "#5a3a1b";
          ctx.fillRect(x + 2, y + 2, size - 4, size - 4);
          if (g === "'") {
            ctx.fillStyle = "#2a2636";
            ctx.fillRect(x + 5, y + 4, size - 10, size - 8);
          }
          return;
        case "}":
          ctx.fillStyle = speckle(c, r) > 0.5 ? "#ff5a1f" : "#e03a12";
          ctx.fillRect(x, y, size, size);
          ctx.fillStyle = "#ffb347";
          ctx.fillRect(x + speckle(r, c) * (size - 4), y + size / 2, 4, 2);
          return;
        default:
          break;
      }
      floor(ctx, x, y, size, true);
      if (g === "<" || g === ">") {
        ctx.fillStyle = "#1a1624";
        ctx.fillRect(x + 2, y + 2, size - 4, size - 4);
        glyph(ctx, g, x, y, size, "#9fffa8");
      } else if (g === "@") {
        const grad = ctx.createRadialGradient(x + size / 2, y + size / 2, 1, x + size / 2, y + size / 2, size);
        grad.addColorStop(0, "rgba(255,225,77,0.55)");
        grad.addColorStop(1, "rgba(255,225,77,0)");
        ctx.fillStyle = grad;
        ctx.fillRect(x - size / 2, y - size / 2, size * 2, size * 2);
        glyph(ctx, "@", x, y, size, "#ffe14d");
      } else if (ITEM_COLORS[g]) {
        glyph(ctx, g, x, y, size, ITEM_COLORS[g]);
      } else if (g !== ".") {
        ctx.fillStyle = "#5c1a2a";
        roundRect(ctx, x + 1, y + 1, size - 2, size - 2, 4);
        ctx.fill();
        glyph(ctx, g, x, y, size, "#ff8fa3");
      }
    });
  });
  for (const m of monsters.values()) {
    if (m.hp !== undefined && m.max_hp) {
      const x = m.x * size;
      const y = m.y * size;
      ctx.fillStyle = "#00000099";
      ctx.fillRect(x, y - 3, size, 3);
      ctx.fillStyle = "#ff4d6d";
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
