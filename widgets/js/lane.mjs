// lane: one view's lane: label, footprint, overlaps, element cells or an overview run.
import { CHAR_W, IDX_CHAR_W, LABEL_W, LIMITS, PAD, PALETTE } from "./geometry.mjs";
import { abbreviate, cellLabel, indicesText } from "./values.mjs";
import { chainText, clip, esc, isCopied, isTemporary, shapeText, valueAt } from "./state.mjs";
import { lockSvg, tint } from "./marks.mjs";
import { orderSvg, overviewRun, summaryLane } from "./order.mjs";

export function laneSvg(state, r, v, o, frame) {
  const { z0, z1, sx, y, detail, scale } = o;
  const parts = [], temp = isTemporary(v), color = v.color || PALETTE[0];
  const tags = (v.tags || []).join(" \u00b7 ");
  const mark = v.max_hits > 1 ? ` \u27f2\u00d7${abbreviate(String(v.max_hits), 5)}` : v.self_overlap === null ? " \u27f2?" : "";
  const name = clip(String(v.name), 14);
  const copied = isCopied(v), chain = chainText(v);
  const shapeRoom = Math.max(6, 32 - name.length - (temp ? 10 : 0) - (copied ? 7 : 0));
  const title = `${v.name}: ${shapeText(v)}${temp ? ` (temporary${v.note ? `: ${v.note}` : ""})` : v.note ? ` (${v.note})` : ""}` +
    (v.lineage_text ? `\n${v.lineage_text}` : "") + (v.origin && v.origin.text ? `\n${v.origin.text}` : "");
  const line2 = [chain, tags].filter(Boolean).join(" \u00b7 ");
  parts.push(`<g class="pti-label" data-view="${esc(v.id)}"><title>${esc(title)}</title>` +
    `<rect class="pti-swatch${temp ? " pti-swatch-temp" : ""}" x="${PAD}" y="${y + 2}" width="6" height="22" fill="${color}"` +
    `${temp ? ` stroke="${color}"` : ""}/>` +
    `<text class="pti-name" x="${PAD + 10}" y="${y + 11}">${esc(name)}` +
    `${temp ? ` <tspan class="pti-temp-tag">temporary</tspan>` : ""}` +
    `${copied ? ` <tspan class="pti-copied-tag">copied</tspan>` : ""} ` +
    `<tspan class="pti-dim">${esc(clip(shapeText(v), shapeRoom))}</tspan></text>` +
    (v.readonly ? lockSvg(LABEL_W - 8, y + 1) : "") +
    `<text class="pti-tags" x="${PAD + 10}" y="${y + 23}">${esc(clip(line2, 31 - mark.length))}` +
    `<tspan class="pti-mark">${mark}</tspan></text></g>`);
  const x = (off) => sx + (Math.min(Math.max(off, z0), z1) - z0) * scale;
  const [f0, f1] = v.footprint;
  if (f1 > z0 && f0 < z1 && f1 > f0) {
    parts.push(`<rect class="pti-fp" data-view="${esc(v.id)}" x="${x(f0).toFixed(2)}" y="${y + 2}" ` +
      `width="${Math.max(1, x(f1) - x(f0)).toFixed(2)}" height="24" stroke="${color}"/>`);
  }
  // Hatching goes over the opaque cells (it would hide under them) and under their values.
  const body = detail ? detailCells(r, v, o, frame, x) : summaryLane(v, o, x, frame);
  parts.push(body.svg, overlapRects(state, v, frame, x, y, z0, z1), body.labels || "");
  const cls = ["pti-lane", v.self_overlap ? "pti-selfovl" : "", v.in_bounds === false ? "pti-oob" : "",
    temp ? "pti-temp" : "", copied ? "pti-copied" : "", body.overview ? "pti-overview" : "",
    o.flash ? "pti-flash" : ""].filter(Boolean).join(" ");
  return `<g class="${cls}" data-view="${esc(v.id)}" data-name="${esc(v.name)}" data-region="${esc(r.id)}"` +
    `${o.flash ? o.tickAttr : ""}>` + parts.join("") + `</g>`;
}

