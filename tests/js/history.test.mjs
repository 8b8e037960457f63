// Updates as deltas (applyDelta), and a past picture from the history slider: the bytes its step
// changed stay marked and the region names who wrote them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { m, i32, view, region } from "./load.mjs";

function snap(views, extra = {}) {
  return { version: 1, regions: [region("r1", 32, views, i32([0, 1, 2, 3, 4, 5, 6, 7]))], views, overlaps: [], gone: [], ...extra };
}

test("a delta changes only the fields it names and shares every other dict with the base", () => {
  const a = view("v0", "a", "r1", [8], [4], 0), b = view("v1", "b", "r1", [2], [4], 8);
  const base = snap([a, b], { generation: 1 });
  const out = m.applyDelta(base, { top: { generation: 2 }, views: { v1: { version: 7 } } });
  assert.equal(out.generation, 2);
  assert.equal(out.views[0], a, "an unchanged view is the base's own dict");
  assert.deepEqual(out.views[1], { ...b, version: 7 });
  assert.equal(b.version, undefined, "the base is not modified");
  assert.equal(m.applyDelta(base, {}), base);
});

test("a delta adds, removes and reorders views and replaces the overlaps", () => {
  const a = view("v0", "a", "r1", [8], [4], 0), b = view("v1", "b", "r1", [2], [4], 8);
  const c = view("v2", "c", "r1", [4], [8], 0);
  const base = snap([a, b]);
  const ov = [{ region: "r1", a: "v0", b: "v2", lo: 0, hi: 28, shared_bytes: 16 }];
  const out = m.applyDelta(base, { views: { v1: null, v2: c }, views_order: ["v2", "v0", "v1"], overlaps: ov,
    regions: { r1: { views: ["v2", "v0"] } } });
  assert.deepEqual(out.views.map((v) => v.id), ["v2", "v0"], "a removed id is dropped even where the order names it");
  assert.deepEqual(out.regions[0].views, ["v2", "v0"]);
  assert.equal(out.overlaps, ov);
  // and the result draws
  const svg = m.renderSvg(m.attachPreviews(out, i32([0, 1, 2, 3, 4, 5, 6, 7])));
  assert.deepEqual([...svg.matchAll(/<g class="pti-lane[^"]*" data-view="([^"]+)"/g)].map((x) => x[1]), ["v2", "v0"]);
});

test("a past picture marks the bytes its step changed and says who wrote them", () => {
  const a = view("v0", "a", "r1", [8], [4], 0), b = view("v1", "b", "r1", [2], [4], 8);
  const st = m.attachPreviews(snap([a, b]), i32([0, 1, 2, 3, 4, 5, 6, 7]));
  const changes = { tick: 3, regions: { r1: [[8, 12]] }, views: ["v0", "v1"],
    writers: { r1: "written outside pytensor (NumPy or another foreign writer; seen by the poll)" } };
  const svg = m.renderSvg(st, { flash: changes, past: true });
  assert.match(svg, /data-past="true"/);
  const flashed = [...svg.matchAll(/<rect class="pti-byte[^"]*pti-flash[^"]*" data-region="r1" data-off="(\d+)"/g)].map((x) => +x[1]);
  assert.deepEqual(flashed, [8, 9, 10, 11]);
  const cells = [...svg.matchAll(/<rect class="pti-el[^"]*pti-flash[^"]*" data-view="(v\d)" data-index="([\d,]*)"/g)].map((x) => `${x[1]}:${x[2]}`);
  assert.deepEqual(cells, ["v0:2", "v1:0"]);
  assert.match(svg, /<text class="pti-writer" data-region="r1"[^>]*>this step: written outside pytensor/);
  // the live picture flashes the same bytes but names no writer (its layout stays still)
  const live = m.renderSvg(st, { flash: changes });
  assert.doesNotMatch(live, /pti-writer|data-past/);
  assert.equal([...live.matchAll(/pti-byte[^"]*pti-flash/g)].length, 4);
});
