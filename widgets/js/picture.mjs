// picture: renderSvg, the whole picture as one SVG string (pure), and its shared defs.
import { LIMITS, PAD, W_DEFAULT } from "./geometry.mjs";
import { clip, esc } from "./state.mjs";
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

/**
 * The whole picture as an SVG string. `ui`: {zoom: {regionId: [lo, hi]}, flash: changes, width, uid}.
 * Its cost is bounded by LIMITS, whatever the layouts, sizes and number of views.
 */
export function renderSvg(state, ui = {}) {
  const width = ui.width || state.width || W_DEFAULT;
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
    parts.push(`<text class="pti-gone" x="${PAD}" y="${y + 12}">freed: ${esc(clip(text, 140))}</text>`);
    y += 20;
  }
  const [legend, legendH] = legendSvg(y, width, frame.ids, frame.ordered, frame.files);
  parts.push(legend);
  y += legendH;
  const gen = state.generation ?? 0, tick = (ui.flash && ui.flash.tick) || 0;
  return `<svg class="pti-svg" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y}" ` +
    `viewBox="0 0 ${width} ${y}" data-generation="${gen}" data-flash="${tick}"${ui.past ? ` data-past="true"` : ""} role="img" ` +
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
