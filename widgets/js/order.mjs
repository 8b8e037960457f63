// order: the logical-order path under a lane zoomed to bytes (indices above, arcs below).
import {
  IDX_CHAR_W, LIMITS, ORDER_BELOW, PALETTE, elementsInWindow, flatIndex, footprint
} from "./geometry.mjs";
import { abbreviate } from "./values.mjs";
import { esc } from "./state.mjs";
import { SPENT } from "./marks.mjs";

/** Whether a walk (elements in row-major index order) only ever moves forward in memory: its order
 * path is then a plain run of arcs, and it is not the lane whose path is shown by default. */
export function walksForward(els) {
  for (let k = 1; k < els.length; k++) if (els[k].start <= els[k - 1].start) return false;
  return true;
}

export function orderSvg(v, els, cells, yb, cellW, frame) {
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
  // hundred elements stays a handful of nodes for the browser to lay out.
  const d = { fwd: [], back: [], fwdGap: [], backGap: [], fwdArrow: [], backArrow: [] };
  for (const st of steps.values()) {
    const x0 = cells.get(st.from).cx, x1 = cells.get(st.to).cx, dx = x1 - x0, mx = (x0 + x1) / 2;
    // Arcs deepen with the length of the jump in cells (logarithmically, to fit under the lane), so a
    // transpose's short forward jumps and long jumps back part into two families.
    const depth = Math.min(ORDER_BELOW - 1, 3 + 4 * Math.log2(1 + Math.abs(dx) / cellW));
    const kind = st.to < st.from ? "back" : "fwd";     // a step back in memory is drawn in the warning colour
    d[kind + (st.gap ? "Gap" : "")].push(`M${x0.toFixed(1)} ${yb}Q${mx.toFixed(1)} ${(yb + 2 * depth).toFixed(1)} ${x1.toFixed(1)} ${yb}`);
    if (Math.abs(dx) >= 6) {
      const dir = Math.sign(dx), ya = yb + depth, h = 2.6;
      d[kind + "Arrow"].push(`M${(mx + dir * h).toFixed(1)} ${ya.toFixed(1)}L${(mx - dir * h).toFixed(1)} ${(ya - h).toFixed(1)}` +
        `L${(mx - dir * h).toFixed(1)} ${(ya + h).toFixed(1)}Z`);
    }
  }
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
