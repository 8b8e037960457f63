// node --test of the inspector's pure renderer on a fixed state (no DOM, no kernel).
import { test } from "node:test";
import assert from "node:assert/strict";
import { m, i32, GiB } from "./load.mjs";

function fixedState() {
  const small = i32([0, 1, 2, 3]);
  const big = new Uint8Array(64);
  const blob = new Uint8Array(small.length + big.length);
  blob.set(small, 0);
  blob.set(big, small.length);
  const snap = {
    version: 1, generation: 7, byteorder: "little", preview_bytes: 4096,
    regions: [
      { id: "r1", addr: "0x1000", nbytes: 16, device: "cpu", host: true, readonly: false, version: 3,
        badges: [{ kind: "owned", text: "owned by pytensor", title: "" }, { kind: "refs", text: "refs 1", title: "" },
          { kind: "lock", text: "read-only", title: "" }],
        sources: [], views: ["v0", "v1", "v2"], preview: { start: 0, length: 16, pos: 0, known: [[0, 16]] } },
      { id: "r2", addr: "0x7f0000000000", nbytes: GiB, device: "cpu", host: true, readonly: false, version: 0,
        badges: [{ kind: "owned", text: "owned by pytensor", title: "" }], sources: [], views: ["v3", "v4"],
        preview: { start: 0, length: 64, pos: 16, known: [[0, 64]] } },
    ],
    views: [
      view("v0", "t<x>", "r1", [4], [4], 0, [0, 16], { tags: ["contiguous"], contiguous: true, dense: true }),
      view("v1", "evens", "r1", [2], [8], 0, [0, 12], { tags: ["strided"], touched_bytes: 8 }),
      view("v2", "bc", "r1", [3, 2], [0, 4], 8, [8, 16], { tags: ["broadcast", "overlapping"], max_hits: 3, self_overlap: true, touched_bytes: 8 }),
      view("v3", "big", "r2", [2 ** 28], [4], 0, [0, GiB], { dtype: "float32", tags: ["contiguous"], contiguous: true, dense: true }),
      view("v4", "sparse", "r2", [2 ** 18], [4096], 0, [0, GiB - 4092], { dtype: "float32", tags: ["strided"], touched_bytes: 2 ** 20 }),
    ],
    overlaps: [
      { region: "r1", a: "v0", b: "v1", lo: 0, hi: 12, shared_bytes: 8 },
      { region: "r1", a: "v0", b: "v2", lo: 8, hi: 16, shared_bytes: 8 },
      { region: "r1", a: "v1", b: "v2", lo: 8, hi: 12, shared_bytes: 4 },
      { region: "r2", a: "v3", b: "v4", lo: 0, hi: GiB - 4092, shared_bytes: 2 ** 20 },
    ],
    gone: [{ name: "tmp", note: "was int32[2]" }],
  };
  return m.attachPreviews(snap, blob);
}

function view(id, name, region, shape, bstrides, byteOffset, footprint, extra = {}) {
  const numel = shape.reduce((a, b) => a * b, 1);
  return { id, name, region, kind: "tensor", type: "pytensor.Tensor", dtype: "int32", itemsize: 4, endian: "<",
    shape, bstrides, strides: bstrides.map((s) => s / 4), byte_offset: byteOffset, storage_offset: byteOffset / 4, footprint, numel,
    touched_bytes: numel * 4, max_hits: 1, exact: true, self_overlap: false, dense: false, contiguous: false,
    readonly: false, in_bounds: true, tags: [], ...extra };
}

const region = (svg, id) => svg.match(new RegExp(`<g class="pti-region[^"]*" data-region="${id}"[\\s\\S]*?</g></g>(?=<g class="pti-region|<text class="pti-gone|<g class="pti-legend)`))[0];
const classesOf = (svg, sel) => [...svg.matchAll(sel)].map((x) => x[1]);

