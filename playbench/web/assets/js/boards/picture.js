// Any game's board from its picture: the palette in the game's folder names the
// observation field that holds the board ("board": rows of glyphs, as strings or arrays
// of tokens), a colour for each glyph ("cells"), a word for it ("labels") and the
// background. Each glyph is a square of its colour with the glyph drawn on it.
import { makeCanvas, roundRect } from "./canvas.js";
import { palette, shade } from "./palette.js";

// The game's picture, or null when its palette does not describe its board.
export function pictureOf(slug) {
  const found = palette[slug];
  return found && found.board && found.cells ? found : null;
}

function rowsOf(observation, picture) {
  const rows = observation[picture.board];
  if (!Array.isArray(rows)) return [];
  return rows.map((row) => (typeof row === "string" ? [...row] : row.map(String)));
}

function cell(ctx, picture, glyph, x, y, size) {
  const colour = picture.cells[glyph];
  ctx.fillStyle = colour || picture.background;
  roundRect(ctx, x + 1, y + 1, size - 2, size - 2, Math.max(2, size / 6));
  ctx.fill();
  if (size < 14 || glyph === " ") return;
  ctx.fillStyle = colour ? shade(colour, -0.55) : "#e0e0e0";
  ctx.font = `${Math.round(size * 0.55)}px monospace`;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(glyph, x + size / 2, y + size / 2 + 1);
}

export function drawPicture(picture, host, observation, { size = 32 } = {}) {
  const rows = rowsOf(observation, picture);
  const columns = Math.max(1, ...rows.map((row) => row.length));
  const ctx = makeCanvas(host, columns * size, Math.max(1, rows.length) * size);
  ctx.canvas.dataset.testid = "picture-board";
  ctx.fillStyle = picture.background;
  ctx.fillRect(0, 0, columns * size, rows.length * size);
  rows.forEach((row, r) => row.forEach((glyph, c) => cell(ctx, picture, glyph, c * size, r * size, size)));
}

// The glyphs' words beside their squares, for the play page.
export function drawLegend(picture, host) {
  host.replaceChildren();
  for (const [glyph, words] of Object.entries(picture.labels || {})) {
    const item = document.createElement("div");
    item.className = "legend-item";
    const square = document.createElement("span");
    square.className = "legend-picture";
    drawPicture(picture, square, { [picture.board]: [glyph] }, { size: 26 });
    const label = document.createElement("span");
    label.textContent = words;
    item.append(square, label);
    host.append(item);
  }
}

// A painter (as boards/index.js hands them out) for a game with a picture.
export function picturePainter(picture) {
  return {
    draw: (host, observation, options) => drawPicture(picture, host, observation, options),
    status: () => [],
    state: (observation) => observation.status || "",
    legend: picture.labels ? (host) => drawLegend(picture, host) : undefined,
  };
}
