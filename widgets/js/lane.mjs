// lane: one view's lane: label, footprint, overlaps, element cells or an overview run.
import { CHAR_W, IDX_CHAR_W, LABEL_LINE, LABEL_W, LANE_H, LIMITS, ORDER_BELOW, PAD, PALETTE } from "./geometry.mjs";
import { cellLabel, indicesText, wrapText } from "./values.mjs";
import { chainText, esc, isCopied, isTemporary, shapeText, valueAt } from "./state.mjs";
import { lockSvg, tint } from "./marks.mjs";
import { orderSvg, overviewRun, summaryLane } from "./order.mjs";

/**
 * A lane's label as lines that fit the label column, wrapped, never cut: its name (and "temporary",
 * "copied", dtype and shape), then its strides and offset, how many values it reads from how many
 * bytes with its idiom tags, then the chain it was made from. Each line is a list of [text, class]
 * pieces; the name's pieces have class "". `h` is the height the lines need.
 */
export function labelLayout(v) {
  const room = Math.floor((LABEL_W - 16) / CHAR_W);
  const tuple = (xs) => `(${xs.join(", ")}${xs.length === 1 ? "," : ""})`;
  const strides = v.strides ? tuple(v.strides) : `${tuple(v.bstrides)} B`;
  const offset = v.storage_offset ?? v.byte_offset;
  const mark = v.max_hits > 1 ? `\u27f2\u00d7${v.max_hits}` : v.self_overlap === null ? "\u27f2?" : "";
  const nvals = v.numel ?? 0, from = v.touched_bytes == null ? "?" : v.touched_bytes;
  const groups = [
    [[String(v.name), "name"], isTemporary(v) ? ["temporary", "pti-temp-tag"] : null,
      isCopied(v) ? ["copied", "pti-copied-tag"] : null, [shapeText(v), "pti-dim"]],
    [[`strides ${strides} \u00b7 offset ${offset}`, ""]],
    [[`${nvals} value${nvals === 1 ? "" : "s"} from ${from} B`, ""], ...(v.tags || []).map((t) => [`\u00b7\u00a0${t}`, ""]),   // a tag moves to the next line whole
      mark ? [mark, "pti-mark"] : null],
    [[chainText(v), ""]],
  ];
  const lines = [];
  for (const group of groups) {
    let line = null;
    for (const piece of group.filter((p) => p && p[0])) {
      const [text, cls] = piece;
      const used = line ? line.reduce((n, [t]) => n + t.length, 0) + line.length : 0;   // its pieces and a space after each
      const parts = wrapText(text, room, line ? room - used : room);
      parts.forEach((part, k) => {
        if (k > 0 || !line) { line = []; lines.push(line); }
        if (part) line.push([part, cls]);
      });
    }
  }
  return { lines: lines.filter((l) => l.length), h: 4 + LABEL_LINE * lines.filter((l) => l.length).length };
}

function labelText(layout, x, y) {
  return layout.lines.map((line, k) => {
    const isName = line[0][1] === "name";
    const body = line.map(([t, cls], j) => {
      const sep = j < line.length - 1 ? " " : "";
      return cls === "name" || (!isName && cls === "") ? esc(t) + sep : `<tspan class="${cls}">${esc(t)}</tspan>${sep}`;
    }).join("");
    return `<text class="${isName ? "pti-name" : "pti-tags"}" x="${x}" y="${y + 11 + k * LABEL_LINE}">${body}</text>`;
  }).join("");
}

export function laneSvg(state, r, v, o, frame) {
  const { z0, z1, sx, y, detail, scale } = o;
  const parts = [], temp = isTemporary(v), color = v.color || PALETTE[0];
  const copied = isCopied(v), layout = o.label || labelLayout(v);
  const title = `${v.name}: ${shapeText(v)}${temp ? ` (temporary${v.note ? `: ${v.note}` : ""})` : v.note ? ` (${v.note})` : ""}` +
    (v.lineage_text ? `\n${v.lineage_text}` : "") + (v.origin && v.origin.text ? `\n${v.origin.text}` : "");
  const pin = o.pinnable ? ` tabindex="0" role="button" aria-pressed="${!!o.pinned}" ` +
    `aria-label="show the order ${esc(v.name)} walks its elements"` : "";
  parts.push(`<g class="pti-label" data-view="${esc(v.id)}"${pin}><title>${esc(title)}</title>` +
    `<rect class="pti-swatch${temp ? " pti-swatch-temp" : ""}" x="${PAD}" y="${y + 2}" width="6" height="${Math.max(22, layout.h - 6)}" fill="${color}"` +
    `${temp ? ` stroke="${color}"` : ""}/>` + labelText(layout, PAD + 10, y) +
    (v.readonly ? lockSvg(LABEL_W - 8, y + 1) : "") + `</g>`);
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
    o.flash ? "pti-flash" : "", o.pinned ? "pti-order-pinned" : ""].filter(Boolean).join(" ");
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
  if (o.order) labels.push(orderSvg(v, els, cells, y + 23, Math.max(1, v.itemsize * o.scale), frame, (o.below ?? ORDER_BELOW) + LANE_H - 25));
  if (els.truncated) labels.push(`<text class="pti-dim" x="${o.sx + o.sw}" y="${y + 12}" text-anchor="end">\u2026</text>`);
  return { svg: parts.join(""), labels: labels.join("") };
}
