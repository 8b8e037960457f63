// Built by widgets/_bundle.py from widgets/js/{geometry,values,state,describe,marks,order,lane,table,fold,processes,region,picture,dom,entry}.mjs:
// edit those, then run `python widgets/_bundle.py`.

// ---- geometry.mjs
// pytensor memory inspector, the front end. Written as ES modules by job (widgets/js/*.mjs) and
// joined into the one module widgets/inspector.js by widgets/_bundle.py.
//
// renderSvg(state, ui) is pure (a string in, a string out) so that three
// outputs share it: the live anywidget view (default export `render`), the
// self-contained static HTML page (`mountStatic`), and `node --test`.
// `state` is the Python snapshot dict plus each region's preview bytes as a
// Uint8Array (attachPreviews). Nothing here talks to a kernel except through
// the `send` callback that the live view passes in.
//
// Every frame is bounded: index walks count the nodes they visit against a
// budget, and a lane whose walk would cost too much is drawn as an overview
// of its footprint instead. A layout can make the walk visit many indices
// that yield nothing, so work proportional to the answer is not enough.
//
// geometry: layout arithmetic in bytes (footprints, the elements in a byte window) and the frame's limits.
export const LIMITS = {
  detailBytes: 512, laneElems: 4096, hoverReaders: 32, buckets: 240,
  walkBudget: 250000,      // index nodes one elementsInWindow call may visit
  frameBudget: 2000000,    // index nodes one renderSvg (or one hover) may visit, all lanes together
  frameCells: 40000,       // element cells and runs one renderSvg may draw
  lanes: 256,              // lanes drawn per frame; the rest are counted in one line
  laneOverlaps: 16,        // overlap rects drawn one by one per lane; more are merged into pixel runs
  cellIndices: 256,        // indices listed in one repeated cell's data-indices; the rest are counted
  tableRows: 64,           // rows of one buffer's ownership table; the rest are counted in one line
  tablePartners: 6,        // names in one "shared with" cell before "and n more"
  foldMin: 12,             // a family of at least this many lanes (views[0], views[1], ...) is folded
  foldRows: 24,            // rows of one folded family's coverage view, whatever its size
};

// The picture's size control: every length and font of the picture is drawn this much larger (the
// SVG's viewBox stays in the units below). "large" puts every value and label at 12 px or more.
export const SIZES = { small: 1, medium: 1.2, large: 1.4 };
export const SIZE_DEFAULT = "medium";

// A lane's label: lines of LABEL_LINE units, wrapped at the label's width (never cut).
export const LABEL_LINE = 12;

// A folded family's coverage view: one row per group of lanes.
export const FOLD_ROW_H = 11;

export const PALETTE = ["#2a9d8f", "#e76f51", "#457b9d", "#e9c46a", "#8e6cc1", "#6a994e", "#d62828", "#f4a261"];

export const W_DEFAULT = 980, LABEL_W = 210, PAD = 10, CHAR_W = 6.2;

// With the order path on, a lane gains a row of indices above its cells and room for the path below.
export const LANE_H = 32, ORDER_ROW = 10, ORDER_BELOW = 16, IDX_CHAR_W = 5.2, ROW_H = 16;

// ------------------------------------------------------------------ layout arithmetic
// The one rule for these lives in libtensor (lt_layout_byte_extent, lt_layout_contiguous_strides);
// the renderer cannot call C, so it keeps this copy, and tests/js/layout_vectors.test.mjs holds it
// to libtensor's test vectors (tests/layout_vectors.json).
/**
 * floor(a / b) for integers of either sign below 2^53 in magnitude, b !== 0.
 * The rounded double quotient can land on the wrong side of an integer, but
 * never by more than one: the remainder's sign says which way to step.
 */
export function floorDiv(a, b) {
  let q = Math.floor(a / b);
  const r = a - q * b;               // exact floor leaves 0 <= r < b (b > 0) or b < r <= 0 (b < 0)
  if (b > 0 ? r < 0 : r > 0) q -= 1;
  else if (b > 0 ? r >= b : r <= b) q += 1;
  return q;
}

export const ceilDiv = (a, b) => -floorDiv(-a, b);

/** Half-open byte range [lo, hi) a view can touch; `base` is element 0's byte offset. */
export function footprint(shape, bstrides, itemsize, base = 0) {
  if (shape.some((n) => n === 0)) return [base, base];
  let lo = base, hi = base;
  shape.forEach((n, d) => {
    const reach = (n - 1) * bstrides[d];
    if (reach < 0) lo += reach; else hi += reach;
  });
  return [lo, hi + itemsize];
}

/**
 * Elements whose bytes meet [lo, hi), as an array of {index, start}.
 *
 * Each dimension's index range is cut to the sub-blocks that can still reach
 * the window, but some layouts still visit many indices that yield nothing, so
 * the walk also stops after `budget` visited index nodes. The array carries:
 * `truncated` (true when elements may be missing: more than `limit` exist, or
 * the budget ran out), `outOfBudget` (the budget ran out) and `visited`
 * (nodes visited, for charging a caller's own budget).
 */
export function elementsInWindow(shape, bstrides, itemsize, base, lo, hi, limit = 65536, budget = LIMITS.walkBudget) {
  const out = [];
  out.truncated = false;
  out.outOfBudget = false;
  out.visited = 0;
  if (hi <= lo || shape.some((n) => n === 0)) return out;
  const nd = shape.length, loExt = new Array(nd + 1).fill(0), hiExt = new Array(nd + 1).fill(0);
  for (let d = nd - 1; d >= 0; d--) {
    const reach = (shape[d] - 1) * bstrides[d];
    loExt[d] = loExt[d + 1] + Math.min(0, reach);
    hiExt[d] = hiExt[d + 1] + Math.max(0, reach);
  }
  const idx = new Array(nd).fill(0);
  let visits = 0, stop = false;
  const walk = (d, off) => {
    if (visits >= budget) { out.outOfBudget = stop = true; return; }
    visits++;
    if (d === nd) {
      if (off < hi && off + itemsize > lo) {
        if (out.length >= limit) { out.truncated = stop = true; return; }
        out.push({ index: idx.slice(), start: off });
      }
      return;
    }
    const n = shape[d], s = bstrides[d];
    // the block under index i covers [off + i*s + loExt, off + i*s + hiExt + itemsize)
    const a = lo - itemsize - hiExt[d + 1] - off;   // need i*s > a
    const b = hi - loExt[d + 1] - off;              // need i*s < b
    let i0, i1;
    if (s > 0) { i0 = floorDiv(a, s) + 1; i1 = ceilDiv(b, s) - 1; }
    else if (s < 0) { i0 = floorDiv(b, s) + 1; i1 = ceilDiv(a, s) - 1; }
    else if (a < 0 && b > 0) { i0 = 0; i1 = n - 1; }
    else { i0 = 1; i1 = 0; }
    i0 = Math.max(i0, 0); i1 = Math.min(i1, n - 1);
    for (let i = i0; i <= i1 && !stop; i++) {
      idx[d] = i;
      const before = out.length;
      walk(d + 1, off + i * s);
      // A zero stride repeats one sub-block over the same bytes: if its first copy meets nothing, none will.
      if (s === 0 && out.length === before) break;
    }
  };
  walk(0, base);
  out.visited = visits;
  out.truncated = out.truncated || out.outOfBudget;
  return out;
}

/** Flat row-major position of an index, to tell consecutive indices from a walk that left the window. */
export function flatIndex(shape, index) {
  let f = 0;
  for (let d = 0; d < shape.length; d++) f = f * shape[d] + index[d];
  return f;
}

/**
 * The order a view walks its cells, under the lane: one arc per step between cells with an
 * arrowhead at its lowest point pointing the way the walk goes (so a flipped view's arrows point
 * left, and a transpose's long arcs jump back), a loop marker with "×n" on each cell read by n
 * indices, and a dashed arc where the walk leaves the visible window and comes back. `els` come
 * in row-major index order (elementsInWindow's walk); equal steps are drawn once. Each step costs
 * one cell of the frame's drawing budget.
 */

export const STRIP_RUNS = 2000;   // rects one page strip (file residency, processes) draws; more merge into pixel runs

/** Byte ranges of [z0, z1) as pixel runs [p0, p1, lo, hi] (x maps a byte to a pixel), neighbours closer than
 * half a pixel merged, at most STRIP_RUNS of them. */
export function pixelRuns(ranges, z0, z1, x) {
  const runs = [];
  for (const [lo, hi] of ranges || []) {
    const a = Math.max(lo, z0), b = Math.min(hi, z1);
    if (b <= a) continue;
    const p0 = x(a), p1 = Math.max(x(b), p0 + 1), last = runs[runs.length - 1];
    if (last && p0 <= last[1] + 0.5) { last[1] = Math.max(last[1], p1); last[3] = b; } else runs.push([p0, p1, a, b]);
  }
  return runs.slice(0, STRIP_RUNS);
}

// ---- values.mjs
// values: decoding element values from preview bytes, and how numbers and indices are written.
// ------------------------------------------------------------------ values
const F32 = new DataView(new ArrayBuffer(4));

function half(bits) {
  const s = bits & 0x8000 ? -1 : 1, e = (bits >> 10) & 0x1f, f = bits & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

function bf16(bits) { F32.setUint32(0, bits << 16); return F32.getFloat32(0); }

export function fmtNumber(x) {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (Number.isInteger(x) && Math.abs(x) < 1e6) return x.toFixed(1).replace(/\.0$/, ".");
  const p = x.toPrecision(4);
  return p.includes("e") ? p.replace(/\.?0+e/, "e") : p.replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, ".");
}

/** The element at `pos` of `bytes` as display text, or null when the bytes are not all there. */
export function decode(bytes, pos, dtype, endian = "<") {
  const sizes = { bool: 1, uint8: 1, int8: 1, uint16: 2, int16: 2, float16: 2, bfloat16: 2, uint32: 4,
    int32: 4, float32: 4, uint64: 8, int64: 8, float64: 8, complex64: 8, complex128: 16 };
  const n = sizes[dtype];
  if (!bytes || n === undefined || pos < 0 || pos + n > bytes.length) return null;
  const dv = new DataView(bytes.buffer, bytes.byteOffset + pos, n), le = endian !== ">";
  switch (dtype) {
    case "bool": return dv.getUint8(0) ? "True" : "False";
    case "uint8": return String(dv.getUint8(0));
    case "int8": return String(dv.getInt8(0));
    case "uint16": return String(dv.getUint16(0, le));
    case "int16": return String(dv.getInt16(0, le));
    case "uint32": return String(dv.getUint32(0, le));
    case "int32": return String(dv.getInt32(0, le));
    case "uint64": return String(dv.getBigUint64(0, le));
    case "int64": return String(dv.getBigInt64(0, le));
    case "float16": return fmtNumber(half(dv.getUint16(0, le)));
    case "bfloat16": return fmtNumber(bf16(dv.getUint16(0, le)));
    case "float32": return fmtNumber(dv.getFloat32(0, le));
    case "float64": return fmtNumber(dv.getFloat64(0, le));
    case "complex64": return cplx(dv.getFloat32(0, le), dv.getFloat32(4, le));
    case "complex128": return cplx(dv.getFloat64(0, le), dv.getFloat64(8, le));
    default: return null;
  }
}

