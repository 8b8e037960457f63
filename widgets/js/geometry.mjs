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
