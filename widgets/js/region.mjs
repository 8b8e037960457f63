// region: one buffer's picture: header, badges, byte strip or overview, mapped-file strip, its lanes.
import {
  CHAR_W, LABEL_W, LANE_H, LIMITS, ORDER_BELOW, ORDER_ROW, PAD, elementsInWindow, pixelRuns
} from "./geometry.mjs";
import {
  byteAt, esc, fmtBytes, orderShown, regionViews, tableShown, tickLabels, visibleRange
} from "./state.mjs";
import { SPENT, lockSvg } from "./marks.mjs";
import { labelLayout, laneSvg } from "./lane.mjs";
import { walksForward } from "./order.mjs";
import { families, foldSvg, foldToggle, folded } from "./fold.mjs";
import { wrapText } from "./values.mjs";
import { tableSvg } from "./table.mjs";
import { processesSvg } from "./processes.mjs";

function badgeSvg(b, x, y) {
  const text = String(b.text).replace("\ud83d\udd12 ", "");
  const icon = b.kind === "lock" ? 12 : 0;
  const w = Math.round(text.length * 6.2 + 12 + icon);
  return [`<g class="pti-badge pti-b-${esc(b.kind)}" transform="translate(${x},${y})"><title>${esc(b.title || text)}</title>` +
    `<rect width="${w}" height="16" rx="8"/>${icon ? lockSvg(5, 2) : ""}<text x="${6 + icon}" y="12">${esc(text)}</text></g>`, w];
}

function zoomButtons(rid, x, y) {
  const acts = [["out", "\u2212", "zoom out"], ["in", "+", "zoom in"], ["left", "\u25c0", "pan left"],
    ["right", "\u25b6", "pan right"], ["reset", "\u21ba", "show the whole buffer"]];
  return acts.map(([act, label, title], k) => `<g class="pti-zoom" data-act="${act}" data-region="${esc(rid)}" ` +
    `transform="translate(${x + k * 22},${y})"><title>${title}</title><rect width="20" height="16" rx="3"/>` +
    `<text x="10" y="12" text-anchor="middle">${label}</text></g>`).join("");
}

/** A pressed/unpressed text button in a region's header; `act` names what it toggles. */
function toggleButton(rid, act, label, on, title, x, y) {
  const w = Math.round(label.length * CHAR_W + 12);
  return [`<g class="pti-toggle${on ? " pti-on" : ""}" data-act="${act}" data-region="${esc(rid)}" role="button" ` +
    `aria-pressed="${on}" tabindex="0" transform="translate(${x},${y})"><title>${esc(title)}</title><rect width="${w}" height="16" rx="3"/>` +
    `<text x="${w / 2}" y="12" text-anchor="middle">${label}</text></g>`, w];
}

function headerButtons(r, ui, detail, width, y) {
  const parts = [zoomButtons(r.id, width - PAD - 5 * 22, y)];
  let x = width - PAD - 5 * 22 - 10;
  const add = (act, label, on, title) => {
    const w = toggleButton(r.id, act, label, on, title, 0, 0)[1];
    x -= w;
    parts.push(toggleButton(r.id, act, label, on, title, x, y)[0]);
    x -= 4;
  };
  add("table", "table", tableShown(ui, r), "show or hide who owns what: each view's bytes, alone and shared");
  if (detail) add("order", "order", orderShown(ui, r), "show or hide each lane's indices and the order it walks its elements");
  return [parts.join(""), x];
}

function ticks(z0, z1, x0, w, y, origin = 0) {
  const span = z1 - z0, n = Math.min(4, span);     // fewer ticks than bytes would repeat an offset
  const offs = n > 0 ? Array.from({ length: n + 1 }, (_, k) => Math.round(z0 + (span * k) / n)) : [z0];
  return tickLabels(offs.map((o) => o + origin)).map((label, k) => {
    const x = n > 0 ? x0 + (w * k) / n : x0;
    const anchor = k === 0 ? "start" : k === n ? "end" : "middle";
    return `<text class="pti-tick" x="${x.toFixed(1)}" y="${y}" text-anchor="${anchor}">${label}</text>`;
  }).join("");
}

/**
 * Count, per byte of [z0, z1), how many views touch it (detail mode).
 * `perView[id]` is the walk's elements; where the walk was not made or ran out
 * of budget it is a string saying why, and the view counts its whole
 * footprint, as its overview draws it.
 */
