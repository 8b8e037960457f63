// state: the snapshot as the renderer holds it (deltas applied, previews attached) and small helpers over it.
import { PALETTE } from "./geometry.mjs";
import { decode } from "./values.mjs";

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