test("each byte of a small buffer is a cell, shaded by how many views read it", () => {
  const svg = m.renderSvg(fixedState());
  assert.match(svg, /^<svg class="pti-svg"[^>]*data-generation="7"/);
  const cells = [...region(svg, "r1").matchAll(/<rect class="pti-byte ([^"]*)" data-region="r1" data-off="(\d+)"/g)];
  assert.deepEqual(cells.map((c) => +c[2]), [...Array(16).keys()]);
  const level = cells.map((c) => (c[1].includes("pti-n2") ? 2 : c[1].includes("pti-n1") ? 1 : 0));
  assert.deepEqual(level, [2, 2, 2, 2, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2]);
  assert.match(svg, /<text class="pti-hex" data-region="r1" data-off="4"[^>]*>01<\/text>/);
  // only the strip's cells are .pti-byte (the legend's swatches are .pti-key), so "the last byte" is a byte
  assert.equal((svg.match(/class="pti-byte[ "]/g) || []).length, (svg.match(/class="pti-byte[^"]*" data-region="[^"]+" data-off="/g) || []).length);
  assert.match(svg, /<g class="pti-legend"[^>]*><rect class="pti-key pti-n1"/);
});

test("lanes show element values, self-overlap and overlap shading", () => {
  const svg = m.renderSvg(fixedState());
  const vals = classesOf(svg, /<text class="pti-val" data-view="v0" data-index="\d+"[^>]*>([^<]*)</g);
  assert.deepEqual(vals, ["0", "1", "2", "3"]);
  assert.match(svg, /<g class="pti-lane pti-selfovl pti-order-pinned" data-view="v2" data-name="bc" data-region="r1">/);
  assert.match(svg, /<rect class="pti-el pti-multi" data-view="v2" data-index="0,0" data-start="8" data-hits="3"/);
  assert.match(svg, />2×3<\/text>/);
  const lane1 = svg.split('<g class="pti-lane').find((part) => part.startsWith('" data-view="v1" '));
  assert.equal((lane1.match(/class="pti-ovl"/g) || []).length, 2);
  assert.match(svg, /t&lt;x&gt;/);                       // names are escaped
  assert.match(svg, /freed: tmp \(was int32\[2\]\)/);
  assert.match(svg, /class="pti-badge pti-b-lock"[\s\S]*?class="pti-lock"/);
});

test("a 1 GiB buffer renders as a bounded overview, and zooms to bytes", () => {
  const st = fixedState();
  const svg = m.renderSvg(st);
  const r2 = region(svg, "r2");
  assert.match(r2, /^<g class="pti-region pti-summary"/);
  assert.equal((r2.match(/class="pti-byte/g) || []).length, 0);
  assert.equal((r2.match(/class="pti-bucket/g) || []).length, m.LIMITS.buckets);
  assert.ok((r2.match(/<rect/g) || []).length < 600, "overview stays small");
  assert.match(r2, />1 GiB<\/text>/);
  const zoomed = region(m.renderSvg(st, { zoom: { r2: [0, 64] } }), "r2");
  assert.match(zoomed, /^<g class="pti-region pti-detail" data-region="r2" data-start="0" data-end="64"/);
  assert.equal((zoomed.match(/class="pti-byte/g) || []).length, 64);
  assert.match(zoomed, /class="pti-minimap"/);
  assert.equal(classesOf(zoomed, /<text class="pti-val" data-view="v3" data-index="\d+"[^>]*>([^<]*)</g).length, 16);
  const outside = region(m.renderSvg(st, { zoom: { r2: [GiB - 64, GiB] } }), "r2");
  assert.match(outside, /pti-byte pti-unknown/);         // not in the preview window: drawn as unknown
});

test("hovering a byte lists every (view, index) reading it with its value", () => {
  const d = m.describeByte(fixedState(), "r1", 9);
  assert.equal(d.hex, "00");
  assert.equal(d.address, "0x1009");
  assert.deepEqual(d.readers.map((x) => [x.name, x.index.join(","), x.value]),
    [["t<x>", "2", "2"], ["evens", "1", "2"], ["bc", "0,0", "2"], ["bc", "1,0", "2"], ["bc", "2,0", "2"]]);
  const v = m.describeView(fixedState(), "v2");
  assert.deepEqual(v.tags, ["broadcast", "overlapping"]);
  assert.deepEqual(v.strides, [0, 1]);
  assert.deepEqual(v.overlaps.map((o) => [o.with, o.shared]), [["t<x>", 8], ["evens", 4]]);
});

test("a write flashes the changed bytes and the aliases that saw it", () => {
  const svg = m.renderSvg(fixedState(), { flash: { tick: 3, regions: { r1: [[4, 8]] }, views: ["v0"] } });
  assert.match(svg, /data-flash="3"/);
  const flashed = [...svg.matchAll(/<rect class="pti-byte [^"]*pti-flash" data-region="r1" data-off="(\d+)"/g)].map((x) => +x[1]);
  assert.deepEqual(flashed, [4, 5, 6, 7]);
  // a flashing node carries the flash's tick: the next flash is new markup, so it flashes again
  assert.match(svg, /<g class="pti-lane pti-flash" data-view="v0" data-name="t&lt;x&gt;" data-region="r1" data-tick="3">/);
  const ticks = [...svg.matchAll(/<rect class="pti-byte [^"]*pti-flash"[^>]* data-tick="3"\/>/g)].length;
  assert.equal(ticks, 4);
  assert.match(svg, /<g class="pti-lane" data-view="v1" data-name="evens" data-region="r1">/);
});

test("values decode for every dtype", () => {
  const b = (xs) => new Uint8Array(xs);
  assert.equal(m.decode(b([0x00, 0x3c]), 0, "float16"), "1.");
  assert.equal(m.decode(b([0x80, 0x3f]), 0, "bfloat16"), "1.");
  assert.equal(m.decode(b([0, 0, 0xc0, 0x7f]), 0, "float32"), "nan");
  assert.equal(m.decode(new Uint8Array(new Float64Array([0.1]).buffer), 0, "float64"), "0.1");
  assert.equal(m.decode(b([255, 255, 255, 255, 255, 255, 255, 255]), 0, "int64"), "-1");
  assert.equal(m.decode(b([255, 255, 255, 255, 255, 255, 255, 255]), 0, "uint64"), "18446744073709551615");
  assert.equal(m.decode(new Uint8Array(new Float32Array([1.5, -2]).buffer), 0, "complex64"), "1.5-2.j");
  assert.equal(m.decode(b([1]), 0, "bool"), "True");
  assert.equal(m.decode(b([0, 1]), 0, "int16", ">"), "1");
  assert.equal(m.decode(b([1, 2]), 1, "int16"), null);   // not all bytes present
});

test("elementsInWindow matches brute force, negative and zero strides included", () => {
  let seed = 11;
  const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed % n; };
  for (let trial = 0; trial < 800; trial++) {
    const nd = rnd(4), isz = [1, 2, 4, 8][rnd(4)];
    const shape = Array.from({ length: nd }, () => rnd(5));
    const bs = Array.from({ length: nd }, () => (rnd(7) - 3) * isz);
    const lo = 40 + rnd(120), hi = lo + rnd(40);
    const expect = [];
    const walk = (d, off, idx) => {
      if (d === nd) { if (off < hi && off + isz > lo) expect.push(`${idx}@${off}`); return; }
      for (let i = 0; i < shape[d]; i++) walk(d + 1, off + i * bs[d], [...idx, i]);
    };
    walk(0, 100, []);
    const got = m.elementsInWindow(shape, bs, isz, 100, lo, hi).map((e) => `${e.index}@${e.start}`);
    assert.deepEqual(got.sort(), expect.sort(), JSON.stringify({ shape, bs, isz, lo, hi }));
  }
});

test("the module is an anywidget front end", () => {
  assert.equal(typeof m.default.render, "function");
  assert.equal(typeof m.mountStatic, "function");
  assert.deepEqual(m.footprint([3], [-8], 8, 16), [0, 24]);
  assert.equal(m.fmtBytes(GiB), "1 GiB");
  assert.equal(m.fmtBytes(1536), "1.5 KiB");
});
