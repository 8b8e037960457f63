// Property tests of the layout arithmetic against brute force, with a generator
// that proves it produced the hard cases (negative, zero, huge and unaligned
// strides, empty shapes, 0-d views) instead of trusting that it did.
import { test } from "node:test";
import assert from "node:assert/strict";
import { m } from "./load.mjs";

// mulberry32: small, seedable, good enough to spread layouts
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  return { int, pick: (xs) => xs[int(xs.length)], chance: (p) => next() < p };
}

const HUGE = 1e12;

function randomStride(r, isz) {
  switch (r.int(6)) {
    case 0: return 0;
    case 1: return -(1 + r.int(6)) * isz;                          // negative, aligned
    case 2: return (1 + r.int(6)) * isz;                           // positive, aligned
    case 3: return r.int(41) - 20;                                 // any integer: unaligned, maybe negative
    case 4: return (r.chance(0.5) ? -1 : 1) * (HUGE + r.int(1000)); // huge, either sign
    default: return (r.int(9) - 4) * isz;
  }
}

function randomLayout(r) {
  const nd = r.int(5), isz = r.pick([1, 2, 4, 8, 16]);
  const shape = Array.from({ length: nd }, () => r.pick([0, 1, 1, 2, 3, 4, 5, 7]));
  const bstrides = shape.map(() => randomStride(r, isz));
  const [lo0] = m.footprint(shape, bstrides, isz, 0);
  const base = -lo0 + r.int(64);                                    // the footprint starts at >= 0
  return { shape, bstrides, isz, base };
}

/** Every element of the layout by plain nested loops: [{index, start}]. */
function enumerate({ shape, bstrides, base }) {
  const out = [];
  const walk = (d, off, idx) => {
    if (d === shape.length) { out.push({ index: idx, start: off }); return; }
    for (let i = 0; i < shape[d]; i++) walk(d + 1, off + i * bstrides[d], [...idx, i]);
  };
  walk(0, base, []);
  return out;
}

function randomWindow(r, all, fp, isz) {
  const k = r.int(5);
  if (k === 0 || all.length === 0) {                              // anywhere near the footprint, maybe empty
    const lo = fp[0] - 8 + r.int(Math.min(fp[1] - fp[0], 200) + 16);
    return [lo, lo + r.int(40)];
  }
  if (k === 4) return [fp[0] - r.int(4), fp[1] + r.int(4)];       // all of it
  const e = r.pick(all).start;                                    // near an element, so huge strides hit too
  const lo = e - isz - 4 + r.int(2 * isz + 8);
  return [lo, lo + 1 + r.int(3 * isz)];
}

const key = (e) => `${e.index.join(",")}@${e.start}`;

test("elementsInWindow and footprint match brute force over thousands of random layouts", () => {
  const r = rng(2024);
  const seen = { layouts: 0, negative: 0, zero: 0, huge: 0, unaligned: 0, empty: 0, zeroDim: 0, windows: 0, hits: 0, hugeHits: 0 };
  const LAYOUTS = 4000;
  for (let n = 0; n < LAYOUTS; n++) {
    const L = randomLayout(r);
    const all = enumerate(L);
    const moving = L.shape.map((s, d) => (s > 1 ? L.bstrides[d] : null)).filter((s) => s !== null);
    seen.layouts++;
    if (moving.some((s) => s < 0)) seen.negative++;
    if (moving.some((s) => s === 0)) seen.zero++;
    if (moving.some((s) => Math.abs(s) >= HUGE)) seen.huge++;
    if (moving.some((s) => s % L.isz !== 0)) seen.unaligned++;
    if (L.shape.includes(0)) seen.empty++;
    if (L.shape.length === 0) seen.zeroDim++;

    const fp = m.footprint(L.shape, L.bstrides, L.isz, L.base);
    if (all.length === 0) assert.deepEqual(fp, [L.base, L.base]);
    else {
      const starts = all.map((e) => e.start);
      assert.deepEqual(fp, [Math.min(...starts), Math.max(...starts) + L.isz], JSON.stringify(L));
    }
    assert.ok(fp[0] >= 0, "the generator keeps footprints at or after byte 0");

    for (let w = 0; w < 3; w++) {
      const [lo, hi] = randomWindow(r, all, fp, L.isz);
      const expect = all.filter((e) => lo < hi && e.start < hi && e.start + L.isz > lo).map(key).sort();
      const got = m.elementsInWindow(L.shape, L.bstrides, L.isz, L.base, lo, hi);
      const ctx = JSON.stringify({ ...L, lo, hi });
      assert.equal(got.truncated, false, ctx);
      assert.deepEqual(got.map(key).sort(), expect, ctx);
      seen.windows++;
      if (expect.length) {
        seen.hits++;
        if (moving.some((s) => Math.abs(s) >= HUGE)) seen.hugeHits++;
      }
    }
  }
  // The generator must have produced every hard case, and often.
  const floor = { negative: 800, zero: 500, huge: 500, unaligned: 500, empty: 500, zeroDim: 300, hits: 3000, hugeHits: 300 };
  for (const [what, min] of Object.entries(floor)) {
    assert.ok(seen[what] >= min, `only ${seen[what]} layouts/windows of kind "${what}" (want >= ${min}): ${JSON.stringify(seen)}`);
  }
});

