// Where a table's words are broken on the page as drawn now: a header, a cell or a cell's
// label (the column's name a phone shows beside each value) whose text is wider than its
// box, or a word of it split across two lines (a word: letters between spaces, or between
// the "/" of a path). Also any element reaching past the window's sides. One line per
// problem; an empty list: none.
() => {
  const problems = [];
  const width = document.documentElement.clientWidth;
  const name = (el) => `${el.tagName.toLowerCase()}${el.className ? "." + el.className : ""} "${(el.innerText || "").trim().slice(0, 40)}"`;
  const shown = (el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== "hidden";
  };
  let read = 0;
  for (const el of document.querySelectorAll("th, td, td .label")) {
    if (!shown(el)) continue;
    read += 1;
    if (el.scrollWidth > el.clientWidth + 1) problems.push(`${name(el)} is ${el.scrollWidth}px wide in a ${el.clientWidth}px box`);
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.data.matchAll(/[^\s/]+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) problems.push(`${name(el)}: "${word[0]}" is broken across ${lines.size} lines`);
      }
    }
  }
  for (const el of document.body.querySelectorAll("*")) {
    if (!shown(el)) continue;
    const box = el.getBoundingClientRect();
    if (box.left < -1 || box.right > width + 1) problems.push(`${name(el)} reaches past the window (${Math.round(box.left)}..${Math.round(box.right)} of ${width})`);
  }
  return { read, problems };
}