function cplx(re, im) { return `${fmtNumber(re)}${im < 0 || Object.is(im, -0) ? "-" : "+"}${fmtNumber(Math.abs(im))}j`; }

// "1.2300e+6" -> "1.23e6": the short spelling of one toPrecision/toExponential result.
function compactNum(s) {
  let [m, e] = s.split("e");
  if (m.includes(".")) m = m.replace(/0+$/, "").replace(/\.$/, "");
  return e === undefined ? m : `${m}e${Number(e)}`;
}

/**
 * `text` in at most `room` characters, so a narrow cell still says something:
 * a number loses significant digits first (1234567 -> 1.2e6), anything else
 * keeps its head and a trailing ellipsis. The hover always has the full text.
 */
export function abbreviate(text, room) {
  text = String(text);
  if (text.length <= room) return text;
  if (room < 1) return "";
  const x = /^[-+]?[\d.]+(e[-+]?\d+)?$/i.test(text) ? Number(text) : NaN;
  if (Number.isFinite(x)) {
    for (let p = Math.min(room, 17); p >= 1; p--) {
      for (const s of [x.toPrecision(p), x.toExponential(p - 1)]) {
        const c = compactNum(s);
        if (c.length <= room) return c;
      }
    }
  }
  return room >= 2 ? text.slice(0, room - 1) + "\u2026" : "\u2026";
}

/** A cell's label in `room` characters; a repeated element keeps its "×n" while there is room for it. */
export function cellLabel(val, hits, room) {
  if (hits <= 1) return abbreviate(val, room);
  const suffix = `\u00d7${hits}`;
  return room >= suffix.length + 2 ? abbreviate(val, room - suffix.length) + suffix : abbreviate(val, room);
}

/** An index as `[1, 2]` in at most `room` characters: spaces go first, then brackets, then all but the last. */
export function indexText(index, room) {
  for (const t of [`[${index.join(", ")}]`, `[${index.join(",")}]`, index.join(",")]) if (t.length <= room) return t;
  const last = String(index.length ? index[index.length - 1] : "");
  return room >= last.length + 1 ? "\u2026" + last : "";
}

/** The indices of one cell in `room` characters: all of a few, else the first and last, else the first. */
export function indicesText(idxs, room) {
  if (idxs.length <= 1) return indexText(idxs[0] || [], room);
  const all = idxs.map((i) => `[${i.join(",")}]`).join(" ");
  if (idxs.length <= 4 && all.length <= room) return all;
  const a = idxs[0], b = idxs[idxs.length - 1];
  for (const t of [`[${a.join(", ")}]\u2026[${b.join(", ")}]`, `[${a.join(",")}]\u2026[${b.join(",")}]`]) {
    if (t.length <= room) return t;
  }
  const head = indexText(a, room - 1);
  return head ? head + "\u2026" : "";
}

export const idxList = (i) => `[${i.join(", ")}]`;

/**
 * `text` as lines of at most `room` characters, the first of at most `firstRoom`: broken at spaces,
 * a word longer than a line broken inside it. Nothing is left out (no ellipsis); the first line is
 * "" when not even a piece of the first word fits in `firstRoom` (the caller starts a new line).
 */
export function wrapText(text, room, firstRoom = room) {
  room = Math.max(1, Math.floor(room));
  const lines = [""];
  let cap = Math.max(0, Math.floor(firstRoom));
  for (const word of String(text).split(" ").filter((w) => w !== "")) {
    let rest = word;
    while (rest) {
      const line = lines[lines.length - 1], gap = line ? 1 : 0;
      if (line.length + gap + rest.length <= cap) { lines[lines.length - 1] = line + (gap ? " " : "") + rest; rest = ""; break; }
      if (!line && rest.length > cap && cap > 0 && rest.length > room) {
        // a word longer than any line: cut it at the line's end, the rest goes on
        lines[lines.length - 1] = rest.slice(0, cap);
        rest = rest.slice(cap);
      }
      lines.push("");
      cap = room;
    }
  }
  return lines;
}

// ---- state.mjs
// state: the snapshot as the renderer holds it (deltas applied, previews attached) and small helpers over it.

// ------------------------------------------------------------------ state helpers
/**
 * A snapshot from another and a delta (inspector.py's _delta; the live view applies its `checkpoint`
 * to its `base`, then its `delta`): "views" and
 * "regions" map an id to its changed fields (a whole dict for a new id, null for a removed one),
 * "<kind>_order" lists the ids when their order changed, "overlaps" replaces the list, "top" the
 * other keys. Unchanged dicts are shared with `base`, so the cost is the size of the delta plus
 * one pass over the ids.
 */
export function applyDelta(base, delta) {
  if (!delta || !Object.keys(delta).length) return base || {};
  const snap = { ...(base || {}), ...(delta.top || {}) };
  for (const kind of ["views", "regions"]) {
    const list = (base && base[kind]) || [], patch = delta[kind] || {};
    const cur = new Map(list.map((x) => [x.id, x]));
    for (const [id, p] of Object.entries(patch)) {
      if (p === null) cur.delete(id);
      else cur.set(id, cur.has(id) ? { ...cur.get(id), ...p } : p);
    }
    const order = delta[`${kind}_order`] || list.map((x) => x.id);
    snap[kind] = order.filter((id) => cur.has(id)).map((id) => cur.get(id));
  }
  if (delta.overlaps) snap.overlaps = delta.overlaps;
  return snap;
}

/** Python's snapshot dict + the previews blob -> renderable state (each region gets `.bytes`). */
export function attachPreviews(snapshot, previews) {
  const blob = toU8(previews);
  const state = { ...snapshot, regions: (snapshot.regions || []).map((r) => ({ ...r })) };
  state.viewById = Object.fromEntries((snapshot.views || []).map((v, k) => [v.id, { ...v, color: PALETTE[k % PALETTE.length] }]));
  state.views = (snapshot.views || []).map((v) => state.viewById[v.id]);
  for (const r of state.regions) {
    const p = r.preview || { start: 0, length: 0, pos: 0, known: [] };
    r.bytes = blob ? blob.subarray(p.pos, p.pos + p.length) : new Uint8Array(0);
  }
  return state;
}

