// What the pages say to a person: each game's events as sentences, its commands and keys
// as words. The API keeps its machine names (hop downLeft, levelClear); only the pages
// speak this way. A game without words of its own falls back to plain "name: value" text.

const DIRECTION_WORDS = {
  upLeft: "up-left",
  upRight: "up-right",
  downLeft: "down-left",
  downRight: "down-right",
  n: "north",
  s: "south",
  e: "east",
  w: "west",
  ne: "north-east",
  nw: "north-west",
  se: "south-east",
  sw: "south-west",
};

export const direction = (dir) => DIRECTION_WORDS[dir] || dir;
const cell = (at) => (at && "row" in at ? `row ${at.row + 1}, column ${at.col + 1}` : "");
const points = (n) => (n ? ` (+${n})` : "");
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
// "someName" -> "some name"
export const spaced = (name) => name.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();

// Each game's events as sentences; null: the event says nothing a person needs (its move
// is seen on the board, or the game's own messages already tell it).
const EVENTS = {
  delvewick: {
    move: () => null,
    wait: () => null,
    dig: () => null,
    fall: () => null,
    roll: () => null,
    land: () => null,
    push: (e) => `You push the ${e.object}.`,
    collect: (e) => `Gem!${points(e.points)}${e.chain > 1 ? ` Chain of ${e.chain}.` : ""}`,
    caught: (e) => `You catch a falling gem${points(e.points)}.`,
    crack: (e) => `A boulder cracks a geode open${points(e.points)}.`,
    crushed: (e) => `Crushed by a falling ${e.object}!`,
    exitOpen: () => "Enough gems: the exit is open.",
    levelClear: (e) => `Level ${e.level}, ${e.name}, cleared${points(e.points)}, with ${e.oilLeft} oil left.`,
    levelStart: (e) => `Level ${e.level}: ${e.name}.`,
    outOfOil: () => "The lamp is out of oil: the run is over.",
    boxedIn: () => "Boxed in: no move is left.",
    won: (e) => `All levels cleared!${points(e.points)}`,
  },
  chimestep: {
    start: (e) => `Stage ${e.stage}: get ready.`,
    stageStart: (e) => `Stage ${e.stage}: ring every tile to level ${e.target}.`,
    play: () => "Back in play.",
    hop: () => null,
    tick: () => null,
    land: () => null,
    buffer: (e) => `Hop ${direction(e.dir)} queued: it goes as soon as the chick can hop.`,
    ring: (e) => `Ring!${points(e.points)}${e.chain > 1 ? ` Chain of ${e.chain}.` : ""}`,
    teeter: (e) => `Teetering on the rim: hop ${direction(e.dir)} again and the chick leaps off.`,
    teeterClear: () => null,
    teeterEnd: () => null,
    leap: () => "The chick leaps off the pyramid!",
    lifeLost: (e) => `A life lost: ${plural(e.lives, "life", "lives")} left.`,
    damped: (e) => `A ${e.kind} damped you back to the top.`,
    muffle: (e) => `A muffle dulled the tile at ${cell(e)}.`,
    rollOff: () => null,
    spawn: (e) => `A ${e.kind} appears.`,
    disperse: () => "A muffle fades away.",
    toll: (e) => `The bell tolls: ${plural(e.scattered, "Hush", "Hush")} scattered.`,
    scatter: (e) => `A ${e.kind} scatters${points(e.points)}.`,
    charge: (e) => `The bell charges: ${plural(e.charges, "toll")} ready.`,
    stageClear: (e) => `Stage ${e.stage} cleared in ${e.stageHops} hops (par ${e.par})${points(e.points)}.`,
    gameOver: (e) => `The run is over with ${e.score} points.`,
  },
  "gem-swap": {
    select: (e) => `${e.cell} picked: now click a neighbour to swap with it.`,
    deselect: () => "Nothing picked.",
    swap: (e) => `Swapped ${e.cells[0]} and ${e.cells[1]}.`,
    cascade: (e) => `${e.step > 1 ? `Cascade ×${e.step}: ` : ""}${plural(e.cleared.length, "gem")} cleared${points(e.points)}.`,
    hint: (e) => `Hint: ${e.swap.replace(/^swap /, "")} clears ${plural(e.gems, "gem")} (the hint cost ${e.cost} points).`,
    moves: (e) => `${plural(e.count, "swap")} can make a line now.`,
    reshuffle: () => "No swap was left: the board is reshuffled.",
    gameOver: (e) => `Game over: ${e.score} points.`,
  },
  cogcrawl: {
    say: () => null,
    killed: () => null,
    found: (e) => `You find a hidden way at ${e.x},${e.y}.`,
    level: (e) => `You reach dungeon level ${e.dl}.`,
    died: (e) => `You die: ${e.cause}.`,
    left: () => "You leave the dungeon.",
    won: () => "You carry the Cogheart out: a win!",
  },
};

// A plain sentence for an event a game gives no words for.
function plainEvent(event) {
  const parts = [];
  for (const [key, value] of Object.entries(event)) {
    if (key === "type" || key === "points") continue;
    if (value === null || typeof value !== "object") parts.push(`${spaced(key)} ${value}`);
    else if (!Array.isArray(value) && "row" in value) parts.push(`${spaced(key)} ${cell(value)}`);
  }
  const head = capital(spaced(event.type));
  return `${head}${parts.length ? `: ${parts.join(", ")}` : ""}${points(event.points)}.`;
}

// The sentence for one event of a game, or null when there is nothing to tell.
export function eventText(slug, event) {
  const words = (EVENTS[slug] || {})[event.type];
  return words ? words(event) : plainEvent(event);
}

// A command as words: "hop downLeft" -> "hop down-left", "tick ..." -> "tick N ticks".
export function commandText(command, prompt = "...") {
  if (command === prompt) return "type a command";
  const open = command.endsWith(prompt);
  const words = command
    .replace(prompt, "")
    .trim()
    .split(" ")
    .map((word) => direction(word));
  const verb = words.join(" ");
  if (!open) return verb;
  const what = { tick: "let N ticks pass", swap: "swap: type the cells", select: "pick a cell", travel: "travel: type x y" }[words[0]];
  return what || `${verb}: pick an item`;
}

// A refusal as a person reads it.
export function refusalText(reason) {
  return capital(reason.replace(/\b(upLeft|upRight|downLeft|downRight)\b/g, direction).replace(/\b([a-z]+[A-Z][a-zA-Z]*)\b/g, spaced));
}

// Key names as printed on a keyboard.
export const KEY_WORDS = {
  KEY_UP: "↑",
  KEY_DOWN: "↓",
  KEY_LEFT: "←",
  KEY_RIGHT: "→",
  KEY_HOME: "Home",
  KEY_END: "End",
  KEY_PPAGE: "Page Up",
  KEY_NPAGE: "Page Down",
  " ": "space",
  "\n": "Enter",
};
export const keyText = (key) => KEY_WORDS[key] || key.replace(/^KEY_/, "");
