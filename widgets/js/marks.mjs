// marks: the small drawn pieces that regions, lanes and the order path share (padlock, tints, budget note).
// ------------------------------------------------------------------ SVG drawing
// A padlock drawn in SVG (emoji fonts are missing on many machines).
export function lockSvg(x, y) {
  return `<g class="pti-lock" transform="translate(${x},${y})"><path d="M2.5 5 V3.5 a2.5 2.5 0 0 1 5 0 V5" />` +
    `<rect x="1" y="5" width="8" height="6.5" rx="1"/></g>`;
}

/** Element cells are opaque tints of the view's colour, so their text reads the same on any theme. */
export function tint(hex, a = 0.55) {
  const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return "#" + c.map((x) => Math.round(x * a + 255 * (1 - a)).toString(16).padStart(2, "0")).join("");
}

export const SPENT = "this picture's work budget is spent";