export function toU8(x) {
  if (x == null) return new Uint8Array(0);
  if (x instanceof Uint8Array) return x;
  if (x instanceof DataView) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  if (x instanceof ArrayBuffer) return new Uint8Array(x);
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  if (typeof x === "string") {            // base64, as the static page embeds it
    const bin = atob(x), out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  return new Uint8Array(0);
}

/** The byte at region offset `off`, or null when it is not in the preview window. */
export function byteAt(region, off) {
  const p = region.preview;
  if (!p || off < p.start || off >= p.start + p.length) return null;
  if (!(p.known || []).some(([a, b]) => a <= off && off < b)) return null;
  return region.bytes[off - p.start];
}

export function valueAt(region, v, start) {
  const p = region.preview;
  if (!p || start < p.start || start + v.itemsize > p.start + p.length) return null;
  if (!(p.known || []).some(([a, b]) => a <= start && start + v.itemsize <= b)) return null;
  return decode(region.bytes, start - p.start, v.dtype, v.endian);
}

export function fmtBytes(n) {
  if (n == null) return "?";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let k = 0, x = n;
  while (x >= 1024 && k < units.length - 1 && x % 1024 === 0) { x /= 1024; k++; }
  if (x >= 1024 && k < units.length - 1) {
    while (x >= 1024 && k < units.length - 1) { x /= 1024; k++; }
    return `${x.toFixed(1)} ${units[k]}`;
  }
  return `${x} ${units[k]}`;
}

const TICK_UNITS = [["TiB", 2 ** 40], ["GiB", 2 ** 30], ["MiB", 2 ** 20], ["KiB", 2 ** 10]];

const distinctNeighbours = (labels) => labels.every((l, k) => k === 0 || l !== labels[k - 1]);

/**
 * Labels for ascending byte offsets in which no two neighbours read the same:
 * rounded sizes while they differ ("1 GiB"), then the largest unit with more
 * decimals, then exact offsets grouped by thin spaces ("10 813 440").
 */
export function tickLabels(offs) {
  const size = (o, f) => (o === 0 ? "0" : f(o));
  let labels = offs.map((o) => size(o, fmtBytes));
  if (distinctNeighbours(labels)) return labels;
  const top = Math.max(...offs.map(Math.abs));
  const unit = TICK_UNITS.find(([, u]) => top >= u);
  for (const d of unit ? [2, 3] : []) {
    labels = offs.map((o) => size(o, (x) => `${(x / unit[1]).toFixed(d)} ${unit[0]}`));
    if (distinctNeighbours(labels)) return labels;
  }
  return offs.map((o) => String(o).replace(/\B(?=(\d{3})+(?!\d))/g, "\u2009"));
}

export function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

export const regionViews = (state, r) => (r.views || []).map((id) => state.viewById[id]).filter(Boolean);

/** The visible byte range of a region: the user's zoom, else all of it. */
export function visibleRange(region, ui = {}) {
  const z = ui.zoom && ui.zoom[region.id];
  if (z) return [Math.max(0, z[0]), Math.min(region.nbytes, z[1])];
  return [0, region.nbytes];
}

export function shapeText(v) { return `${v.dtype}[${v.shape.join(", ")}]`; }

export const isTemporary = (v) => v.status === "temporary";

/** Whether a region shows its logical-order path (detail mode only) and its ownership table. */
export const orderShown = (ui, r) => !(ui.order && ui.order[r.id] === false);

export const tableShown = (ui, r) => (ui.table && r.id in ui.table ? ui.table[r.id] : ui.tableDefault !== false);

// ------------------------------------------------------------------ lineage and origin
/** "← grid ← base": the views this one was made from, nearest first, by name where they have one. */
export function chainText(v) {
  const steps = (v.lineage || []).slice(1);
  return steps.length ? steps.map((s) => `\u2190 ${s.name || s.expr}`).join(" ") : "";
}

/** Whether the view's bytes were copied (not shared) from what it was made from. */
export const isCopied = (v) => !!(v.origin && v.origin.shared === false);

/** The table's "made by" cell: each step's expression, this view's first (a step with none, the owner, by its name). */
export const madeBy = (v) => (v.lineage && v.lineage.length ? v.lineage.map((s) => s.expr || s.name).join(" \u2190 ") : "\u2014");

export function clip(s, n) { return s.length > n ? s.slice(0, n - 1) + "\u2026" : s; }

// ---- describe.mjs
// describe: what a hover says about a byte, an element or a view (pure: data in, data or HTML text out).

// ------------------------------------------------------------------ hover descriptions (pure)
/**
 * Every (view, index) that reads byte `off` of region `rid`, with values.
 * Bounded like a frame: at most LIMITS.hoverReaders readers in all, and
 * `truncated` says some view was not searched to the end.
 */
export function describeByte(state, rid, off) {
  const r = state.regions.find((x) => x.id === rid);
  if (!r) return null;
  const readers = [];
  let left = LIMITS.frameBudget, truncated = false;
  for (const v of regionViews(state, r)) {
    if (v.footprint && (off < v.footprint[0] || off >= v.footprint[1])) continue;
    const room = LIMITS.hoverReaders - readers.length;
    if (room <= 0 || left <= 0) { truncated = true; break; }
    const els = elementsInWindow(v.shape, v.bstrides, v.itemsize, v.byte_offset, off, off + 1, room, Math.min(LIMITS.walkBudget, left));
    left -= els.visited;
    truncated = truncated || els.truncated;
    for (const e of els) {
      readers.push({ view: v.id, name: v.name, index: e.index, start: e.start, byteInElement: off - e.start,
        value: valueAt(r, v, e.start) });
    }
  }
  const b = byteAt(r, off);
  return { region: rid, byte_offset: off, byte: b, hex: b == null ? null : b.toString(16).padStart(2, "0"),
    // one file seen through several mappings has no one address: name the byte by its place in the file
    address: r.identity ? `file byte ${r.identity.byte_offset + off}` : addrPlus(r.addr, off), readers, truncated };
}

function addrPlus(hex, off) {
  try { return "0x" + (BigInt(hex) + BigInt(off)).toString(16); } catch { return `${hex}+${off}`; }
}

/** What a hover over a view shows: layout, contiguity, idiom tags, overlaps, whether the object is gone. */
export function describeView(state, vid) {
  const v = state.viewById[vid];
  if (!v) return null;
  const overlaps = (state.overlaps || []).filter((o) => o.a === vid || o.b === vid).map((o) => {
    const other = state.viewById[o.a === vid ? o.b : o.a];
    return { with: other ? other.name : "?", lo: o.lo, hi: o.hi, shared: o.shared_bytes };
  });
  return {
    name: v.name, type: v.type, dtype: v.dtype, itemsize: v.itemsize, shape: v.shape,
    strides: v.strides, bstrides: v.bstrides, storage_offset: v.storage_offset, byte_offset: v.byte_offset,
    footprint: v.footprint, contiguous: v.contiguous, tags: v.tags || [], numel: v.numel,
    touched: v.touched_bytes, max_hits: v.max_hits, readonly: v.readonly, overlaps,
    exclusive: v.exclusive_bytes, shared: v.shared_bytes, ownership_note: v.ownership_note || "",
    status: v.status || "live", note: v.note || "",
    lineage: v.lineage || null, lineage_text: v.lineage_text || "", origin: v.origin || null,
  };
}

/**
 * What hovering the element cell of view `vid` at byte `start` shows: every index of this view
 * that reads the cell (a repeated cell has several), and the elements of every other view whose
 * bytes meet it, with values. Bounded like describeByte.
 */
export function describeElement(state, vid, start) {
  const v = state.viewById[vid];
  const r = v && state.regions.find((x) => x.id === v.region);
  if (!r) return null;
  const end = start + v.itemsize;
  let left = LIMITS.frameBudget, truncated = false;
  const mine = elementsInWindow(v.shape, v.bstrides, v.itemsize, v.byte_offset, start, end, LIMITS.hoverReaders, LIMITS.walkBudget);
  left -= mine.visited;
  const indices = mine.filter((e) => e.start === start).map((e) => e.index);
  const others = [];
  for (const w of regionViews(state, r)) {
    if (w.id === vid || (w.footprint && (end <= w.footprint[0] || start >= w.footprint[1]))) continue;
    const room = LIMITS.hoverReaders - others.length;
    if (room <= 0 || left <= 0) { truncated = true; break; }
    const els = elementsInWindow(w.shape, w.bstrides, w.itemsize, w.byte_offset, start, end, room, Math.min(LIMITS.walkBudget, left));
    left -= els.visited;
    truncated = truncated || els.truncated;
    for (const e of els) {
      others.push({ view: w.id, name: w.name, index: e.index, start: e.start, end: e.start + w.itemsize, value: valueAt(r, w, e.start) });
    }
  }
  return { view: vid, name: v.name, start, end, value: valueAt(r, v, start), indices,
    indicesTruncated: mine.truncated, others, truncated };
}

export function tipForByte(d) {
  if (!d) return "";
  const rows = d.readers.map((x) => `<tr><td><b>${esc(x.name)}</b>[${x.index.join(", ")}]</td>` +
    `<td>${x.value == null ? "<i>not in preview</i>" : esc(x.value)}</td>` +
    `<td class="pti-dim">byte ${x.byteInElement} of element</td></tr>`).join("");
  const more = d.truncated ? `<div class="pti-dim">more readers not listed (too many to search in one hover)</div>` : "";
  return `<div class="pti-tip-h">byte ${d.byte_offset} <span class="pti-dim">(${esc(d.address)})</span>` +
    ` = ${d.hex == null ? "?" : "0x" + d.hex}</div>` +
    (rows ? `<table>${rows}</table>` : d.truncated ? "" : `<div class="pti-dim">no inspected view reads this byte</div>`) + more;
}

const MAX_TIP_OVERLAPS = 12, MAX_TIP_INDICES = 24;

export function tipForElement(d) {
  if (!d) return "";
  const idx = d.indices.length ? d.indices : [[]];
  const shown = idx.slice(0, MAX_TIP_INDICES).map(idxList).join(", ") +
    (idx.length > MAX_TIP_INDICES || d.indicesTruncated ? ", \u2026" : "");
  const head = `<div class="pti-tip-h"><b>${esc(d.name)}</b>${idxList(idx[0])} = ${d.value == null ? "?" : esc(d.value)} ` +
    `<span class="pti-dim">bytes [${d.start}, ${d.end})</span></div>` +
    (idx.length > 1 ? `<div>read by ${idx.length}${d.indicesTruncated ? "+" : ""} indices: ${shown}</div>` : "");
  const rows = d.others.map((x) => `<tr><td><b>${esc(x.name)}</b>${idxList(x.index)}</td>` +
    `<td>${x.value == null ? "<i>not in preview</i>" : esc(x.value)}</td>` +
    `<td class="pti-dim">bytes [${x.start}, ${x.end})</td></tr>`).join("");
  const more = d.truncated ? `<div class="pti-dim">more not listed (too many to search in one hover)</div>` : "";
  return head + (rows ? `<div>the same bytes in other lanes:</div><table>${rows}</table>`
    : `<div class="pti-dim">no other lane reads these bytes</div>`) + more;
}

// Exact below 10 KiB (what a learner counts by hand), rounded above.
export const bytesOrUnknown = (n) => (n == null ? "?" : n < 10240 ? `${n} B` : fmtBytes(n));

export function tipForView(d) {
  if (!d) return "";
  const strides = d.strides ? `(${d.strides.join(", ")}) elements = (${d.bstrides.join(", ")}) bytes`
    : `(${d.bstrides.join(", ")}) bytes`;
  const ov = d.overlaps.slice(0, MAX_TIP_OVERLAPS).map((o) => `<li>${esc(o.with)}: bytes [${o.lo}, ${o.hi})` +
    `${o.shared == null ? " (footprints meet)" : `, ${o.shared} B shared`}</li>`).join("") +
    (d.overlaps.length > MAX_TIP_OVERLAPS ? `<li>and ${d.overlaps.length - MAX_TIP_OVERLAPS} more</li>` : "");
  const status = d.status === "temporary"
    ? `<tr><td>status</td><td><span class="pti-tag pti-tag-temp">temporary</span> ` +
      `${d.note ? esc(d.note) : "the Python object is gone; its bytes are alive, drawn from the layout recorded when it was inspected"}</td></tr>`
    : d.note ? `<tr><td>note</td><td>${esc(d.note)}</td></tr>` : "";
  const made = d.lineage_text ? `<tr><td>made by</td><td class="pti-tip-lineage">${esc(d.lineage_text)}</td></tr>` : "";
  const origin = d.origin && d.origin.text ? `<tr><td>bytes</td><td class="pti-tip-origin${d.origin.shared === false ? " pti-copied-text" : ""}">` +
    `${esc(d.origin.text)}</td></tr>` : "";
  return `<div class="pti-tip-h"><b>${esc(d.name)}</b> ${esc(d.type)}</div><table>` + status + made + origin +
    `<tr><td>shape</td><td>(${d.shape.join(", ")})</td></tr>` +
    `<tr><td>strides</td><td>${strides}</td></tr>` +
    `<tr><td>offset</td><td>${d.storage_offset} elements, byte ${d.byte_offset} of the buffer</td></tr>` +
    `<tr><td>dtype</td><td>${esc(d.dtype)} (${d.itemsize} B)</td></tr>` +
    `<tr><td>footprint</td><td>bytes [${d.footprint[0]}, ${d.footprint[1]}), touches ${d.touched == null ? "?" : d.touched} B</td></tr>` +
    (d.exclusive !== undefined ? `<tr><td>owns</td><td>${bytesOrUnknown(d.exclusive)} alone, ${bytesOrUnknown(d.shared)} ` +
      `shared with other lanes${d.ownership_note ? ` <span class="pti-dim">(${esc(d.ownership_note)})</span>` : ""}</td></tr>` : "") +
    `<tr><td>contiguous</td><td>${d.contiguous ? "yes" : "no"}${d.readonly ? " \u00b7 read-only" : ""}</td></tr>` +
    `<tr><td>idiom</td><td>${d.tags.map((t) => `<span class="pti-tag">${esc(t)}</span>`).join(" ")}` +
    `${d.max_hits > 1 ? ` each byte read up to ${d.max_hits}\u00d7` : ""}</td></tr></table>` +
    (ov ? `<div>overlaps:</div><ul>${ov}</ul>` : "");
}

// ---- marks.mjs
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

// ---- order.mjs
// order: the logical-order path under a lane zoomed to bytes (indices above, arcs below).

/** For steps with pixel ends x0, x1: a track number each, the lowest whose earlier steps all end
 * before this one begins (steps sharing only an end cell may share a track). Greedy by left end. */
export function tracks(list) {
  const order = list.map((st, k) => [Math.min(st.x0, st.x1), Math.max(st.x0, st.x1), k]).sort((p, q) => p[0] - q[0] || p[1] - q[1]);
  const ends = [], out = new Array(list.length);
  for (const [a, b, k] of order) {
    let t = ends.findIndex((e) => e <= a + 0.5);
    if (t < 0) { t = ends.length; ends.push(b); } else ends[t] = b;
    out[k] = t;
  }
  return out;
}

/** Whether a walk (elements in row-major index order) only ever moves forward in memory: its order
 * path is then a plain run of arcs, and it is not the lane whose path is shown by default. */
export function walksForward(els) {
  for (let k = 1; k < els.length; k++) if (els[k].start <= els[k - 1].start) return false;
  return true;
}

export function orderSvg(v, els, cells, yb, cellW, frame, room = ORDER_BELOW) {
  const steps = new Map(), starts = [];
  let prev = null, prevFlat = 0;
  for (const e of els) {
    const flat = flatIndex(v.shape, e.index);
    if (prev !== null && e.start !== prev) {
      const gap = flat !== prevFlat + 1, key = `${prev}>${e.start}${gap ? "~" : ""}`;
      if (!steps.has(key)) steps.set(key, { from: prev, to: e.start, gap });
    }
    if (e.start !== prev) starts.push(e.start);
    prev = e.start;
    prevFlat = flat;
  }
  const loops = [...cells.entries()].filter(([, c]) => c.n > 1);
  if (steps.size + loops.length > frame.work.cells) {
    return `<g class="pti-order-skipped" data-view="${esc(v.id)}"><title>order path not drawn: this picture's drawing budget is spent</title></g>`;
  }
  frame.work.cells -= steps.size + loops.length;
  // Steps of one kind share one <path> (subpaths), and so do their arrowheads: a lane of a few
  // hundred elements stays a handful of nodes for the browser to lay out. Each step is a bracket
  // under the lane (down from one cell, along, up into the next) on a track of its own depth, and
  // steps whose spans overlap take different tracks: a transpose's long jumps read as stacked
  // lines crossing at right angles, not as a knot of curves.
  const d = { fwd: [], back: [], fwdGap: [], backGap: [], fwdArrow: [], backArrow: [] };
  const list = [...steps.values()].map((st) => ({ ...st, x0: cells.get(st.from).cx, x1: cells.get(st.to).cx }));
  const track = tracks(list);
  const nTracks = Math.max(1, ...track.map((t) => t + 1)), gap = Math.min(3, (room - 4) / nTracks);
  list.forEach((st, k) => {
    const { x0, x1 } = st, dx = x1 - x0, dir = Math.sign(dx) || 1;
    const depth = 3 + gap * (track[k] + 1), ya = yb + depth, r = Math.min(2, Math.abs(dx) / 4, depth / 2);
    const kind = st.to < st.from ? "back" : "fwd";     // a step back in memory is drawn in the warning colour
    const f = (n) => n.toFixed(1);
    d[kind + (st.gap ? "Gap" : "")].push(`M${f(x0)} ${yb}L${f(x0)} ${f(ya - r)}Q${f(x0)} ${f(ya)} ${f(x0 + dir * r)} ${f(ya)}` +
      `L${f(x1 - dir * r)} ${f(ya)}Q${f(x1)} ${f(ya)} ${f(x1)} ${f(ya - r)}L${f(x1)} ${yb}`);
    if (Math.abs(dx) >= 6) {
      const mx = (x0 + x1) / 2, h = 2.6;
      d[kind + "Arrow"].push(`M${f(mx + dir * h)} ${f(ya)}L${f(mx - dir * h)} ${f(ya - h)}L${f(mx - dir * h)} ${f(ya + h)}Z`);
    }
  });
  const parts = [`<g class="pti-order" data-view="${esc(v.id)}" data-starts="${starts.join(",")}">`];
  const path = (cls, list) => (list.length ? `<path class="${cls}" d="${list.join("")}"/>` : "");
  parts.push(path("pti-step", d.fwd), path("pti-step pti-step-back", d.back), path("pti-step pti-step-gap", d.fwdGap),
    path("pti-step pti-step-back pti-step-gap", d.backGap), path("pti-step-arrow", d.fwdArrow),
    path("pti-step-arrow pti-step-back", d.backArrow));
  for (const [start, c] of loops) {
    const cy = yb + 4.5, n = `\u00d7${abbreviate(String(c.n), 5)}`;
    const showN = c.w >= n.length * IDX_CHAR_W + 14;
    parts.push(`<g class="pti-loop" data-start="${start}"><circle cx="${c.cx.toFixed(1)}" cy="${cy}" r="3.5"/>` +
      (showN ? `<text x="${(c.cx + 6).toFixed(1)}" y="${yb + 9}">${n}</text>` : "") + `</g>`);
  }
  parts.push(`</g>`);
  return parts.join("");
}

/** A lane in overview mode: runs of touched bytes when they are few, else the footprint shaded by density. */
export function summaryLane(v, o, x, frame) {
  const { z0, z1, y } = o;
  const a = Math.max(z0, v.footprint[0]), b = Math.min(z1, v.footprint[1]);
  const color = v.color || PALETTE[0];
  if (!(b > a) || !v.numel) return { svg: "" };
  if (v.dense) {
    return { svg: `<rect class="pti-run" x="${x(a).toFixed(2)}" y="${y + 5}" width="${Math.max(1, x(b) - x(a)).toFixed(2)}" height="18" fill="${color}"/>` };
  }
  const work = frame.work;
  if (work.left <= 0) return { svg: overviewRun(v, o, x, a, b, SPENT), overview: true };
  const els = elementsInWindow(v.shape, v.bstrides, v.itemsize, v.byte_offset, a, b, LIMITS.laneElems, Math.min(LIMITS.walkBudget, work.left));
  work.left -= els.visited;
  if (els.outOfBudget) return { svg: overviewRun(v, o, x, a, b, "too many index combinations to search at this zoom"), overview: true };
  if (els.truncated) return { svg: overviewRun(v, o, x, a, b, "too many elements to draw at this zoom"), overview: true };
  // merge elements into pixel runs
  const runs = [];
  els.sort((p, q) => p.start - q.start);
  for (const e of els) {
    const p0 = x(e.start), p1 = Math.max(x(e.start + v.itemsize), p0 + 1);
    const last = runs[runs.length - 1];
    if (last && p0 <= last[1] + 0.5) last[1] = Math.max(last[1], p1); else runs.push([p0, p1]);
  }
  if (runs.length > work.cells) return { svg: overviewRun(v, o, x, a, b, "this picture's drawing budget is spent"), overview: true };
  work.cells -= runs.length;
  return { svg: runs.map(([p0, p1]) => `<rect class="pti-run" x="${p0.toFixed(2)}" y="${y + 5}" width="${(p1 - p0).toFixed(2)}" height="18" fill="${color}"/>`).join("") };
}

/** The footprint between bytes a and b, shaded by how much of it the view touches; its title says it is not exact. */
export function overviewRun(v, o, x, a, b, why) {
  const fp = Math.max(1, v.footprint[1] - v.footprint[0]);
  const known = v.touched_bytes != null;
  const density = known ? Math.min(1, v.touched_bytes / fp) : 0.5;
  const share = known ? `${(density * 100).toFixed(0)}% of the footprint is touched` : "touched bytes unknown";
  return `<rect class="pti-run pti-sparse" x="${x(a).toFixed(2)}" y="${o.y + 5}" width="${Math.max(1, x(b) - x(a)).toFixed(2)}" ` +
    `height="18" fill="${v.color || PALETTE[0]}" opacity="${(0.25 + 0.75 * density).toFixed(2)}"><title>overview, not exact ` +
    `(${esc(why)}): ${share}; zoom in to see elements</title></rect>`;
}

// ---- lane.mjs
// lane: one view's lane: label, footprint, overlaps, element cells or an overview run.

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

// ---- table.mjs
// table: who owns what, one row per view, and the legend.

// ------------------------------------------------------------------ who owns what
const LINE = 12;     // between the lines of a wrapped cell
const tuple = (xs) => (xs == null ? "\u2014" : `(${xs.join(", ")}${xs.length === 1 ? "," : ""})`);

/** "base 16 B, grid 4 B, and 3 more": the views this one shares bytes with (the pairs in state.overlaps). */
function partnersText(state, v, frame) {
  const list = (frame.ovByView.get(v.id) || []).filter((o) => o.shared_bytes !== 0).map((o) => {
    const w = state.viewById[o.a === v.id ? o.b : o.a];
    return { name: w ? w.name : "?", bytes: o.shared_bytes };
  });
  if (!list.length) return "\u2014";
  const shown = list.slice(0, LIMITS.tablePartners).map((p) => `${p.name} ${bytesOrUnknown(p.bytes)}`);
  return shown.join(", ") + (list.length > LIMITS.tablePartners ? `, and ${list.length - LIMITS.tablePartners} more` : "");
}

// The table's columns: key (data-col), header, its hover text, a view's cell text, and the width in characters
// a narrow picture may cut it to (0: never cut).
const TABLE_COLS = [
  ["view", "view", "the lane's name", (v) => v.name, 10],
  ["shape", "shape", "", (v) => tuple(v.shape), 0],
  ["dtype", "dtype", "", (v) => v.dtype, 0],
  ["strides", "strides", "in elements: how far the next index moves", (v) => tuple(v.strides), 0],
  ["bstrides", "in bytes", "strides in bytes", (v) => tuple(v.bstrides), 0],
  ["storage_offset", "offset", "storage offset, in elements", (v) => String(v.storage_offset), 0],
  ["byte_offset", "at byte", "where element 0 is, from the start of this buffer", (v) => String(v.byte_offset), 0],
  ["touched", "touched", "distinct bytes the view reads", (v) => bytesOrUnknown(v.touched_bytes), 0],
  ["exclusive", "alone", "bytes no other view in this picture reads", (v) => bytesOrUnknown(v.exclusive_bytes), 0],
  ["shared", "shared", "bytes some other view in this picture reads too", (v) => bytesOrUnknown(v.shared_bytes), 0],
  ["with", "shared with", "bytes in common with each other view", null, 12],
  ["readonly", "read-only", "", (v) => (v.readonly ? "yes" : "no"), 0],
  ["provenance", "provenance", "where the view's memory came from", (v) => v.provenance || "?", 10],
  ["lineage", "made by", "the expressions that made this view, its own first", madeBy, 12],
];

// Columns a narrow picture leaves out, first to last: each is also in the lane's label or hover.
const TABLE_DROP = ["lineage", "readonly", "bstrides", "byte_offset", "dtype", "storage_offset", "strides", "shape"];

/** Widths in characters of columns `cols`: their longest text, the shrinkable ones cut to fit `room`. */
function fitColumns(cols, cells, room) {
  const widths = cols.map((c) => Math.max(TABLE_COLS[c][1].length, ...cells.map((row) => row[c].length)));
  for (let over = widths.reduce((p, q) => p + q, 0) - room, k = cols.length - 1; over > 0 && k >= 0; k--) {
    const min = TABLE_COLS[cols[k]][4];
    if (!min || widths[k] <= min) continue;
    const cut = Math.min(over, widths[k] - min);
    widths[k] -= cut;
    over -= cut;
  }
  return widths;
}

/**
 * Who owns what, under a buffer's lanes: one row per view (name, layout, bytes touched, alone and
 * shared, with whom, read-only, provenance) and the buffer's total, each byte counted once. Column
 * widths follow their text; when the picture is too narrow, the columns that may shrink wrap
 * their text (the full text is in the cell's title), and a picture narrower still leaves out the
 * columns the lanes already show (TABLE_DROP; the table's data-hidden names them).
 */
export function tableSvg(state, r, views, y0, width, frame, nViews = views.length) {
  const rows = views.slice(0, LIMITS.tableRows);
  const all = rows.map((v) => TABLE_COLS.map(([key, , , f]) => String(key === "with" ? partnersText(state, v, frame) : f(v))));
  const chars = Math.floor((width - 2 * PAD - 14) / CHAR_W);
  // "made by" only where the model says (older snapshots have no lineage)
  const lineage = views.some((v) => v.lineage);
  let cols = TABLE_COLS.map((_, c) => c).filter((c) => lineage || TABLE_COLS[c][0] !== "lineage"), widths;
  for (const drop of [null, ...TABLE_DROP]) {
    if (drop) cols = cols.filter((c) => TABLE_COLS[c][0] !== drop);
    widths = fitColumns(cols, all, chars - 2 * cols.length);
    if (widths.reduce((p, q) => p + q, 0) <= chars - 2 * cols.length) break;
  }
  const cells = all.map((row) => cols.map((c) => row[c]));
  const xs = [];
  widths.reduce((x, w) => { xs.push(x); return x + (w + 2) * CHAR_W; }, PAD + 14);
  const hidden = TABLE_COLS.filter(([key], c) => !cols.includes(c) && (lineage || key !== "lineage")).map(([key]) => key);
  // a cell too long for its column wraps onto more lines of its row (its title keeps the text whole)
  const text = (t, k, cls, y) => {
    const lines = wrapText(t, widths[k]), x = xs[k].toFixed(1);
    const body = lines.length === 1 ? esc(t) : lines.map((line, j) =>
      `<tspan x="${x}" dy="${j ? LINE : 0}">${esc(line)}</tspan>`).join("");
    return `<text class="${cls}" data-col="${TABLE_COLS[cols[k]][0]}" x="${x}" y="${y}">` +
      `${lines.length > 1 ? `<title>${esc(t)}</title>` : ""}${body}</text>`;
  };
  const height = (row) => ROW_H + LINE * (Math.max(...row.map((t, k) => wrapText(t, widths[k]).length)) - 1);
  const parts = [`<g class="pti-table" data-region="${esc(r.id)}"${hidden.length ? ` data-hidden="${hidden.join(",")}"` : ""}>`];
  parts.push(`<g class="pti-thead">` + cols.map((c, k) => {
    const [, head, hint] = TABLE_COLS[c];
    return hint ? `<g><title>${esc(hint)}</title>${text(head, k, "pti-th", y0 + 11)}</g>` : text(head, k, "pti-th", y0 + 11);
  }).join("") + `</g>`);
  let y = y0 + ROW_H;
  rows.forEach((v, k) => {
    const h = height(cells[k]);
    parts.push(`<g class="pti-row" data-view="${esc(v.id)}" data-name="${esc(v.name)}">` +
      `<rect class="pti-row-bg${k % 2 ? " pti-odd" : ""}" x="${PAD}" y="${y}" width="${width - 2 * PAD}" height="${h}"/>` +
      `<rect x="${PAD + 3}" y="${y + 4}" width="8" height="8" fill="${v.color || PALETTE[0]}"/>` +
      cells[k].map((t, c) => text(t, c, t === "?" ? "pti-td pti-unknown-n" : "pti-td", y + 12)).join("") +
      (v.ownership_note ? `<title>${esc(v.ownership_note)}</title>` : "") + `</g>`);
    y += h;
  });
  if (views.length > rows.length) {
    parts.push(`<text class="pti-dim" x="${PAD + 14}" y="${y + 12}">and ${views.length - rows.length} more views</text>`);
    y += ROW_H;
  }
  if (nViews > views.length) {
    // folded lanes are counted in the total, not listed (unfold them to list them)
    parts.push(`<text class="pti-dim pti-folded-rows" x="${PAD + 14}" y="${y + 12}">and ${nViews - views.length} folded ` +
      `lane${nViews - views.length === 1 ? "" : "s"}: unfold to list them</text>`);
    y += ROW_H;
  }
  const total = wrapText(totalText(r, nViews), chars);
  parts.push(`<text class="pti-total" x="${PAD + 14}" y="${y + 13}">${esc(total[0])}` +
    `${r.union_note ? `<title>${esc(r.union_note)}</title>` : ""}</text>`);
  for (const line of total.slice(1)) {
    y += ROW_H;
    parts.push(`<text class="pti-total" x="${PAD + 14}" y="${y + 13}">${esc(line)}</text>`);
  }
  parts.push(`</g>`);
  return [parts.join(""), y + ROW_H + 4];
}

/** The buffer's total without double counting, next to its size and to the sum that would double-count. */
function totalText(r, n) {
  if (r.union_bytes === undefined) return `buffer: ${fmtBytes(r.nbytes)}`;
  const sum = r.touched_sum != null && n > 1 && r.touched_sum !== r.union_bytes
    ? ` (${bytesOrUnknown(r.touched_sum)} if each view were counted alone)` : "";
  return `together: ${bytesOrUnknown(r.union_bytes)} of this ${bytesOrUnknown(r.nbytes)} buffer reached, each byte counted once${sum}` +
    (r.union_bytes == null && r.union_note ? ` \u2014 ${r.union_note}` : "");
}

// Legend swatches are not bytes (class pti-key, not pti-byte), so `.pti-byte` selects the byte strip only.
// Each entry is [its key drawn at (x, y), key width, text]; entries flow into rows that fit the picture.
export function legendSvg(y, width, ids, ordered, files) {
  const box = (cls, fill = "") => (x, t) => `<rect class="${cls}" x="${x}" y="${t}" width="12" height="12"${fill}/>`;
  const arc = (back) => (x, t) => `<g class="pti-order-key" transform="translate(${x},${t})">` +
    `<path class="pti-step${back}" d="M1 2L1 10L15 10L15 2"/><path class="pti-step-arrow${back}" ` +
    `d="${back ? "M5.4 10L10.6 7.4L10.6 12.6Z" : "M10.6 10L5.4 7.4L5.4 12.6Z"}"/></g>`;
  const none = () => "";
  const items = [[box("pti-key pti-n1"), 16, "read by one view"], [box("pti-key pti-n2"), 16, "shared by several views"],
    [box("pti-key pti-unknown", ` fill="url(#${ids.unk})"`), 16, "not in preview"],
    [box("pti-ovl", ` fill="url(#${ids.hatch})"`), 16, "footprints overlap"],
    [none, 0, "\u27f2\u00d7n: a view reads a byte n times"]];
  if (files) {
    items.push([box("pti-key pti-resident"), 16, "file page resident in RAM"],
      [box("pti-key pti-cow"), 16, "page copied on write (no longer the file's bytes)"]);
  }
  if (ordered) {
    items.push([none, 0, "[i, j] over a cell: its index"], [arc(""), 18, "the walk from each index to the next"],
      [arc(" pti-step-back"), 18, "a step back in memory"], [none, 0, "\u25cb\u00d7n: one cell, n indices"]);
  }
  const parts = [`<g class="pti-legend" transform="translate(${PAD},${y})">`];
  let x = 0, row = 0;
  for (const [key, kw, text] of items) {
    const w = kw + text.length * 5.9;
    if (x > 0 && x + w > width - 2 * PAD) { x = 0; row += 16; }
    parts.push(key(x, row) + `<text x="${(x + kw).toFixed(1)}" y="${row + 10}">${esc(text)}</text>`);
    x += w + 18;
  }
  parts.push(`</g>`);
  return [parts.join(""), row + 22];
}

/**
 * What one renderSvg call shares across regions and lanes: the pattern ids
 * (unique per mounted view, since ids are global to the page and a removed
 * SVG takes its patterns with it), the work left, and overlaps by view.
 */

// ---- fold.mjs
// fold: a family of many lanes (views[0], views[1], ... as `inspect(views)` names a list's items)
// folded into one compact coverage view: a few rows, each a group of lanes, shaded by how many of
// them reach each stretch of bytes. 500 views stay one screen tall; a toggle unfolds them.

const MEMBER = /^(.*)\[(\d+)\]$/;

/**
 * The families of `views` (in order): runs of consecutive views named `prefix[i]` with one prefix,
 * at least `minSize` long. Returns [{key, prefix, members}], `key` naming the family in `ui.fold`.
 */
export function families(views, rid, minSize = LIMITS.foldMin) {
  const out = [];
  let cur = null;
  for (const v of views) {
    const m = MEMBER.exec(String(v.name));
    if (m && cur && cur.prefix === m[1]) { cur.members.push(v); continue; }
    if (cur && cur.members.length >= minSize) out.push(cur);
    cur = m ? { key: `${rid}:${m[1]}`, prefix: m[1], members: [v] } : null;
  }
  if (cur && cur.members.length >= minSize) out.push(cur);
  return out;
}

/** Whether a family is drawn folded: yes, until its toggle says otherwise. */
export const folded = (ui, fam) => !(ui.fold && ui.fold[fam.key] === false);

const isEmpty = (v) => !v.numel || !(v.footprint[1] > v.footprint[0]);

/**
 * Per bucket k of [z0, z0 + span) in `nb` buckets, how many of `views`' footprints meet it, each
 * counted with `weight(v)` (1: a count): one sweep over sorted starts and ends.
 */
export function foldCounts(views, z0, span, nb, weight = () => 1) {
  const starts = views.map((v) => [v.footprint[0], weight(v)]).sort((p, q) => p[0] - q[0]);
  const ends = views.map((v) => [v.footprint[1], weight(v)]).sort((p, q) => p[0] - q[0]);
  const out = new Float64Array(nb);
  let i = 0, j = 0, begun = 0, ended = 0;
  for (let k = 0; k < nb; k++) {
    const a = z0 + Math.floor((span * k) / nb), b = z0 + Math.floor((span * (k + 1)) / nb);
    while (i < starts.length && starts[i][0] < Math.max(b, a + 1)) begun += starts[i++][1];
    while (j < ends.length && ends[j][0] <= a) ended += ends[j++][1];
    out[k] = begun - ended;
  }
  return out;
}

/** How much of its footprint a view reads (its shade in a fold row): 1 for a dense view, 0.5 unknown. */
const density = (v) => (v.touched_bytes == null ? 0.5
  : Math.min(1, v.touched_bytes / Math.max(1, v.footprint[1] - v.footprint[0])));

/** The toggle that folds or unfolds a family: pressed while folded. */
export function foldToggle(rid, fam, on, x, y) {
  const label = on ? "unfold" : "fold", w = Math.round(label.length * CHAR_W + 12);
  return `<g class="pti-toggle${on ? " pti-on" : ""}" data-act="fold" data-region="${esc(rid)}" data-family="${esc(fam.key)}" ` +
    `role="button" tabindex="0" aria-pressed="${on}" transform="translate(${x},${y})"><title>${on ? "show every lane of " :
      "fold the lanes of "}${esc(fam.prefix)}</title><rect width="${w}" height="16" rx="3"/>` +
    `<text x="${w / 2}" y="12" text-anchor="middle">${label}</text></g>`;
}

/**
 * A folded family at `y`: a header line (what was folded, how many empty lanes are hidden) and one
 * row per group of lanes, each a bar over the visible bytes [z0, z1) shaded by how many of the
 * group's footprints reach each stretch. Returns [svg, height]. Its cost: rows x buckets, whatever
 * the family's size (plus one sort of its footprints).
 */
export function foldSvg(rid, fam, g, y) {
  const { z0, span, sx, sw, width } = g;
  const live = fam.members.filter((v) => !isEmpty(v)), hidden = fam.members.length - live.length;
  const per = Math.max(1, Math.ceil(live.length / LIMITS.foldRows)), rows = Math.ceil(live.length / per);
  const head = `${fam.prefix}: ${fam.members.length} lanes folded into ${rows} row${rows === 1 ? "" : "s"}` +
    (per > 1 ? ` of up to ${per}` : "") + (hidden ? `; ${hidden} empty lane${hidden === 1 ? "" : "s"} hidden` : "");
  const room = Math.floor((width - 2 * PAD - 70) / CHAR_W);
  const lines = wrapText(head, room);
  const parts = [`<g class="pti-fold" data-region="${esc(rid)}" data-family="${esc(fam.key)}" data-lanes="${fam.members.length}" ` +
    `data-rows="${rows}" data-hidden="${hidden}">`];
  lines.forEach((t, k) => parts.push(`<text class="pti-fold-head" x="${PAD}" y="${y + 12 + k * 13}">${esc(t)}</text>`));
  parts.push(foldToggle(rid, fam, true, width - PAD - 60, y + 1));
  let yy = y + 6 + 13 * lines.length;
  const nb = Math.max(1, Math.min(Math.ceil(sw / 3), span)), bw = sw / nb;
  const color = fam.members[0].color || PALETTE[0];
  for (let k = 0; k < rows; k++) {
    const group = live.slice(k * per, (k + 1) * per);
    const idx = (v) => MEMBER.exec(v.name)[2];
    const name = group.length > 1 ? `[${idx(group[0])}\u2013${idx(group[group.length - 1])}]` : `[${idx(group[0])}]`;
    parts.push(`<g class="pti-fold-row" data-first="${esc(group[0].id)}" data-count="${group.length}">` +
      `<text class="pti-fold-name" x="${LABEL_W - 4}" y="${yy + 9}" text-anchor="end">${esc(fam.prefix + name)}</text>` +
      `<rect class="pti-fold-bg" x="${sx}" y="${yy + 1}" width="${sw}" height="${FOLD_ROW_H - 2}"/>`);
    // shaded by the bytes the group reads there: each lane that reaches a stretch adds the share of
    // its footprint it reads (a dense lane 1, a step-4 lane 1/4), out of the group's size
    const counts = foldCounts(group, z0, span, nb), reads = foldCounts(group, z0, span, nb, density);
    for (let b = 0; b < nb;) {
      let e = b + 1;
      while (e < nb && counts[e] === counts[b] && Math.abs(reads[e] - reads[b]) < 1e-9) e++;
      if (counts[b] > 0) {
        const share = reads[b] / counts[b];
        parts.push(`<rect class="pti-fold-run" x="${(sx + b * bw).toFixed(2)}" y="${yy + 1}" width="${((e - b) * bw).toFixed(2)}" ` +
          `height="${FOLD_ROW_H - 2}" fill="${color}" fill-opacity="${(0.15 + (0.85 * reads[b]) / group.length).toFixed(2)}">` +
          `<title>${esc(fam.prefix + name)}: ${counts[b]} of ${group.length} lanes reach bytes ` +
          `[${z0 + Math.floor((span * b) / nb)}, ${z0 + Math.floor((span * e) / nb)}), reading ` +
          `${Math.round(100 * share)}% of their footprints on average</title></rect>`);
      }
      b = e;
    }
    parts.push(`</g>`);
    yy += FOLD_ROW_H;
  }
  parts.push(`</g>`);
  return [parts.join(""), yy - y + 6];
}

// ---- processes.mjs
// processes: the strip under a buffer that says which processes map its pages, each one's share
// (PSS), and which pages are still shared, were copied, or (a shared mapping) were written since the last
// picture (widgets/_processes.py makes the data).

const PROC_LINES = 8;       // processes named one line each; the rest are counted

/** Drawn only where it says something: another process maps the bytes, or pages were copied or written since. */
export function processesShown(p) {
  return !!p && (p.pids.length > 1 || p.copied_since > 0 || p.written_since > 0);
}

/** "3 pages written since the last picture", or "" when none (or none could be compared). */
export function writtenLine(p) {
  const n = p.written_since;
  return n > 0 ? `${n} page${n === 1 ? "" : "s"} written since the last picture` : "";
}

/** "pid 4242 (python, child): PSS 2.1 MiB of its 4.2 MiB mapping · 512 pages shared · 3 copied by it". */
export function processLine(o) {
  const who = o.relation === "this process" ? `this process (pid ${o.pid})`
    : `pid ${o.pid} (${o.name ? `${o.name}, ` : ""}${o.relation})`;
  const parts = [];
  if (o.pss_bytes != null) parts.push(`PSS ${fmtBytes(o.pss_bytes)} of its ${fmtBytes(o.mapped_bytes)} mapping`);
  if (o.shared_pages != null) parts.push(`${o.shared_pages} page${o.shared_pages === 1 ? "" : "s"} shared`);
  if (o.copied_pages != null) parts.push(`${o.copied_pages} copied by it`);
  return `${who}: ${parts.join(" \u00b7 ") || "its pages cannot be read"}`;
}

/**
 * The processes strip of region r over the byte axis [z0, z1): pages this process maps that another maps
 * too (blue), this process's own copies (orange), pages of a shared mapping written since the last picture
 * (crimson, drawn over the blue), then one line per process. Returns [svg, next y].
 */
export function processesSvg(r, z0, z1, sx, sw, y, width) {
  const p = r.processes;
  if (!processesShown(p)) return ["", y];
  const me = p.pids[0], others = p.pids.slice(1);
  const parts = [`<g class="pti-procs" data-region="${esc(r.id)}" data-mapping="${esc(p.mapping)}" ` +
    `data-pids="${others.map((o) => o.pid).join(" ")}" data-shared-pages="${me.shared_pages ?? ""}" ` +
    `data-copied-pages="${me.copied_pages ?? ""}" data-written-pages="${p.written_since ?? ""}" data-pages="${p.pages}">`];
  const scale = sw / Math.max(1, z1 - z0);
  const x = (off) => sx + (Math.min(Math.max(off, z0), z1) - z0) * scale;
  const head = others.length ? `shared with ${others.length} other process${others.length === 1 ? "" : "es"}` : "processes";
  parts.push(`<text class="pti-lbl pti-dim" x="${PAD}" y="${y + 7}">${esc(clip(head, Math.floor((sx - PAD - 4) / CHAR_W)))}</text>` +
    `<rect class="pti-pages-bg" x="${sx}" y="${y}" width="${sw}" height="8"><title>${esc(p.shared ? "pages of the buffer; " +
      "blue where another process maps them too, orange where this process has its own copy, crimson where " +
      "written since the last picture" : "page states unknown")}</title></rect>`);
  const page = (cls, what) => ([p0, p1, lo, hi]) => `<rect class="${cls}" data-lo="${lo}" data-hi="${hi}" x="${p0.toFixed(2)}" ` +
    `y="${cls === "pti-proc-copied" ? y + 4 : y}" width="${(p1 - p0).toFixed(2)}" height="${cls === "pti-proc-copied" ? 4 : 8}">` +
    `<title>${what}: bytes [${lo}, ${hi})</title></rect>`;
  parts.push(...pixelRuns(p.shared, z0, z1, x).map(page("pti-proc-shared", "shared with another process")));
  parts.push(...pixelRuns(p.copied, z0, z1, x).map(page("pti-proc-copied", "this process's own copy: no longer shared")));
  parts.push(...pixelRuns(p.written, z0, z1, x).map(page("pti-proc-written", "written since the last picture")));
  y += 12;
  const lines = p.pids.slice(0, PROC_LINES).map(processLine);
  if (p.pids.length > PROC_LINES) lines.push(`and ${p.pids.length - PROC_LINES} more processes`);
  if (p.copied_since) lines.push(`${p.copied_since} page${p.copied_since === 1 ? "" : "s"} copied since the last picture`);
  if (writtenLine(p)) lines.push(writtenLine(p));
  if (p.note) lines.push(`note: ${p.note}`);
  const cols = Math.floor((width - sx - PAD) / CHAR_W);
  lines.forEach((line, k) => {   // a long line wraps onto the rows below it, never cut
    const pid = k < p.pids.length && k < PROC_LINES ? ` data-pid="${p.pids[k].pid}"` : "";
    const rows = wrapText(line, cols);
    parts.push(`<text class="pti-proc" x="${sx}" y="${y + 10}"${pid}><title>${esc(line)}</title>` +
      rows.map((row, i) => `<tspan x="${sx}" dy="${i ? 14 : 0}">${esc(row)}</tspan>`).join("") + `</text>`);
    y += 14 * rows.length;
  });
  parts.push(`</g>`);
  return [parts.join(""), y + 4];
}

// ---- region.mjs
// region: one buffer's picture: header, badges, byte strip or overview, mapped-file strip, its lanes.

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

// ---- picture.mjs
// picture: renderSvg, the whole picture as one SVG string (pure), and its shared defs.

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

// ---- dom.mjs
// dom: the interactive view on a page: mounting, tooltips, zoom and history, patching the picture in place.

export function tipPosition(mx, my, w, h, vw, vh, margin = 4) {
  let left = mx + 14, top = my + 16;
  if (left + w > vw - margin) left = vw - margin - w;
  if (top + h > vh - margin) top = my - 10 - h;
  left = Math.max(margin, Math.min(left, vw - margin - w));
  top = Math.max(margin, Math.min(top, vh - margin - h));
  return { left: Math.max(0, left), top: Math.max(0, top) };
}

/**
 * Put the picture `html` into `holder`, keeping every node of the one already there that did not
 * change: the SVG's children, and one level further down (a region's header, byte strip, lanes and
 * table). A write changes a few lanes, a badge and some bytes, and the browser lays out only
 * those again; replacing the whole picture would lay out every lane's text.
 */
export function patchPicture(holder, html) {
  const old = holder.firstElementChild;
  const tpl = document.createElement("template");
  tpl.innerHTML = html;
  const fresh = tpl.content.firstElementChild;
  if (!old || !fresh || old.tagName !== fresh.tagName || holder.children.length !== 1) {
    holder.replaceChildren(tpl.content);
    return;
  }
  copyAttributes(old, fresh);
  patchChildren(old, fresh, 1);
}

function copyAttributes(old, fresh) {
  for (const { name } of [...old.attributes]) if (!fresh.hasAttribute(name)) old.removeAttribute(name);
  for (const { name, value } of fresh.attributes) if (old.getAttribute(name) !== value) old.setAttribute(name, value);
}

const sameAttributes = (a, b) => a.attributes.length === b.attributes.length &&
  [...b.attributes].every(({ name, value }) => a.getAttribute(name) === value);

function patchChildren(old, fresh, depth) {
  const a = [...old.children], b = [...fresh.children];
  if (a.length !== b.length) { old.replaceChildren(...b); return; }
  for (let i = 0; i < a.length; i++) {
    // a container with the same attributes is patched child by child; anything else is compared whole
    if (depth > 0 && a[i].tagName === b[i].tagName && sameAttributes(a[i], b[i])) patchChildren(a[i], b[i], depth - 1);
    else if (a[i].outerHTML !== b[i].outerHTML) a[i].replaceWith(b[i]);
  }
}

// Pattern ids must differ between every picture on a page, including pictures
// drawn by separate copies of this module (each static export inlines one).
const PAGE_TAG = Math.random().toString(36).slice(2, 8);

let mounted = 0;

export function mount(el, opts) {
  const v = mountDom(el, opts);
  const at = { x: 0, y: 0 };
  const seen = (ev) => { at.x = ev.clientX; at.y = ev.clientY; };
  const onOver = (ev) => { seen(ev); hoverAt(v, ev); }, onMove = (ev) => { seen(ev); if (!v.tip.hidden) placeTip(v, ev); };
  // A fixed tooltip would stay put while the page scrolls under it: it follows what is under the
  // pointer after the scroll (or goes, when that is not this picture).
  const onScroll = () => {
    if (v.tip.hidden) return;
    const under = document.elementFromPoint(at.x, at.y);
    if (under && v.holder.contains(under)) hoverAt(v, { target: under, clientX: at.x, clientY: at.y });
    else { clearHl(v); hideTip(v); }
  };
  const onLeave = () => { clearHl(v); hideTip(v); }, onClick = (ev) => click(v, ev);
  // the picture's buttons (toggles, a lane's order) answer Enter and Space as a button does
  const onKey = (ev) => {
    if ((ev.key === "Enter" || ev.key === " ") && ev.target.closest(".pti-toggle, .pti-label[tabindex]")) {
      ev.preventDefault();
      click(v, ev);
    }
  };
  v.hist.onPick = (generation) => {
    if (generation == null) showStep(v, null);
    else if (opts.send) opts.send({ op: "step", generation });
  };
  v.holder.addEventListener("mouseover", onOver);
  v.holder.addEventListener("mousemove", onMove);
  v.holder.addEventListener("mouseleave", onLeave);
  v.holder.addEventListener("click", onClick);
  v.holder.addEventListener("keydown", onKey);
  window.addEventListener("scroll", onScroll, { capture: true, passive: true });
  return {
    update: (snapshot, previews, changes) => update(v, snapshot, previews, changes),
    draw: () => redraw(v),
    ui: v.ui,
    // History: the slider picks a step; the live view asks Python for its picture (showStep answers).
    setSteps: (steps) => v.hist.set(steps || [], v.past ? v.past.generation : null),
    showStep: (generation, snapshot, previews, changes, info) => showStep(v, generation, snapshot, previews, changes, info),
    destroy() {
      clearTimeout(v.flashTimer);
      v.holder.removeEventListener("mouseover", onOver);
      v.holder.removeEventListener("mousemove", onMove);
      v.holder.removeEventListener("mouseleave", onLeave);
      v.holder.removeEventListener("click", onClick);
      v.holder.removeEventListener("keydown", onKey);
      window.removeEventListener("scroll", onScroll, { capture: true });
      v.layer.remove();
      v.root.remove();
    },
  };
}

/** A view's elements under `el` and its state: `state` is the live picture, `past` a history step shown
 * instead of it. */
function mountDom(el, opts) {
  const root = document.createElement("div");
  root.className = opts.live ? "pti-root pti-live" : "pti-root";
  const bar = document.createElement("div");
  bar.className = "pti-bar";
  const hist = historyBar();
  const holder = document.createElement("div");
  holder.className = "pti-holder";
  const head = document.createElement("div");
  head.className = "pti-head";
  head.append(bar);
  root.append(head, hist.el, holder);
  el.appendChild(root);
  // The tooltip lives on <body>, outside every box that clips (the holder's
  // scroll area, notebook output areas); pti-root gives it the scoped styles.
  const layer = document.createElement("div");
  layer.className = "pti-root pti-tip-layer";
  const tip = document.createElement("div");
  tip.className = "pti-tip";
  tip.hidden = true;
  layer.appendChild(tip);
  document.body.appendChild(layer);
  // The ownership table starts open in a static page (a document to read) and folded in a live
  // widget (a notebook stacks many; its repr prints the same numbers): one click either way.
  // orderLane: per region, the lane whose order path is shown (null: none); fold: per family, false
  // when unfolded; size: the size control's choice (SIZES)
  const ui = { zoom: {}, order: {}, table: {}, tableDefault: !opts.live, flash: null, width: 0,
    uid: `${PAGE_TAG}${++mounted}`, orderLane: {}, fold: {}, size: SIZE_DEFAULT };
  const v = { opts, root, bar, hist, holder, layer, tip, ui, state: null, flashTimer: null, past: null };
  head.append(sizeControl(v));
  root.dataset.size = layer.dataset.size = ui.size;
  return v;
}

const shownState = (v) => (v.past ? v.past.state : v.state);

export function redraw(v) {
  const { ui, opts, past, root, holder, bar } = v, shown = shownState(v);
  if (!shown) return;
  ui.width = Math.max(640, Math.min(1400, Math.floor(root.clientWidth || W_DEFAULT)));
  const flash = ui.flash;
  if (past) { ui.flash = past.changes; ui.past = true; }
  const focused = focusKey(holder);
  patchPicture(holder, renderSvg(shown, ui));
  refocus(holder, focused);
  if (past) { ui.flash = flash; ui.past = false; }
  bar.textContent = `${shown.views.length} view${shown.views.length === 1 ? "" : "s"} of ` +
    `${shown.regions.length} buffer${shown.regions.length === 1 ? "" : "s"} \u00b7 ` +
    (past ? "history: a past picture (live updates wait until you go back to live)" :
      opts.live ? "live" : opts.saved ? "saved with the notebook (no kernel is drawing it; values are from when " +
      "the cell ran)" : "static export (hover works; values are from the moment of export)");
}

export function update(v, snapshot, previews, changes) {
  const { ui, root } = v;
  v.state = attachPreviews(snapshot || {}, previews);
  if (changes && changes.tick && changes.tick !== ui.lastTick) {
    ui.flash = changes;
    ui.lastTick = changes.tick;
    clearTimeout(v.flashTimer);
    v.flashTimer = setTimeout(() => { ui.flash = null; }, 1500);
    root.dataset.flashes = String((+root.dataset.flashes || 0) + 1);
  }
  redraw(v);
}

export function showStep(v, generation, snapshot, previews, changes, info) {
  if (generation == null) v.past = null;
  else v.past = { generation, state: attachPreviews(snapshot || {}, previews), changes: changes || null };
  v.root.dataset.step = v.past ? String(generation) : "live";
  v.hist.mark(v.past ? generation : null, info);
  redraw(v);
}

// ---- hover: the tooltip, and the same bytes lit in every lane
const clearHl = (v) => v.holder.querySelectorAll(".pti-hl").forEach((n) => n.classList.remove("pti-hl"));

const hideTip = (v) => { v.tip.hidden = true; };

const light = (v, selector) => v.holder.querySelectorAll(selector).forEach((n) => n.classList.add("pti-hl"));

function placeTip(v, ev) {
  const de = document.documentElement;
  const vw = de.clientWidth || window.innerWidth, vh = de.clientHeight || window.innerHeight;
  const box = v.tip.getBoundingClientRect();
  const { left, top } = tipPosition(ev.clientX, ev.clientY, box.width, box.height, vw, vh);
  v.tip.style.left = `${left}px`;
  v.tip.style.top = `${top}px`;
}

function showTip(v, html, ev) {
  if (!html) { hideTip(v); return; }
  v.tip.innerHTML = html;
  v.tip.hidden = false;
  placeTip(v, ev);
}

function hoverAt(v, ev) {
  const t = ev.target.closest("[data-off],[data-view]");
  clearHl(v);
  const shown = shownState(v);
  if (!t || !shown) { hideTip(v); return; }
  if (t.dataset.off !== undefined && t.dataset.region) hoverByte(v, shown, t, ev);
  else if (t.dataset.view) hoverView(v, shown, t, ev);
}

function hoverByte(v, shown, t, ev) {
  const d = describeByte(shown, t.dataset.region, +t.dataset.off);
  if (!d) { hideTip(v); return; }
  for (const rd of d.readers) light(v, `.pti-el[data-view="${rd.view}"][data-start="${rd.start}"]`);
  light(v, `.pti-byte[data-region="${t.dataset.region}"][data-off="${t.dataset.off}"]`);
  const extra = t.dataset.end ? `<div class="pti-dim">bytes ${t.dataset.off}\u2013${t.dataset.end}: click to zoom in</div>` : "";
  showTip(v, tipForByte(d) + extra, ev);
}

function hoverView(v, shown, t, ev) {
  const vid = t.dataset.view;
  let html = tipForView(describeView(shown, vid));
  if (t.dataset.start !== undefined && t.classList.contains("pti-el")) {
    // an element: its bytes in the strip, and the cells of every other lane over the same bytes
    const w = shown.viewById[vid], start = +t.dataset.start;
    for (let b = start; b < start + w.itemsize; b++) light(v, `.pti-byte[data-region="${w.region}"][data-off="${b}"]`);
    const d = describeElement(shown, vid, start);
    t.classList.add("pti-hl");
    for (const o of d ? d.others : []) light(v, `.pti-el[data-view="${o.view}"][data-start="${o.start}"]`);
    html = tipForElement(d) + html;
  }
  light(v, `.pti-lane[data-view="${vid}"]`);
  showTip(v, html, ev);
}

// ---- clicks: the order and table toggles, and zoom
function setZoom(v, r, z0, z1) {
  const { ui, opts } = v;
  const span = Math.max(16, z1 - z0);
  z0 = Math.max(0, Math.min(z0, r.nbytes - span));
  z1 = Math.min(r.nbytes, z0 + span);
  if (z0 <= 0 && z1 >= r.nbytes) delete ui.zoom[r.id]; else ui.zoom[r.id] = [z0, z1];
  const p = r.preview || { start: 0, length: 0 };
  if (opts.send && r.host && (z0 < p.start || Math.min(z1, z0 + LIMITS.detailBytes) > p.start + p.length)) {
    opts.send({ op: "window", region: r.id, start: z0 });
  }
  redraw(v);
}

function click(v, ev) {
  const shown = shownState(v);
  if (!shown) return;
  const toggle = ev.target.closest(".pti-toggle");
  if (toggle) {
    const act = toggle.dataset.act, on = toggle.getAttribute("aria-pressed") !== "true";
    if (act === "fold") v.ui.fold[toggle.dataset.family] = on;
    else v.ui[act === "order" ? "order" : "table"][toggle.dataset.region] = on;
    redraw(v);
    return;
  }
  const label = ev.target.closest(".pti-label[tabindex]"), lane = label && label.closest(".pti-lane");
  if (lane) {
    // one lane's order path at a time: this one, or (clicked again) none
    v.ui.orderLane[lane.dataset.region] = label.getAttribute("aria-pressed") === "true" ? null : label.dataset.view;
    redraw(v);
    return;
  }
  const z = ev.target.closest(".pti-zoom");
  const bucket = ev.target.closest(".pti-bucket");
  const mm = ev.target.closest(".pti-minimap");
  const rid = (z || bucket || mm || {}).dataset?.region;
  const r = rid && shown.regions.find((x) => x.id === rid);
  if (!r) return;
  const [z0, z1] = visibleRange(r, v.ui), span = z1 - z0, mid = (z0 + z1) / 2;
  if (z) {
    const act = z.dataset.act;
    if (act === "in") setZoom(v, r, Math.floor(mid - span / 4), Math.ceil(mid + span / 4));
    else if (act === "out") setZoom(v, r, Math.floor(mid - span), Math.ceil(mid + span));
    else if (act === "left") setZoom(v, r, Math.floor(z0 - span / 2), Math.floor(z1 - span / 2));
    else if (act === "right") setZoom(v, r, Math.ceil(z0 + span / 2), Math.ceil(z1 + span / 2));
    else setZoom(v, r, 0, r.nbytes);
  } else if (bucket) {
    // straight to readable bytes: 64 of them, starting where the click landed
    const a = Math.floor(+bucket.dataset.off / 16) * 16;
    setZoom(v, r, a, a + Math.min(64, r.nbytes));
  } else if (mm) {
    const box = mm.getBoundingClientRect(), frac = (ev.clientX - box.left) / Math.max(1, box.width);
    const c = Math.floor(frac * r.nbytes);
    setZoom(v, r, Math.floor(c - span / 2), Math.floor(c - span / 2) + span);
  }
}

/** Static page entry point: no kernel, hover and zoom still work. */
export function mountStatic(el, snapshot, previewsBase64, options = {}) {
  const view = mount(el, { live: false, saved: !!options.saved });
  view.update(snapshot, toU8(previewsBase64), null);
  return view;
}

// The notebook output areas a live view and its static fallback share (JupyterLab and Notebook 7,
// classic Notebook, nbconvert's lab template).
const OUTPUT_AREA = ".jp-OutputArea, .output_area, .output";

/**
 * The static stand-in that the widget's display adds after the live view: drawn only when no live
 * view shares its output area (a saved notebook without a kernel, an nbconvert page). A live view
 * that arrives later removes it (dropFallbacks).
 */
export function mountFallback(el, snapshot, previewsBase64) {
  if (!el || !el.isConnected) return null;   // a newer picture replaced this output before its script ran
  const area = el.closest(OUTPUT_AREA);
  if (area && area.querySelector(".pti-live")) { el.hidden = true; return null; }
  const view = mountStatic(el, snapshot, previewsBase64, { saved: true });
  el.ptiView = view;
  el.dataset.fallback = "shown";
  return view;
}

export function dropFallbacks(el) {
  const area = el.closest(OUTPUT_AREA);
  for (const n of area ? area.querySelectorAll(".pti-fallback .pti-static") : []) {
    if (n.ptiView) n.ptiView.destroy();
    n.ptiView = null;
    n.hidden = true;
    n.dataset.fallback = "hidden";
  }
}

/**
 * The history slider above the picture: one stop per step Python keeps, the last one live.
 * `set(steps)` refreshes the stops, `mark(g)` shows which is drawn, `onPick(g | null)` is called
 * when the user moves it (null: back to live).
 */

export function historyBar() {
  const el = document.createElement("div");
  el.className = "pti-history";
  el.hidden = true;
  const range = document.createElement("input");
  range.type = "range";
  range.min = "0";
  range.className = "pti-history-range";
  range.setAttribute("aria-label", "history: step back through the pictures");
  const label = document.createElement("span");
  label.className = "pti-history-what";
  const live = document.createElement("button");
  live.type = "button";
  live.className = "pti-history-live";
  live.textContent = "live";
  el.append(range, live, label);
  const h = { el, steps: [], shown: null, onPick: () => {} };
  const describe = () => {
    const k = h.shown == null ? h.steps.length - 1 : h.steps.findIndex((s) => s.generation === h.shown);
    range.value = String(Math.max(0, k));
    live.disabled = h.shown == null;
    if (k < 0) { label.textContent = h.shown == null ? "" : "a past step, no longer kept"; return; }
    const s = h.shown == null ? null : h.info;
    const who = s && s.views && s.views.length ? `; read by ${s.views.join(", ")}${s.more_views ? ` and ${s.more_views} more` : ""}` : "";
    label.textContent = `step ${k + 1} of ${h.steps.length}${h.shown == null ? " (live)" : `: ${s ? s.what : ""}${who}`}`;
  };
  h.set = (steps, shown) => {
    h.steps = steps;
    el.hidden = steps.length < 2 && shown == null;
    range.max = String(Math.max(0, steps.length - 1));
    describe();
  };
  h.mark = (g, info) => { h.shown = g; h.info = info || null; describe(); };
  range.addEventListener("input", () => {
    const k = +range.value, s = h.steps[k];
    h.onPick(!s || k === h.steps.length - 1 ? null : s.generation);
  });
  live.addEventListener("click", () => h.onPick(null));
  return h;
}

/**
 * The size control above the picture: small, medium, large (SIZES), as radio buttons a keyboard
 * reaches with Tab and works with Enter, Space or the arrow keys. The choice is the picture's
 * (`ui.size`, and the root's data-size), kept across redraws and updates.
 */
export function sizeControl(v) {
  const group = document.createElement("div");
  group.className = "pti-sizes";
  group.setAttribute("role", "radiogroup");
  group.setAttribute("aria-label", "picture size");
  const names = Object.keys(SIZES);
  const pick = (name) => {
    v.ui.size = name;
    v.root.dataset.size = v.layer.dataset.size = name;
    for (const b of group.children) b.setAttribute("aria-checked", String(b.dataset.size === name));
    redraw(v);
  };
  for (const name of names) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "pti-size";
    b.dataset.size = name;
    b.textContent = name;
    b.setAttribute("role", "radio");
    b.setAttribute("aria-checked", String(name === v.ui.size));
    b.addEventListener("click", () => pick(name));
    b.addEventListener("keydown", (ev) => {
      const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[ev.key];
      if (!step) return;
      ev.preventDefault();
      const next = names[(names.indexOf(name) + step + names.length) % names.length];
      pick(next);
      group.querySelector(`[data-size="${next}"]`).focus();
    });
    group.append(b);
  }
  return group;
}

