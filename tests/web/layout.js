// What a person would see wrong on the page as it is drawn now: a page wider than the
// window, a word or a control cut off, two things drawn over each other, a panel with
// nothing in it. Returns one line per problem (an empty list: none).
() => {
  const problems = [];
  const root = document.documentElement;
  const width = root.clientWidth;
  const name = (el) => {
    const id = el.id ? `#${el.id}` : "";
    const cls = typeof el.className === "string" && el.className ? `.${el.className.trim().split(/\s+/).join(".")}` : "";
    const text = (el.innerText || el.value || el.placeholder || "").trim().slice(0, 30);
    return `${el.tagName.toLowerCase()}${id}${cls}${text ? ` "${text}"` : ""}`;
  };
  const shown = (el) => {
    if (el.closest("[hidden]")) return false;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none" || Number(style.opacity) === 0) return false;
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  };

  if (root.scrollWidth > width + 1) problems.push(`the page is ${root.scrollWidth}px wide in a ${width}px window`);

  const READ = "a, button, input, textarea, select, label, h1, h2, h3, p, dt, dd, kbd, li, th, td, pre, .score, .status-word, .board canvas, .board > svg, .board-thumb canvas, .board-thumb > svg, .legend-item";
  const items = [...document.querySelectorAll(READ)].filter((el) => shown(el) && !el.closest(".swagger-ui"));

  for (const el of items) {
    const box = el.getBoundingClientRect();
    if (box.left < -1 || box.right > width + 1) problems.push(`${name(el)} reaches past the window (${Math.round(box.left)}..${Math.round(box.right)} of ${width})`);
    // clipped by a box around it that hides what sticks out
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      const style = getComputedStyle(up);
      const outer = up.getBoundingClientRect();
      const clipsX = ["hidden", "clip"].includes(style.overflowX);
      const clipsY = ["hidden", "clip"].includes(style.overflowY);
      if ((clipsX && (box.left < outer.left - 1 || box.right > outer.right + 1)) || (clipsY && (box.top < outer.top - 1 || box.bottom > outer.bottom + 1))) {
        problems.push(`${name(el)} is cut off by ${name(up)}`);
        break;
      }
      if (up.tagName !== "PRE" && ["auto", "scroll"].includes(style.overflowX) && up.scrollWidth > up.clientWidth + 1) {
        problems.push(`${name(up)} scrolls sideways (${up.scrollWidth}px in ${up.clientWidth}px)`);
        break;
      }
    }
    // its own text wider than its box
    const style = getComputedStyle(el);
    if (["BUTTON", "INPUT", "SELECT"].includes(el.tagName) || ["hidden", "clip"].includes(style.overflowX)) {
      if (el.scrollWidth > el.clientWidth + 1) problems.push(`${name(el)} has text wider than its box`);
    }
    if ((el.tagName === "INPUT" || el.tagName === "TEXTAREA") && el.placeholder && !el.value) {
      const ctx = document.createElement("canvas").getContext("2d");
      ctx.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      const lines = el.tagName === "TEXTAREA" ? Math.max(1, Math.floor(el.clientHeight / parseFloat(style.lineHeight || style.fontSize))) : 1;
      if (ctx.measureText(el.placeholder).width > room * lines + 1) problems.push(`${name(el)}: its placeholder is cut off`);
    }
  }

  // two things drawn over each other (neither inside the other)
  const leaves = items.filter((el) => !items.some((other) => other !== el && el.contains(other)));
  const boxes = leaves.map((el) => [el, el.getBoundingClientRect()]);
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, ra] = boxes[i];
      const [b, rb] = boxes[j];
      const x = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const y = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (x > 2 && y > 2) problems.push(`${name(a)} overlaps ${name(b)}`);
    }
  }

  // a panel shown with nothing in it but its heading
  for (const panel of document.querySelectorAll(".panel")) {
    if (!shown(panel)) continue;
    const heading = panel.querySelector("h3");
    const text = panel.innerText.replace(heading ? heading.innerText : "", "").trim();
    const drawn = [...panel.querySelectorAll("canvas, svg, input, textarea, select, button")].some(shown);
    if (!text && !drawn) problems.push(`${name(panel)} is an empty panel${heading ? ` under "${heading.innerText}"` : ""}`);
  }
  return problems;
}
