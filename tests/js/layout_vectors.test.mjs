// The renderer's geometry against libtensor's layout vectors (tests/layout_vectors.json, made by
// tests/libtensor/test_layout_rules.py from brute force and torch): the renderer draws with its own copy of
// the extent rule, the element walk and row-major flattening (it cannot call C), so these vectors
// are what keeps that copy equal to lt_layout_byte_extent / lt_layout_contiguous_strides.
// tests/widgets/test_widgets_layout_vectors.py checks the Python model against the same file.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { m } from "./load.mjs";

const here = (rel) => fileURLToPath(new URL(rel, import.meta.url));
const VECTORS = JSON.parse(fs.readFileSync(here("../layout_vectors.json"), "utf8"));
const SOURCE = fs.readFileSync(here("../../widgets/inspector.js"), "utf8");
const WALK_MAX = 4096;    // layouts with more elements are checked by extent only

// The renderer's numbers are doubles: a layout beyond 2^53 is never sent to it (the snapshot's byte
// offsets are relative to a region, well inside), and one libtensor refuses (overflow) never
// reaches it either: the model raises first (tests/widgets/test_widgets_layout_vectors.py checks that).
const drawable = (c) => !c.categories.includes("beyond_js_safe_integer") && !c.categories.includes("overflow")
  && Array.isArray(c.byte_extent);

/** Every way `mod`'s geometry disagrees with the vectors, as readable lines; [] when none. */
function mismatches(mod, cases) {
  const out = [];
  const say = (c, what, got, want) => out.push(`${JSON.stringify(c.shape)} ${JSON.stringify(c.byte_strides)} ` +
    `+${c.byte_offset} (${c.itemsize} B): ${what} ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
  for (const c of cases) {
    const fp = mod.footprint(c.shape, c.byte_strides, c.itemsize, c.byte_offset);
    if (fp[0] !== c.byte_extent[0] || fp[1] !== c.byte_extent[1]) say(c, "footprint", fp, c.byte_extent);
    if (Array.isArray(c.strides) && Array.isArray(c.extent)) {
      // the element-stride view of the same layout: the renderer gets strides already in bytes
      const fe = mod.footprint(c.shape, c.strides.map((s) => s * c.itemsize), c.itemsize, c.offset * c.itemsize);
      if (fe[0] !== c.extent[0] || fe[1] !== c.extent[1]) say(c, "footprint of strides*itemsize", fe, c.extent);
    }
    if (typeof c.numel !== "number" || c.numel > WALK_MAX) continue;
    // the element walk over the whole extent finds every element once, where the strides put it,
    // and nothing outside the extent
    const [lo, hi] = c.byte_extent;
    const els = mod.elementsInWindow(c.shape, c.byte_strides, c.itemsize, c.byte_offset, lo, hi, WALK_MAX, 1e7);
    if (els.length !== c.numel || els.truncated) say(c, "elements walked", [els.length, els.truncated], [c.numel, false]);
    for (const e of els) {
      const start = e.index.reduce((acc, i, d) => acc + i * c.byte_strides[d], c.byte_offset);
      if (e.start !== start || e.start < lo || e.start + c.itemsize > hi) say(c, `element ${e.index} at`, e.start, start);
      const flat = e.index.reduce((acc, i, d) => acc + i * c.contiguous_strides[d], 0);
      if (mod.flatIndex(c.shape, e.index) !== flat) say(c, `flat index of ${e.index}`, mod.flatIndex(c.shape, e.index), flat);
    }
    if (els.length) {
      const first = Math.min(...els.map((e) => e.start)), last = Math.max(...els.map((e) => e.start)) + c.itemsize;
      if (first !== lo || last !== hi) say(c, "elements span", [first, last], [lo, hi]);
    }
    const off = mod.elementsInWindow(c.shape, c.byte_strides, c.itemsize, c.byte_offset, hi, hi + 64, WALK_MAX, 1e7);
    if (off.length) say(c, "elements past the extent", off.length, 0);
  }
  return out;
}

const cases = VECTORS.layouts.filter(drawable);

test("the vectors hold the layouts the renderer must draw", () => {
  assert.match(VECTORS.about, /byte_extent/);
  const seen = new Set(cases.flatMap((c) => c.categories));
  for (const cat of ["contiguous", "non_contiguous", "negative_stride", "zero_stride", "zero_size", "ndim0",
    "extent_one_dim", "byte_strides_not_multiple_of_itemsize"]) {
    assert.ok(seen.has(cat), `no drawable vector of category ${cat}`);
  }
  assert.ok(cases.length >= 15, `only ${cases.length} drawable vectors`);
  assert.ok(cases.filter((c) => typeof c.numel === "number" && c.numel > 0 && c.numel <= WALK_MAX).length >= 10);
});

test("footprint, elementsInWindow and flatIndex agree with libtensor's vectors", () => {
  assert.deepEqual(mismatches(m, cases), []);
});

test("a renderer whose rule drifts fails the check", async () => {
  const load = (src) => import("data:text/javascript;base64," + Buffer.from(src).toString("base64"));
  const drifts = [
    // forgets that a negative stride reaches below element 0
    ["if (reach < 0) lo += reach; else hi += reach;", "hi += Math.abs(reach);"],
    // counts an extent-1 dimension's stride
    ["const reach = (n - 1) * bstrides[d];\n    if", "const reach = Math.max(n - 1, 1) * bstrides[d];\n    if"],
    // the walk prunes one element too many at the top of each dimension
    ["i0 = Math.max(i0, 0); i1 = Math.min(i1, n - 1);", "i0 = Math.max(i0, 0); i1 = Math.min(i1, n - 2);"],
    // column-major flattening
    ["for (let d = 0; d < shape.length; d++) f = f * shape[d] + index[d];",
      "for (let d = shape.length - 1; d >= 0; d--) f = f * shape[d] + index[d];"],
  ];
  for (const [from, to] of drifts) {
    assert.equal(SOURCE.split(from).length, 2, `the drift anchor is in inspector.js once: ${from}`);
    const bad = await load(SOURCE.replace(from, to));
    assert.ok(mismatches(bad, cases).length > 0, `the vectors miss a drift: ${to}`);
  }
});