/** What has the keyboard's focus in the picture, as a selector that finds it again after a redraw. */
function focusKey(holder) {
  const a = holder.ownerDocument && holder.ownerDocument.activeElement;
  if (!a || !holder.contains(a)) return null;
  const attrs = ["data-act", "data-region", "data-family", "data-view"].filter((k) => a.hasAttribute(k));
  return `.${a.classList[0]}` + attrs.map((k) => `[${k}="${CSS.escape(a.getAttribute(k))}"]`).join("");
}

function refocus(holder, key) {
  const n = key && holder.querySelector(key);
  if (n && typeof n.focus === "function") n.focus();
}

// ---- entry.mjs
// entry: the anywidget entry point (render) and the history slider.

// anywidget entry point: redraw on every synced change, poll the kernel for foreign writes.
function render({ model, el }) {
  const view = mount(el, { live: true, send: (msg) => model.send(msg) });
  dropFallbacks(el);
  view.ui.lastTick = (model.get("changes") || {}).tick;   // a new view does not replay an old flash
  const snap = snapshotTraits(model);
  const stops = [followTraits(model, view, snap), poll(model, view, el, snap), followWidth(el, view), keepRenderer(model)];
  return () => {
    for (const stop of stops) stop();
    view.destroy();
  };
}

const TRAITS = ["base", "checkpoint", "delta", "previews", "changes", "steps"];

