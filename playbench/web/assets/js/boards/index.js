// Each game's board painter, status fields and state word, and for its play page a line
// on how to play and a legend where the board needs one; a game without a painter of
// its own is drawn from its picture (boards/picture.js), or shown as its text board.
import { chimestepGuide, chimestepState, chimestepStatus, drawChimestep } from "./chimestep.js";
import { cogcrawlGuide, cogcrawlLegend, cogcrawlState, cogcrawlStatus, drawCogcrawl } from "./cogcrawl.js";
import { delvewickGuide, delvewickLegend, delvewickState, delvewickStatus, drawDelvewick } from "./delvewick.js";
import { drawGemSwap, gemswapGuide, gemswapLegend, gemswapState, gemswapStatus } from "./gemswap.js";
import { pictureOf, picturePainter } from "./picture.js";

function drawText(host, observation, { text } = {}) {
  const pre = document.createElement("pre");
  pre.className = "text-board";
  pre.textContent = text || JSON.stringify(observation, null, 1);
  host.replaceChildren(pre);
}

const PAINTERS = {
  delvewick: { draw: drawDelvewick, status: delvewickStatus, state: delvewickState, guide: delvewickGuide, legend: delvewickLegend },
  chimestep: { draw: drawChimestep, status: chimestepStatus, state: chimestepState, guide: chimestepGuide },
  "gem-swap": { draw: drawGemSwap, status: gemswapStatus, state: gemswapState, guide: gemswapGuide, legend: gemswapLegend },
  cogcrawl: { draw: drawCogcrawl, status: cogcrawlStatus, state: cogcrawlState, guide: cogcrawlGuide, legend: cogcrawlLegend },
};

const TEXT = {
  draw: drawText,
  status: () => [],
  state: (observation) => observation.status || "",
};

export function painter(slug) {
  if (PAINTERS[slug]) return PAINTERS[slug];
  const picture = pictureOf(slug);
  return picture ? picturePainter(picture) : TEXT;
}

// A small picture of a board for the home page's cards.
export function thumbnail(slug, host, observation) {
  const small = {
    delvewick: { size: 16 },
    chimestep: { tileW: 40, phase: false },
    "gem-swap": {},
    cogcrawl: { size: 16, crop: true },
  }[slug];
  painter(slug).draw(host, observation, small || { size: 16 });
}