function coverage(views, walkable, z0, z1, work) {
  const n = z1 - z0, count = new Uint16Array(n), rough = new Int32Array(n + 1), perView = {};
  const mine = new Uint8Array(n);
  for (const v of views) {
    let els = SPENT;
    if (walkable(v) && work.left > 0) {
      els = elementsInWindow(v.shape, v.bstrides, v.itemsize, v.byte_offset, z0, z1, LIMITS.laneElems,
        Math.min(LIMITS.walkBudget, work.left));
      work.left -= els.visited;
      if (els.outOfBudget) els = "too many index combinations to search here";
    }
    perView[v.id] = els;
    if (typeof els !== "string") {
      mine.fill(0);
      for (const e of els) for (let b = Math.max(e.start, z0); b < Math.min(e.start + v.itemsize, z1); b++) mine[b - z0] = 1;
      for (let i = 0; i < n; i++) count[i] += mine[i];
    } else {
      const a = Math.max(v.footprint[0], z0) - z0, b = Math.min(v.footprint[1], z1) - z0;
      if (a < b) { rough[a] += 1; rough[b] -= 1; }
    }
  }
  for (let i = 0, run = 0; i < n; i++) { run += rough[i]; count[i] += run; }
  return { count, perView };
}

/** How many footprints meet each bucket [a_k, b_k): one sweep over sorted ends, not views x buckets. */
function bucketCounts(views, z0, span, nb) {
  const starts = [], ends = [];
  for (const v of views) if (v.footprint[1] > v.footprint[0]) { starts.push(v.footprint[0]); ends.push(v.footprint[1]); }
  starts.sort((p, q) => p - q);
  ends.sort((p, q) => p - q);
  const out = [];
  let i = 0, j = 0;
  for (let k = 0; k < nb; k++) {
    const a = z0 + Math.floor((span * k) / nb), b = z0 + Math.floor((span * (k + 1)) / nb);
    while (i < starts.length && starts[i] < b) i++;     // footprints that begin before the bucket ends
    while (j < ends.length && ends[j] <= a) j++;        // ... less those that ended before it began
    out.push([a, b, i - j]);
  }
  return out;
}

function flashSet(ui, r) {
  const f = ui && ui.flash;
  return f && f.regions && f.regions[r.id] ? f.regions[r.id] : null;
}

export function regionSvg(state, r, k, ui, y0, width, frame) {
  const sx = LABEL_W + PAD, sw = width - sx - PAD;
  const [z0, z1] = visibleRange(r, ui);
  const span = Math.max(1, z1 - z0), detail = span <= LIMITS.detailBytes && r.host;
  const views = regionViews(state, r);
  // a family of many lanes (a list's items) is folded into one coverage view; the rest are lanes
  const fams = families(views, r.id), inFold = new Map();
  for (const fam of fams) for (const v of fam.members) inFold.set(v.id, fam);
  const isFolded = (v) => inFold.has(v.id) && folded(ui, inFold.get(v.id));
  const shown = views.filter((v) => !isFolded(v));
  const drawn = shown.slice(0, Math.max(0, frame.work.lanes));
  frame.work.lanes -= drawn.length;
  const flash = flashSet(ui, r);
  // one region's frame: what its parts share (y is where the next part starts)
  const g = { state, r, ui, width, frame, sx, sw, z0, z1, span, detail, views, shown, drawn, inFold, isFolded,
    y: y0, scale: sw / span,
    hit: (a, b) => flash && flash.some(([lo, hi]) => a < hi && lo < b),
    // A flashing node carries its flash's tick, so the next flash is new markup and flashes again.
    tickAttr: ` data-tick="${(ui.flash && ui.flash.tick) || 0}"` };
  const parts = [`<g class="pti-region${detail ? " pti-detail" : " pti-summary"}" data-region="${esc(r.id)}" ` +
    `data-start="${z0}" data-end="${z1}" data-nbytes="${r.nbytes}"${fileAxisAttrs(r)}>`];
  parts.push(regionHeader(g, k));
  if (r.file) {
    const [svg, next] = fileSvg(r, z0, z1, sx, sw, g.y, width);
    parts.push(svg);
    g.y = next;
    frame.files = true;
  }
  const [procs, belowProcs] = processesSvg(r, z0, z1, sx, sw, g.y, width);   // who else maps these pages
  parts.push(procs);
  g.y = belowProcs;
  parts.push(minimapSvg(g), byteStrip(g), regionLanes(g));
  if (tableShown(ui, r)) {
    const [svg, next] = tableSvg(state, r, shown, g.y + 4, width, frame, views.length);
    parts.push(svg);
    g.y = next;
  }
  parts.push(`</g>`);
  return [parts.join(""), g.y + 10];
}