/** The snapshot traits (base, checkpoint, delta) of `model` as objects, each a promise. The kernel sends
 * them as text: a notebook saved with its widget state keeps each on one line, where nbformat would
 * indent a dict key by key. `delta` (every update) is JSON; `base` and `checkpoint` (sent rarely, saved
 * once per inspector) are base64 of gzipped JSON (_export.pack_json), unpacked off the main thread by
 * DecompressionStream. Each is read once per value it takes. */
function snapshotTraits(model) {
  const seen = new Map();
  return (name) => {
    const value = model.get(name);
    if (!seen.has(name) || seen.get(name)[0] !== value) seen.set(name, [value, readTrait(value)]);
    return seen.get(name)[1];
  };
}

async function readTrait(value) {
  if (typeof value !== "string") return value;          // a stand-in model may hold the objects
  if (!value) return {};
  return value.startsWith("{") ? JSON.parse(value) : unpackJson(value);
}

/** The object _export.pack_json packed into `base64` (as unpack.js's ptiUnpackJson, which the loaders
 * embed; this module is loaded by them and cannot reach their scope). */
async function unpackJson(base64) {
  const packed = Uint8Array.from(atob(base64.trim()), (c) => c.charCodeAt(0));
  const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

/** Draw the model's picture now and whenever its traits change; returns what stops it. */
function followTraits(model, view, snap) {
  const current = async () => applyDelta(applyDelta(await snap("base"), await snap("checkpoint")), await snap("delta"));
  // One update message changes several traits: redraw once, after all of them landed. A packed trait
  // is read asynchronously: only the newest redraw draws, so an older one never lands after it.
  let pending = false, latest = 0, stopped = false;
  const draw = (first) => {
    const mine = ++latest;
    current().then((snapshot) => {
      if (mine !== latest || stopped) return;
      view.setSteps(model.get("steps"));
      view.update(snapshot, model.get("previews"), first ? null : model.get("changes"));
    }, (e) => console.error("pytensor inspector: cannot read the picture", e));
  };
  const sync = () => {
    if (pending) return;
    pending = true;
    Promise.resolve().then(() => {
      pending = false;
      draw(false);
    });
  };
  draw(true);
  for (const t of TRAITS) model.on(`change:${t}`, sync);
  return () => {
    stopped = true;
    for (const t of TRAITS) model.off(`change:${t}`, sync);
  };
}

/** Polling, and the answers to it and to the history slider's requests; returns what stops it.
 * One poll in flight at a time, so a busy kernel never piles them up. After 20 quiet polls the
 * interval relaxes to 1 s; a change or the mouse brings it back. */
function poll(model, view, el, snap) {
  let inflight = 0, timer = null, quiet = 0;
  const onMsg = (msg, buffers) => {
    if (msg && msg.op === "step") {
      if (msg.missing) { view.showStep(null); return; }
      snap("base").then((base) => view.showStep(msg.generation, applyDelta(base, msg.delta), buffers && buffers[0],
        msg.changes, msg.info));
      return;
    }
    if (!msg || msg.op !== "pong") return;
    inflight = 0;
    quiet = msg.changed ? 0 : quiet + 1;
  };
  model.on("msg:custom", onMsg);
  const wake = () => { quiet = 0; };
  el.addEventListener("mouseover", wake);
  const tick = () => {
    const base = model.get("poll_ms") || 0;
    const ms = base > 0 && quiet >= 20 ? Math.max(base, 1000) : base;
    if (ms > 0 && (typeof document === "undefined" || document.visibilityState !== "hidden")) {
      const now = Date.now();
      if (!inflight || now - inflight > 5000) {
        inflight = now;
        try { model.send({ op: "poll" }); } catch { /* kernel gone: keep the last picture */ }
      }
    }
    timer = setTimeout(tick, Math.max(100, ms || 1000));
  };
  timer = setTimeout(tick, Math.max(100, model.get("poll_ms") || 1000));
  return () => {
    clearTimeout(timer);
    model.off("msg:custom", onMsg);
    el.removeEventListener("mouseover", wake);
  };
}

/** The notebook's static copies load the renderer from the one copy that stores it (loader.js). If
 * that copy leaves the page while the kernel runs (its cell deleted, or run anew without an
 * inspector), ask the kernel to store it again in this widget's copy, so the notebook saved next still
 * draws every picture; returns what stops it. */
function keepRenderer(model) {
  const hash = model.get("renderer");
  if (!hash || typeof document === "undefined") return () => {};
  let asked = 0;
  const timer = setInterval(() => {
    if (document.querySelector(`script[data-pti-renderer="${hash}"]`)) return;
    if (asked && Date.now() - asked < 10000) return;
    asked = Date.now();
    try { model.send({ op: "carry" }); } catch { /* kernel gone: nothing can store it now */ }
  }, 2000);
  return () => clearInterval(timer);
}

/** Redraw when the output area changes width (the SVG is laid out for the width it gets). */
function followWidth(el, view) {
  let lastWidth = 0, frame = 0;
  const onResize = () => {
    const w = el.clientWidth;
    if (w && Math.abs(w - lastWidth) > 8) {
      lastWidth = w;
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => view.draw());
    }
  };
  const ro = typeof ResizeObserver !== "undefined" ? new ResizeObserver(onResize) : null;
  if (ro) ro.observe(el);
  return () => {
    if (ro) ro.disconnect();
    cancelAnimationFrame(frame);
  };
}

export default { render };