/** Hatched stretches where this view's footprint meets another's; many neighbours merge into pixel runs. */
function overlapRects(state, v, frame, x, y, z0, z1) {
  const list = (frame.ovByView.get(v.id) || []).filter((ov) => ov.shared_bytes !== 0 && ov.hi > z0 && ov.lo < z1);
  const fill = `fill="url(#${frame.ids.hatch})"`;
  const other = (ov) => { const w = state.viewById[ov.a === v.id ? ov.b : ov.a]; return w ? w.name : "?"; };
  const rect = (p0, p1, title) => `<rect class="pti-ovl" x="${p0.toFixed(2)}" y="${y + 2}" width="${Math.max(1, p1 - p0).toFixed(2)}" ` +
    `height="24" ${fill}><title>${esc(title)}</title></rect>`;
  if (list.length <= LIMITS.laneOverlaps) {
    return list.map((ov) => rect(x(ov.lo), x(ov.hi), `overlaps ${other(ov)}: bytes [${ov.lo}, ${ov.hi})` +
      `${ov.shared_bytes == null ? "" : `, ${ov.shared_bytes} B shared`}`)).join("");
  }
  const runs = [];
  for (const ov of [...list].sort((p, q) => p.lo - q.lo)) {
    const p0 = x(ov.lo), p1 = x(ov.hi), last = runs[runs.length - 1];
    if (last && p0 <= last.p1 + 0.5) {
      last.p1 = Math.max(last.p1, p1); last.hi = Math.max(last.hi, ov.hi); last.n += 1;
      if (last.names.length < 4) last.names.push(other(ov));
    } else runs.push({ p0, p1, lo: ov.lo, hi: ov.hi, n: 1, names: [other(ov)] });
  }
  return runs.map((u) => rect(u.p0, u.p1, `overlaps ${u.names.join(", ")}${u.n > u.names.length ?
    ` and ${u.n - u.names.length} more` : ""}: bytes [${u.lo}, ${u.hi})`)).join("");
}

/**
 * A lane's elements in detail mode: one cell per distinct start, its value abbreviated to fit.
 * With the order path on, each cell also gets its indices above it and the lane the path that
 * visits its cells in logical (row-major index) order.
 */
function detailCells(r, v, o, frame, x) {
  const els = o.els;
  const [f0, f1] = v.footprint;
  const a = Math.max(o.z0, f0), b = Math.min(o.z1, f1);
  if (typeof els === "string") return b > a && v.numel ? { svg: overviewRun(v, o, x, a, b, els), overview: true } : { svg: "" };
  const byStart = new Map();
  for (const e of els) { if (!byStart.has(e.start)) byStart.set(e.start, []); byStart.get(e.start).push(e.index); }
  if (byStart.size > frame.work.cells) return { svg: overviewRun(v, o, x, a, b, "this picture's drawing budget is spent"), overview: true };
  frame.work.cells -= byStart.size;
  const parts = [], labels = [], y = o.y, fill = tint(v.color || PALETTE[0]), cells = new Map();
  for (const [start, idxs] of byStart) {
    const x0 = x(start), x1 = x(start + v.itemsize), w = Math.max(1, x1 - x0 - 1);
    cells.set(start, { cx: x0 + w / 2 + 0.5, w, n: idxs.length });
    const val = valueAt(r, v, start);
    const multi = idxs.length > 1;
    const flashed = o.hit(start, start + v.itemsize);
    const ecls = ["pti-el", multi ? "pti-multi" : "", flashed ? "pti-flash" : ""].filter(Boolean).join(" ");
    const index = idxs[0].join(",");
    const all = idxs.slice(0, LIMITS.cellIndices).map((i) => i.join(",")).join(";") + (idxs.length > LIMITS.cellIndices ? ";\u2026" : "");
    parts.push(`<rect class="${ecls}" data-view="${esc(v.id)}" data-index="${index}" data-start="${start}" ` +
      `data-hits="${idxs.length}" data-indices="${all}" x="${(x0 + 0.5).toFixed(2)}" y="${y + 5}" width="${w.toFixed(2)}" height="18" ` +
      `fill="${fill}"${flashed ? o.tickAttr : ""}/>`);
    const label = val == null ? "" : cellLabel(val, idxs.length, Math.floor((w - 3) / CHAR_W));
    if (label) {
      labels.push(`<text class="pti-val" data-view="${esc(v.id)}" data-index="${index}" x="${(x0 + w / 2 + 0.5).toFixed(2)}" ` +
        `y="${y + 18}" text-anchor="middle">${esc(label)}</text>`);
    }
    const itext = o.order ? indicesText(idxs, Math.floor((w - 2) / IDX_CHAR_W)) : "";
    if (itext) {
      labels.push(`<text class="pti-idx" data-view="${esc(v.id)}" data-index="${index}" x="${(x0 + w / 2 + 0.5).toFixed(2)}" ` +
        `y="${y - 1}" text-anchor="middle">${esc(itext)}</text>`);
    }
  }
  if (o.order) labels.push(orderSvg(v, els, cells, y + 23, Math.max(1, v.itemsize * o.scale), frame));
  if (els.truncated) labels.push(`<text class="pti-dim" x="${o.sx + o.sw}" y="${y + 12}" text-anchor="end">\u2026</text>`);
  return { svg: parts.join(""), labels: labels.join("") };
}