/** The region's title, zoom buttons, badges and (stepping through history) who wrote it. */
function regionHeader(g, k) {
  const { r, ui, width, detail } = g, parts = [];
  const [buttons, bx0] = headerButtons(r, ui, detail, width, g.y);
  const title = `buffer ${k + 1} \u00b7 ${fmtBytes(r.nbytes)} ${r.identity ? fileWhere(r) : `at ${r.addr}`}` +
    `${r.host ? "" : ` on ${r.device} (no host access)`}`;
  const titleLines = wrapText(title, Math.floor((bx0 - PAD) / 7.4));   // wraps beside the buttons, never cut
  parts.push(`<text class="pti-title" x="${PAD}" y="${g.y + 13}">${wrappedText(titleLines, PAD, 15)}</text>`);
  parts.push(buttons);
  g.y += 20 + 15 * (titleLines.length - 1);
  let bx = PAD;
  for (const b of r.badges || []) {
    const w = badgeSvg(b, 0, 0)[1];
    if (bx + w > width - PAD && bx > PAD) { g.y += 20; bx = PAD; }
    parts.push(badgeSvg(b, bx, g.y)[0]);
    bx += w + 6;
  }
  g.y += 24;
  const writer = ui.past && ui.flash && ui.flash.writers && ui.flash.writers[r.id];
  if (writer) {
    const lines = wrapText(`this step: ${writer}`, Math.floor((width - 2 * PAD) / CHAR_W));
    parts.push(`<text class="pti-writer" data-region="${esc(r.id)}" x="${PAD}" y="${g.y + 9}">` +
      `${wrappedText(lines, PAD, 13)}</text>`);
    g.y += 16 + 13 * (lines.length - 1);
  }
  return parts.join("");
}

/** Zoomed in: the whole buffer, the drawn footprints, and where the zoom window is. */
function minimapSvg(g) {
  const { r, sx, sw, z0, z1, span, drawn } = g;
  if (!(z0 > 0 || z1 < r.nbytes)) return "";
  const s = sw / Math.max(1, r.nbytes), y = g.y, parts = [];
  parts.push(`<g class="pti-minimap" data-region="${esc(r.id)}"><rect class="pti-mm-bg" x="${sx}" y="${y}" width="${sw}" height="8"/>`);
  drawn.forEach((v) => parts.push(`<rect x="${(sx + v.footprint[0] * s).toFixed(1)}" y="${y + 2}" ` +
    `width="${Math.max(1, (v.footprint[1] - v.footprint[0]) * s).toFixed(1)}" height="4" fill="${v.color}" opacity="0.7"/>`));
  parts.push(`<rect class="pti-mm-win" x="${(sx + z0 * s).toFixed(1)}" y="${y - 1}" width="${Math.max(2, span * s).toFixed(1)}" height="10"/></g>`);
  g.y += 14;
  return parts.join("");
}

/** The byte axis and the strip above the lanes: each byte (hex) zoomed in, buckets of bytes otherwise. */
function byteStrip(g) {
  const { sx, sw, z0, z1, detail } = g;
  const file = g.r.identity ? "file " : "";      // one file, one axis: its ticks are the file's byte offsets
  const parts = [ticks(z0, z1, sx, sw, g.y + 9, g.r.identity ? g.r.identity.byte_offset : 0),
    `<text class="pti-lbl pti-dim" x="${PAD}" y="${g.y + 9}">${file}${detail ? "bytes (hex)" : "bytes (overview)"}</text>`];
  g.y += 13;
  g.perView = {};
  parts.push(detail ? byteCells(g) : bucketStrip(g));
  return parts.join("");
}

function byteCells(g) {
  const { r, views, drawn, z0, z1, sx, scale, hit, tickAttr, frame } = g, y = g.y, parts = [];
  const isDrawn = new Set(drawn);
  const cov = coverage(views, (v) => isDrawn.has(v), z0, z1, frame.work);
  g.perView = cov.perView;
  const showHex = scale >= 13.5;
  for (let off = z0; off < z1; off++) {
    const c = cov.count[off - z0], b = byteAt(r, off);
    const cls = ["pti-byte", b == null ? "pti-unknown" : "", c >= 2 ? "pti-n2" : c === 1 ? "pti-n1" : "pti-n0",
      hit(off, off + 1) ? "pti-flash" : ""].filter(Boolean).join(" ");
    const x = sx + (off - z0) * scale;
    parts.push(`<rect class="${cls}" data-region="${esc(r.id)}" data-off="${off}" x="${x.toFixed(2)}" y="${y}" ` +
      `width="${Math.max(0.5, scale - (scale > 4 ? 1 : 0)).toFixed(2)}" height="22"` +
      `${b == null ? ` fill="url(#${frame.ids.unk})"` : ""}${hit(off, off + 1) ? tickAttr : ""}/>`);
    if (showHex && b != null) {
      parts.push(`<text class="pti-hex" data-region="${esc(r.id)}" data-off="${off}" x="${(x + scale / 2).toFixed(2)}" ` +
        `y="${y + 15}" text-anchor="middle">${b.toString(16).padStart(2, "0")}</text>`);
    }
  }
  g.y += 26;
  return parts.join("");
}

