// order: the logical-order path under a lane zoomed to bytes (indices above, arcs below).
import {
  IDX_CHAR_W, LIMITS, ORDER_BELOW, PALETTE, elementsInWindow, flatIndex, footprint
} from "./geometry.mjs";
import { abbreviate } from "./values.mjs";
import { esc } from "./state.mjs";
import { SPENT } from "./marks.mjs";

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