test("limit keeps the first elements and says more exist; a limit that is exactly met is not truncation", () => {
  const r = rng(7);
  for (let n = 0; n < 1500; n++) {
    const L = randomLayout(r);
    const all = enumerate(L);
    if (all.length < 2) continue;
    const fp = m.footprint(L.shape, L.bstrides, L.isz, L.base);
    const inWin = all.length;
    const exact = m.elementsInWindow(L.shape, L.bstrides, L.isz, L.base, fp[0], fp[1], inWin);
    assert.equal(exact.length, inWin);
    assert.equal(exact.truncated, false);
    const cut = m.elementsInWindow(L.shape, L.bstrides, L.isz, L.base, fp[0], fp[1], inWin - 1);
    assert.equal(cut.length, inWin - 1);
    assert.equal(cut.truncated, true);
    assert.equal(cut.outOfBudget, false);
  }
});

test("floorDiv and ceilDiv are exact for every sign, up to 2^53", () => {
  const r = rng(99);
  const big = () => (r.chance(0.5) ? -1 : 1) * Math.floor(r.int(2 ** 26) * 2 ** 26 + r.int(2 ** 26));
  const small = () => (r.chance(0.5) ? -1 : 1) * (1 + r.int(r.chance(0.5) ? 10 : 2 ** 20));
  const bigFloor = (a, b) => { const q = a / b, rem = a % b; return rem !== 0n && (rem < 0n) !== (b < 0n) ? q - 1n : q; };
  for (let n = 0; n < 20000; n++) {
    const a = r.chance(0.3) ? small() : big(), b = r.chance(0.7) ? small() : big();
    const want = Number(bigFloor(BigInt(a), BigInt(b)));
    assert.equal(m.floorDiv(a, b), want, `floorDiv(${a}, ${b})`);
    assert.equal(m.ceilDiv(a, b), -Number(bigFloor(BigInt(-a), BigInt(b))), `ceilDiv(${a}, ${b})`);
  }
  // the cases that hung the page: a negative divisor
  assert.equal(m.floorDiv(7, -2), -4);
  assert.equal(m.floorDiv(-7, -2), 3);
  assert.equal(m.ceilDiv(7, -2), -3);
  assert.equal(m.floorDiv(-(2 ** 53 - 1), -3), 3002399751580330);
  assert.equal(m.floorDiv(2 ** 53 - 1, -(2 ** 52 + 1)), -2);
});

test("the walk stops at its budget and says so, instead of visiting every index", () => {
  // footprint 1.1e8 bytes wide, window in a gap: every outer index could reach it, none does
  const wide = m.elementsInWindow([1e7, 2], [1, 1e8], 1, 0, 5e7, 5e7 + 10, 100, 5000);
  assert.equal(wide.outOfBudget, true);
  assert.equal(wide.truncated, true);
  assert.ok(wide.visited <= 5000, `visited ${wide.visited}`);
  // a zero stride repeats the same bytes: when the first copy misses the window, the others are skipped
  const zero = m.elementsInWindow([1e7, 2], [0, 1000], 4, 0, 10, 20);
  assert.deepEqual([zero.length, zero.truncated], [0, false]);
  assert.ok(zero.visited < 10, `visited ${zero.visited}`);
  // ... and when it hits, every copy is reported, up to the limit
  const hits = m.elementsInWindow([1e7, 2], [0, 1000], 4, 0, 0, 4, 50);
  assert.deepEqual([hits.length, hits.truncated, hits[49].index.join(",")], [50, true, "49,0"]);
  // budget 0 visits nothing
  const none = m.elementsInWindow([3], [4], 4, 0, 0, 12, 10, 0);
  assert.deepEqual([none.length, none.outOfBudget, none.visited], [0, true, 0]);
});