function bucketStrip(g) {
  const { r, views, z0, span, sx, sw, hit, tickAttr } = g, y = g.y, parts = [];
  const nb = Math.max(1, Math.min(LIMITS.buckets, span));
  const bw = sw / nb;
  bucketCounts(views, z0, span, nb).forEach(([a, b, c], k2) => {
    parts.push(`<rect class="pti-bucket ${c >= 2 ? "pti-n2" : c === 1 ? "pti-n1" : "pti-n0"}${hit(a, b) ? " pti-flash" : ""}" ` +
      `data-region="${esc(r.id)}" data-off="${a}" data-end="${b}" x="${(sx + k2 * bw).toFixed(2)}" y="${y}" ` +
      `width="${Math.max(0.5, bw).toFixed(2)}" height="16"${hit(a, b) ? tickAttr : ""}/>`);
  });
  g.y += 20;
  return parts.join("");
}

/** One lane per drawn view (with the order path on, a row of indices above and the path below), a
 * coverage view in place of each folded family, then what was left out: lanes past the limit, pairs
 * the model did not list. Lanes are as tall as their wrapped labels. The order path shows for one lane
 * at a time (and for the lane under the pointer): the one picked, else the first whose walk steps back
 * or repeats a cell. */
function regionLanes(g) {
  const { state, r, ui, views, drawn, detail, frame, width } = g, parts = [];
  const order = detail && orderShown(ui, r);
  const picked = ui.orderLane && r.id in ui.orderLane ? ui.orderLane[r.id] : undefined;
  let pinned = picked;
  if (order && pinned === undefined) {
    pinned = null;
    for (const v of drawn) if (typeof g.perView[v.id] !== "string" && !walksForward(g.perView[v.id])) { pinned = v.id; break; }
  }
  const isDrawn = new Set(drawn.map((v) => v.id)), foldDone = new Set();
  for (const v of views) {
    const fam = g.inFold.get(v.id);
    if (fam && !foldDone.has(fam.key)) {
      foldDone.add(fam.key);
      if (g.isFolded(v)) {
        const [svg, h] = foldSvg(r.id, fam, g, g.y);
        parts.push(svg);
        g.y += h;
        continue;
      }
      parts.push(foldToggle(r.id, fam, false, width - PAD - 48, g.y + 1) +
        `<text class="pti-fold-head" x="${PAD}" y="${g.y + 12}">${esc(fam.prefix)}: ${fam.members.length} lanes</text>`);
      g.y += 20;
    }
    if (!isDrawn.has(v.id)) continue;
    const label = labelLayout(v);
    parts.push(laneSvg(state, r, v, { z0: g.z0, z1: g.z1, sx: g.sx, sw: g.sw, y: g.y + (order ? ORDER_ROW : 0), detail,
      order, scale: g.scale, els: g.perView[v.id], flash: frame.changedViews.has(v.id), hit: g.hit, tickAttr: g.tickAttr,
      label, pinnable: order, pinned: order && pinned === v.id, below: Math.max(ORDER_BELOW, label.h - LANE_H) }, frame));
    g.y += (order ? ORDER_ROW : 0) + Math.max(LANE_H + (order ? ORDER_BELOW : 0), label.h);
  }
  if (order) frame.ordered = true;
  if (drawn.length < g.shown.length) {
    const more = g.shown.length - drawn.length;
    parts.push(`<text class="pti-dim pti-more" x="${PAD}" y="${g.y + 12}">and ${more} more view${more === 1 ? "" : "s"} ` +
      `of this buffer, not drawn (more than ${LIMITS.lanes} lanes in one picture); hovering a byte still lists them</text>`);
    g.y += 20;
  }
  if (r.overlaps_note) {
    // the model lists only some of the overlapping pairs (see widgets/_pairs.py): say which, in full
    for (const line of wrapText(r.overlaps_note, Math.floor((width - 2 * PAD) / CHAR_W))) {
      parts.push(`<text class="pti-dim pti-pairs" x="${PAD}" y="${g.y + 12}">${esc(line)}</text>`);
      g.y += 14;
    }
    g.y += 6;
  }
  return parts.join("");
}

