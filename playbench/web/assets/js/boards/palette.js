// The games' colours, each game's palette.json (shared with the Gymnasium door's pictures),
// so a board looks the same wherever it is drawn.
export const palette = await (await fetch("/assets/palette.json")).json();

// `hex` mixed toward white (amount > 0) or black (amount < 0).
export function shade(hex, amount) {
  const value = parseInt(hex.slice(1), 16);
  const target = amount > 0 ? 255 : 0;
  const mix = (c) => Math.round(c + (target - c) * Math.abs(amount));
  const [r, g, b] = [(value >> 16) & 255, (value >> 8) & 255, value & 255].map(mix);
  return `#${((1 << 24) | (r << 16) | (g << 8) | b).toString(16).slice(1)}`;
}
