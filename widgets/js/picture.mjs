// picture: renderSvg, the whole picture as one SVG string (pure), and its shared defs.
import { CHAR_W, LIMITS, PAD, SIZES, W_DEFAULT } from "./geometry.mjs";
import { esc } from "./state.mjs";
import { wrapText } from "./values.mjs";
import { legendSvg } from "./table.mjs";
import { regionSvg } from "./region.mjs";

function frameOf(state, ui) {
  const uid = ui.uid == null ? "pti" : `pti-${String(ui.uid).replace(/[^A-Za-z0-9_-]/g, "_")}`;
  const ovByView = new Map();
  for (const ov of state.overlaps || []) {
    for (const id of [ov.a, ov.b]) {
      if (!ovByView.has(id)) ovByView.set(id, []);
      ovByView.get(id).push(ov);
    }
  }
  return {
    ids: { hatch: `${uid}-hatch`, unk: `${uid}-unk` },
    work: { left: LIMITS.frameBudget, cells: LIMITS.frameCells, lanes: LIMITS.lanes },
    ovByView,
    changedViews: new Set((ui.flash && ui.flash.views) || []),
  };
}

const MAX_GONE = 20;
const MIN_UNITS = 560;     // narrowest picture drawn, in units: a narrower page scrolls it sideways

/**
 * The whole picture as an SVG string. `ui`: {zoom: {regionId: [lo, hi]}, flash: changes, width, uid}.
 * Its cost is bounded by LIMITS, whatever the layouts, sizes and number of views.
 */
export function renderSvg(state, ui = {}) {
  // drawn at `width / zoom` units, shown `width` pixels wide: the size control magnifies every part alike
  const zoom = SIZES[ui.size] || 1, px = ui.width || state.width || W_DEFAULT;
  const width = Math.max(MIN_UNITS, Math.round(px / zoom));
  const frame = frameOf(state, ui);
  const parts = [];
  let y = 8;
  (state.regions || []).forEach((r, k) => {
    const [svg, next] = regionSvg(state, r, k, ui, y, width, frame);
    parts.push(svg);
    y = next;
  });
  if (!(state.regions || []).length) {
    parts.push(`<text class="pti-title" x="${PAD}" y="${y + 14}">nothing to show: every inspected object has been freed</text>`);
    y += 24;
  }
  const gone = state.gone || [];
  if (gone.length) {
    const text = gone.slice(0, MAX_GONE).map((g) => `${g.name} (${g.note})`).join(", ") +
      (gone.length > MAX_GONE ? `, and ${gone.length - MAX_GONE} more` : "");
    // one text, wrapped (never cut): each line a tspan, the space at each break kept
    const lines = wrapText(`freed: ${text}`, Math.floor((width - 2 * PAD) / CHAR_W));
    parts.push(`<text class="pti-gone" x="${PAD}" y="${y + 12}">` + lines.map((t, k) =>
      `<tspan x="${PAD}" dy="${k ? 14 : 0}">${esc(t)}${k < lines.length - 1 ? " " : ""}</tspan>`).join("") + `</text>`);
    y += 6 + 14 * lines.length;
  }
  const [legend, legendH] = legendSvg(y, width, frame.ids, frame.ordered, frame.files);
  parts.push(legend);
  y += legendH;
  const gen = state.generation ?? 0, tick = (ui.flash && ui.flash.tick) || 0;
  return `<svg class="pti-svg" xmlns="http://www.w3.org/2000/svg" width="${Math.round(width * zoom)}" ` +
    `height="${Math.round(y * zoom)}" viewBox="0 0 ${width} ${y}" data-size="${ui.size || "small"}" data-generation="${gen}" data-flash="${tick}"${ui.past ? ` data-past="true"` : ""} role="img" ` +
    `aria-label="pytensor memory inspector">` + defs(frame.ids) + parts.join("") + `</svg>`;
}

function defs(ids) {
  return `<defs><pattern id="${ids.hatch}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
    `<rect width="6" height="6" fill="rgba(230,57,70,0.05)"/><line x1="0" y1="0" x2="0" y2="6" stroke="rgba(230,57,70,0.35)" stroke-width="1.2"/></pattern>` +
    `<pattern id="${ids.unk}" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
    `<rect width="4" height="4" fill="#f1f3f5"/><line x1="0" y1="0" x2="0" y2="4" stroke="#ced4da" stroke-width="1"/></pattern></defs>`;
}

// ------------------------------------------------------------------ interactive view (DOM)
/**
 * Where a tooltip of size w x h goes for a pointer at (mx, my) in a vw x vh
 * viewport: below-right of the pointer, shifted left at the right edge,
 * flipped above the pointer at the bottom edge, never outside the viewport.
 */
