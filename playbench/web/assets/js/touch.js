// A touch screen without a mouse (a phone, a tablet): its words are taps, not keys. The
// same query hides the key list in arena.css.
export const touchScreen = () => matchMedia("(hover: none) and (pointer: coarse)").matches;
