// The renderer's modules by job, imported directly (widgets/js/*.mjs), draw what the joined module
// (widgets/inspector.js, what pages load) draws: the join changes nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { m, i32, view, oneRegion } from "./load.mjs";
import { renderSvg } from "../../widgets/js/picture.mjs";
import { elementsInWindow, LIMITS } from "../../widgets/js/geometry.mjs";
import { attachPreviews } from "../../widgets/js/state.mjs";
import { describeByte } from "../../widgets/js/describe.mjs";

test("the modules imported one by one draw and describe what the joined module does", () => {
  const bytes = i32(Array.from({ length: 16 }, (_, k) => k));
  const views = [view("v0", "a", "r1", [16], [4], 0, { dense: true, contiguous: true }),
    view("v1", "flipped", "r1", [8], [-8], 60), view("v2", "windows", "r1", [3, 4], [4, 4], 8, { max_hits: 3 })];
  const overlaps = [{ region: "r1", a: "v0", b: "v1", lo: 4, hi: 64, shared_bytes: 32 }];
  const joined = oneRegion(64, views, bytes, overlaps);
  const direct = attachPreviews(JSON.parse(JSON.stringify(joined, (k, v) => (k === "bytes" ? undefined : v))), bytes);
  for (const zoom of [{}, { r1: [0, 64] }, { r1: [8, 24] }]) {
    const svg = renderSvg(direct, { zoom, uid: "t", width: 900 });
    assert.equal((svg.match(/<g class="pti-lane/g) || []).length, 3);
    assert.equal(svg, m.renderSvg(joined, { zoom, uid: "t", width: 900 }));
  }
  assert.deepEqual(describeByte(direct, "r1", 12), m.describeByte(joined, "r1", 12));
  assert.deepEqual([...elementsInWindow([3, 4], [4, 4], 4, 8, 12, 16)], [...m.elementsInWindow([3, 4], [4, 4], 4, 8, 12, 16)]);
  assert.deepEqual(LIMITS, m.LIMITS);
});
