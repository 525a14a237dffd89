// Gem Swap: an 8x8 board of gems (SVG). Every cell carries data-cell="C4"; a click on
// a cell calls onCell(name). Gems that changed since the last frame drop in, row by
// row, so a cascade is seen falling.
import { palette, shade } from "./palette.js";

const SVG = "http://www.w3.org/2000/svg";
const LETTERS = "ABCDEFGH";
const COLORS = Object.fromEntries(
  Object.entries(palette["gem-swap"].gems).map(([letter, hex]) => [letter, [shade(hex, 0.15), shade(hex, -0.45)]]),
);
const SHAPES = {
  R: "M0,-15 L13,-4 L8,13 L-8,13 L-13,-4 Z",
  G: "M-12,-12 L12,-12 L12,12 L-12,12 Z",
  B: "M0,-15 L15,0 L0,15 L-15,0 Z",
  Y: "M0,-15 L4,-5 L15,-5 L6,2 L10,14 L0,7 L-10,14 L-6,2 L-15,-5 L-4,-5 Z",
  O: "M-7,-14 L7,-14 L14,0 L7,14 L-7,14 L-14,0 Z",
  P: "M0,-15 L14,12 L-14,12 Z",
  W: "M0,-14 A14,14 0 1,1 -0.1,-14 Z",
};
const CELL = 56;
const MARGIN = 24;

function node(name, attrs, parent) {
  const el = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
  if (parent) parent.appendChild(el);
  return el;
}

export const cellName = (r, c) => `${LETTERS[c]}${r + 1}`;

function gem(group, token, id) {
  if (token === "@") {
    const grad = node("radialGradient", { id: `bomb-${id}` }, group);
    node("stop", { offset: "0%", "stop-color": "#ffffff" }, grad);
    node("stop", { offset: "55%", "stop-color": shade(COLORS["@"][0], 0.35) }, grad);
    node("stop", { offset: "100%", "stop-color": COLORS["@"][0] }, grad);
    node("circle", { r: 16, fill: `url(#bomb-${id})`, stroke: "#ffd35e", "stroke-width": 2 }, group);
    for (let k = 0; k < 6; k++) {
      const a = (k * Math.PI) / 3;
      node("circle", { cx: 9 * Math.cos(a), cy: 9 * Math.sin(a), r: 2.5, fill: Object.values(COLORS)[k % 7][0] }, group);
    }
    return;
  }
  const [light, dark] = COLORS[token[0]] || ["#999", "#444"];
  node("path", { d: SHAPES[token[0]] || SHAPES.W, fill: light, stroke: dark, "stroke-width": 2.5 }, group);
  node("path", { d: "M-6,-9 L2,-9 L-2,-3 Z", fill: "#ffffffb0" }, group);
  const kind = token.slice(1);
  if (kind === "-") {
    node("rect", { x: -17, y: -2.5, width: 34, height: 5, fill: "#ffffffd0", rx: 2 }, group);
  } else if (kind === "|") {
    node("rect", { x: -2.5, y: -17, width: 5, height: 34, fill: "#ffffffd0", rx: 2 }, group);
  } else if (kind === "+") {
    node("circle", { r: 19, fill: "none", stroke: "#ffffffd0", "stroke-width": 3, "stroke-dasharray": "4 3" }, group);
  }
}

export function drawGemSwap(host, observation, { previous = null, onCell = null, hint = null } = {}) {
  const rows = observation.board;
  const size = rows.length * CELL;
  // the coordinates take MARGIN on the left and top; as much on the right keeps the gems centred
  const svg = node("svg", { viewBox: `-${MARGIN} -${MARGIN} ${size + 2 * MARGIN} ${size + MARGIN + 4}`, width: size + 2 * MARGIN, role: "grid" });
  svg.classList.add("gems");
  node("rect", { x: -4, y: -4, width: size + 8, height: size + 8, rx: 12, fill: palette["gem-swap"].background }, svg);
  rows.forEach((row, r) => {
    const label = node("text", { x: -14, y: r * CELL + CELL / 2 + 5, "text-anchor": "middle", class: "coord" }, svg);
    label.textContent = String(r + 1);
    row.forEach((token, c) => {
      if (r === 0) {
        const top = node("text", { x: c * CELL + CELL / 2, y: -10, "text-anchor": "middle", class: "coord" }, svg);
        top.textContent = LETTERS[c];
      }
      const name = cellName(r, c);
      const cell = node("g", { "data-cell": name, "data-gem": token, transform: `translate(${c * CELL},${r * CELL})`, class: "cell" }, svg);
      node("rect", { x: 2, y: 2, width: CELL - 4, height: CELL - 4, rx: 9, class: (r + c) % 2 ? "tile dark" : "tile" }, cell);
      if (observation.selected === name) cell.classList.add("selected");
      if (hint && hint.includes(name)) cell.classList.add("hinted");
      const inner = node("g", { transform: `translate(${CELL / 2},${CELL / 2})` }, cell);
      const changed = previous && previous[r] && previous[r][c] !== token;
      if (changed) {
        inner.classList.add("drop");
        inner.style.animationDelay = `${(rows.length - r) * 35}ms`;
      }
      gem(inner, token, name);
      if (onCell) cell.addEventListener("click", () => onCell(name));
    });
  });
  host.replaceChildren(svg);
}

export function gemswapStatus(observation) {
  const rows = [
    ["moves left", observation.movesLeft],
    ["moves made", observation.movesMade],
    ["selected", observation.selected || "none"],
  ];
  // a bought hint stands until the next swap
  if (observation.hint) {
    rows.push(["hint", `${observation.hint.swap} (${observation.hint.gems} gems)`]);
  }
  return rows;
}

export function gemswapState(observation) {
  return observation.gameOver ? "over" : "playing";
}

export const gemswapGuide = {
  keys: "Click a gem, then a neighbouring gem to swap them (or type swap C4 right): a swap must line up three or more of a colour.",
  touch: "Tap a gem, then a neighbouring gem to swap them: a swap must line up three or more of a colour.",
};

const SPECIALS = [
  ["R-", "line blaster (4 in a row): clears its row"],
  ["R|", "line blaster (4 in a column): clears its column"],
  ["R+", "area bomb (an L, T or + of a colour): clears around it"],
  ["@", "color bomb (5 in a line): swap it to clear every gem of a colour"],
];

// The specials, drawn as on the board, with what each does when set off.
export function gemswapLegend(host) {
  host.replaceChildren();
  SPECIALS.forEach(([token, words], index) => {
    const item = document.createElement("div");
    item.className = "legend-item";
    const picture = document.createElement("span");
    picture.className = "legend-picture";
    const svg = node("svg", { viewBox: "-20 -20 40 40", width: 30, height: 30, class: "gems" });
    gem(node("g", {}, svg), token, `legend-${index}`);
    picture.append(svg);
    const label = document.createElement("span");
    label.textContent = words;
    item.append(picture, label);
    host.append(item);
  });
  const note = document.createElement("p");
  note.className = "note";
  note.textContent = "R stands for any colour. A special appears on the gem you moved; it goes off when a line clears it.";
  host.append(note);
}
