// renderSvg's work is bounded: hostile layouts, many views and huge buffers
// finish quickly. Timings are hang guards only (generous), not benchmarks.
import { test } from "node:test";
import assert from "node:assert/strict";
import { m, i32, GiB, view, region, oneRegion, timed } from "./load.mjs";

const HANG_MS = 2000;
const lanes = (svg) => [...svg.matchAll(/<g class="(pti-lane[^"]*)" data-view="([^"]*)" data-name="([^"]*)" data-region="([^"]*)">/g)]
  .map(([, cls, id, name, rid]) => ({ cls, id, name, rid }));
const laneBody = (svg, id) => svg.split(/(?=<g class="pti-lane)/).find((s) => s.includes(` data-view="${id}" data-name=`));

function hostileState(zoom) {
  const bytes = i32(Array.from({ length: 1024 }, (_, k) => k));
  const views = [
    view("v0", "flipped", "r1", [1024], [-4], 4092, { dense: true }),
    view("v1", "huge", "r1", [3, 2], [1e12, 4], 0, { touched_bytes: 24 }),
    view("v2", "zeros", "r1", [1e7, 2], [0, 1000], 0, { touched_bytes: 8, max_hits: 1e7 }),
    view("v3", "wide", "r1", [1e7, 2], [1, 1e8], 0, { itemsize: 1, dtype: "uint8", touched_bytes: 2e7 }),
  ];
  const nbytes = Math.max(...views.map((v) => v.footprint[1]));
  return [m.attachPreviews({ version: 1, regions: [region("r1", nbytes, views, bytes)], views, overlaps: [], gone: [] }, bytes), zoom];
}

test("negative, huge and pathological zero strides render, in overview and zoomed to bytes", () => {
  const [st] = hostileState();
  const nbytes = st.regions[0].nbytes;
  for (const zoom of [undefined, [0, 64], [5e7, 5e7 + 64], [4064, 4096], [nbytes - 64, nbytes]]) {
    const [svg, ms] = timed(() => m.renderSvg(st, { zoom: zoom ? { r1: zoom } : {} }));
    assert.ok(ms < HANG_MS, `renderSvg took ${ms.toFixed(0)} ms at zoom ${zoom}`);
    assert.deepEqual(lanes(svg).map((l) => l.name), ["flipped", "huge", "zeros", "wide"]);
  }
  // hover over the same hostile layouts is bounded too
  for (const off of [0, 10, 5e7 + 5, 4095]) {
    const [d, ms] = timed(() => m.describeByte(st, "r1", off));
    assert.ok(ms < HANG_MS, `describeByte(${off}) took ${ms.toFixed(0)} ms`);
    assert.ok(d.readers.length <= m.LIMITS.hoverReaders);
  }
  const d = m.describeByte(st, "r1", 0);     // flipped[1023], huge[0, 0], zeros[i, 0] for every i
  assert.equal(d.readers.length, m.LIMITS.hoverReaders);
  assert.equal(d.truncated, true);
  assert.deepEqual(d.readers.slice(0, 2).map((x) => `${x.name}[${x.index}]`), ["flipped[1023]", "huge[0,0]"]);
});

test("every element of a flipped int32 view is drawn with its index and value", () => {
  const bytes = i32([0, 1, 2, 3, 4, 5]);
  const a = view("v0", "a", "r1", [6], [4], 0, { dense: true, contiguous: true });
  const flipped = view("v1", "flipped", "r1", [6], [-4], 20, { dense: true, tags: ["flipped"] });
  const svg = m.renderSvg(oneRegion(24, [a, flipped], bytes, [{ region: "r1", a: "v0", b: "v1", lo: 0, hi: 24, shared_bytes: 24 }]));
  const body = laneBody(svg, "v1");
  const cells = [...body.matchAll(/<rect class="pti-el[^"]*" data-view="v1" data-index="(\d+)" data-start="(\d+)"/g)]
    .map(([, i, s]) => [+i, +s]).sort((p, q) => p[0] - q[0]);
  assert.deepEqual(cells, [0, 1, 2, 3, 4, 5].map((i) => [i, 20 - 4 * i]));
  const vals = [...body.matchAll(/<text class="pti-val" data-view="v1" data-index="(\d+)"[^>]*>([^<]*)</g)]
    .map(([, i, t]) => [+i, t]).sort((p, q) => p[0] - q[0]);
  assert.deepEqual(vals, [0, 1, 2, 3, 4, 5].map((i) => [i, String(5 - i)]));
  assert.deepEqual(m.describeByte(oneRegion(24, [a, flipped], bytes), "r1", 20).readers.map((x) => `${x.name}[${x.index}]=${x.value}`),
    ["a[5]=5", "flipped[0]=5"]);
});

test("once a frame's work budget is spent, the remaining lanes are overviews that say so", () => {
  const views = Array.from({ length: 20 }, (_, k) =>
    view(`v${k}`, `wide${k}`, "r1", [1e7, 2], [1, 1e8], 0, { itemsize: 1, dtype: "uint8", touched_bytes: 2e7 }));
  const nbytes = views[0].footprint[1];
  const st = oneRegion(nbytes, views);
  // zoomed into the gap between the two rows: every outer index could reach the window and none does
  for (const zoom of [{ r1: [5e7, 5e7 + 256] }, { r1: [5e7, 5e7 + 8192] }]) {
    const [svg, ms] = timed(() => m.renderSvg(st, { zoom }));
    assert.ok(ms < HANG_MS, `renderSvg took ${ms.toFixed(0)} ms`);
    const ls = lanes(svg);
    assert.equal(ls.length, 20);
    for (const l of ls) {
      assert.match(l.cls, /pti-overview/, l.name);
      assert.match(laneBody(svg, l.id), /<rect class="pti-run pti-sparse"[^>]*><title>overview, not exact \(/);
    }
    const budgetSpent = ls.filter((l) => laneBody(svg, l.id).includes("work budget is spent")).length;
    const walks = Math.ceil(m.LIMITS.frameBudget / m.LIMITS.walkBudget);
    assert.equal(budgetSpent, 20 - walks, "after frameBudget / walkBudget walks, no lane walks at all");
  }
  // unzoomed, each lane has millions of elements: an overview too, for that reason
  const svg = m.renderSvg(st);
  assert.ok(lanes(svg).every((l) => /pti-overview/.test(l.cls)));
  assert.match(svg, /too many elements to draw at this zoom/);
});

test("200 views of one buffer render quickly, with a bounded number of overlap rects", () => {
  const n = 200, views = [], overlaps = [];
  for (let k = 0; k < n; k++) views.push(view(`v${k}`, `s${k}`, "r1", [64], [4 * (1 + (k % 5))], 4 * k));
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) {
      const lo = Math.max(views[a].footprint[0], views[b].footprint[0]), hi = Math.min(views[a].footprint[1], views[b].footprint[1]);
      if (hi > lo) overlaps.push({ region: "r1", a: `v${a}`, b: `v${b}`, lo, hi, shared_bytes: null });
    }
  }
  const nbytes = Math.max(...views.map((v) => v.footprint[1]));
  const bytes = new Uint8Array(nbytes);
  const st = oneRegion(nbytes, views, bytes, overlaps);
  for (const zoom of [{}, { r1: [0, 512] }, { r1: [1000, 1064] }]) {
    const [svg, ms] = timed(() => m.renderSvg(st, { zoom }));
    assert.ok(ms < HANG_MS, `renderSvg took ${ms.toFixed(0)} ms at ${JSON.stringify(zoom)}`);
    assert.equal(lanes(svg).length, n);
    const ovl = (svg.match(/class="pti-ovl"/g) || []).length;
    assert.ok(ovl < n * 40, `${ovl} overlap rects`);
  }
});

test("more views than LIMITS.lanes: the rest are counted, not drawn", () => {
  const n = m.LIMITS.lanes + 44;
  const views = Array.from({ length: n }, (_, k) => view(`v${k}`, `x${k}`, "r1", [4], [4], 0, { dense: true }));
  const [svg, ms] = timed(() => m.renderSvg(oneRegion(16, views, new Uint8Array(16))));
  assert.ok(ms < HANG_MS);
  assert.equal(lanes(svg).length, m.LIMITS.lanes);
  assert.match(svg, /and 44 more views of this buffer, not drawn/);
  // the byte strip still counts every view
  assert.match(svg, /<rect class="pti-byte pti-n2" data-region="r1" data-off="0"/);
});

test("a 10-million-element buffer and a 1 GiB one stay small overviews", () => {
  const N = 1e7;
  const views = [
    view("v0", "all", "r1", [N], [4], 0, { dense: true }),
    view("v1", "odd", "r1", [N / 2], [8], 4),
    view("v2", "rev", "r1", [N], [-4], 4 * N - 4, { dense: true }),
    view("v3", "cols", "r1", [1000, N / 1000], [4, 4000], 0),
  ];
  for (const nbytes of [4 * N, GiB]) {
    const st = oneRegion(nbytes, views, new Uint8Array(4096));
    for (const zoom of [{}, { r1: [nbytes / 2, nbytes / 2 + 4096] }, { r1: [4 * N - 64, 4 * N] }]) {
      const [svg, ms] = timed(() => m.renderSvg(st, { zoom }));
      assert.ok(ms < HANG_MS, `renderSvg took ${ms.toFixed(0)} ms`);
      assert.ok(svg.length < 600000, `${svg.length} characters of SVG`);
      assert.equal(lanes(svg).length, 4);
    }
  }
});