/** Lines of one <text>: the first as plain text, the rest as tspans `lineH` apart, each break's space kept
 * (so the text reads whole), none cut. */
function wrappedText(lines, x, lineH) {
  const sp = (k) => (k < lines.length - 1 ? " " : "");
  return lines.map((t, k) => (k ? `<tspan x="${x}" dy="${lineH}">${esc(t)}${sp(k)}</tspan>` : esc(t) + sp(k))).join("");
}

// ------------------------------------------------------------------ mapped files
/** A region that is one file (or shared memory) seen through its mappings: where it lies in the file. */
function fileWhere(r) {
  const n = r.sources.filter((s) => s.identity).length;
  return `of ${r.file ? "one file" : "shared memory"} from its byte ${r.identity.byte_offset}` +
    (n > 1 ? `, seen through ${n} mappings` : "");
}

function fileAxisAttrs(r) {
  if (!r.identity) return "";
  return ` data-file-offset="${r.identity.byte_offset}" data-mappings="${r.sources.filter((s) => s.identity).length}"`;
}


/** "data.bin · shared mapping · file bytes [4096, 8192)": what a file-backed buffer maps. */
export function fileHeader(f) {
  const off = f.file_offset ?? 0, n = f.nbytes ?? 0;
  return `file ${f.path} \u00b7 ${f.mapping} mapping \u00b7 file bytes [${off}, ${off + n})` +
    (f.page_size ? ` \u00b7 ${fmtBytes(f.page_size)} pages` : "");
}

/**
 * A file-backed buffer's header line (path, mapping, file byte range) and a thin strip over the
 * byte axis: resident pages (in RAM now) and pages copied on write (a private mapping's writes,
 * no longer the file's bytes). Where the model could not tell, the strip says why instead.
 */
function fileSvg(r, z0, z1, sx, sw, y, width) {
  const f = r.file, parts = [`<g class="pti-file" data-region="${esc(r.id)}" data-mapping="${esc(f.mapping)}">`];
  const head = fileHeader(f);
  const headLines = wrapText(head, Math.floor((width - 2 * PAD) / CHAR_W));
  parts.push(`<text class="pti-file-head" x="${PAD}" y="${y + 9}"><title>${esc(head)}</title>` +
    `${wrappedText(headLines, PAD, 13)}</text>`);
  y += 1 + 13 * headLines.length;
  const scale = sw / Math.max(1, z1 - z0);
  const x = (off) => sx + (Math.min(Math.max(off, z0), z1) - z0) * scale;
  // only the pages under the views were asked about: the strip's ground is drawn where they lie
  const ground = f.asked && f.resident ? pixelRuns(f.asked, z0, z1, x).map(([p0, p1]) => [p0, p1 - p0]) : [[sx, sw]];
  parts.push(`<text class="pti-lbl pti-dim" x="${PAD}" y="${y + 7}">pages</text>` + ground.map(([gx, gw]) =>
    `<rect class="pti-pages-bg" x="${gx.toFixed(2)}" y="${y}" width="${gw.toFixed(2)}" height="8"><title>` +
    `${esc(f.resident ? "pages of the file under the views; coloured where resident in RAM" : f.resident_note || "residency unknown")}</title></rect>`).join(""));
  const page = (cls, what) => ([p0, p1, lo, hi]) => `<rect class="${cls}" data-lo="${lo}" data-hi="${hi}" x="${p0.toFixed(2)}" ` +
    `y="${cls === "pti-cow" ? y + 4 : y}" width="${(p1 - p0).toFixed(2)}" height="${cls === "pti-cow" ? 4 : 8}">` +
    `<title>${what}: bytes [${lo}, ${hi})</title></rect>`;
  parts.push(...pixelRuns(f.resident, z0, z1, x).map(page("pti-resident", "resident in RAM")));
  parts.push(...pixelRuns(f.cow, z0, z1, x).map(page("pti-cow", "copied on write: this process's own copy, no longer the file's bytes")));
  const notes = [f.resident ? "" : f.resident_note, f.cow ? "" : f.cow_note].filter(Boolean);
  if (notes.length) {
    const lines = wrapText(notes.join("; "), Math.floor((sw - 8) / CHAR_W));
    parts.push(`<text class="pti-file-note pti-dim" x="${sx + 4}" y="${y + 18}">${wrappedText(lines, sx + 4, 13)}</text>`);
    y += 10 + 13 * (lines.length - 1);
  }
  parts.push(`</g>`);
  return [parts.join(""), y + 14];
}
