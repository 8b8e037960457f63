// Readable in a room: the size control, labels and chains that wrap (never cut), the order path of
// one lane at a time, and a family of many lanes folded into one compact coverage view.
import { test } from "node:test";
import assert from "node:assert/strict";
import { css, m, i32, view, oneRegion } from "./load.mjs";

const textOf = (svg, re) => [...svg.matchAll(re)].map((x) => x[1].replace(/<[^>]*>/g, ""));
const labelOf = (svg, id) => new RegExp(`<g class="pti-label" data-view="${id}"[^>]*>([\\s\\S]*?)</g>`).exec(svg)[1]
  .replace(/<title>[\s\S]*?<\/title>/, "");
const lines = (label) => [...label.matchAll(/<text [^>]*>([\s\S]*?)<\/text>/g)].map((x) => x[1].replace(/<[^>]*>/g, ""));

test("wrapText breaks at spaces, breaks a word longer than a line inside it, and drops nothing", () => {
  assert.deepEqual(m.wrapText("a bb ccc dddd", 6), ["a bb", "ccc", "dddd"]);
  assert.deepEqual(m.wrapText("abcdefghijklmnop", 5), ["abcde", "fghij", "klmno", "p"]);
  assert.deepEqual(m.wrapText("ab cd", 10, 1), ["", "ab cd"]);          // the first line had no room
  let cases = 0;
  for (let room = 1; room < 14; room++) {
    for (const text of ["x.T.contiguous() \u2190 grid \u2190 base", "views[12] int32[3, 4]", "a", "aaaaaaaaaaaaaaaaaaaaa b"]) {
      const got = m.wrapText(text, room);
      assert.ok(got.every((l) => l.length <= room), [room, got]);
      assert.equal(got.join("").replace(/ /g, ""), text.replace(/ /g, ""), [room, got]);
      assert.ok(!got.some((l) => l.includes("\u2026")));
      cases++;
    }
  }
  assert.equal(cases, 52);
});

test("a lane's label wraps a long name and chain whole, and shows strides, offset and how many values from how many bytes", () => {
  const long = "a_rather_long_expression_name[::2, 1:]";
  const lineage = [{ name: long, expr: "x[::2, 1:]" }, { name: "some_intermediate_tensor_name", expr: "y.T" },
    { name: "the_original_base_tensor", expr: "arange(12)" }];
  const base = view("v0", "base", "r1", [12], [4], 0, { dense: true, tags: ["contiguous"] });
  const v = view("v1", long, "r1", [3, 2], [8, -4], 12, { lineage, tags: ["strided", "flipped"] });
  const svg = m.renderSvg(oneRegion(48, [base, v], i32([...Array(12).keys()])), { width: 980 });
  const got = lines(labelOf(svg, "v1"));
  assert.ok(!got.some((l) => l.includes("\u2026")), got);
  assert.ok(got.every((l) => l.length <= Math.floor((m.LABEL_W - 16) / m.CHAR_W)), got);
  const flat = got.join(" ").replace(/\s+/g, " ");
  assert.ok(got.join("").replace(/\s/g, "").startsWith(long.replace(/\s/g, "")), got);       // the whole name, over two lines
  assert.ok(flat.includes("strides (2, -1) \u00b7 offset 3"), flat);
  assert.ok(flat.includes("6 values from 24 B"), flat);
  assert.ok(got.join("").replace(/\s/g, "").includes("\u2190some_intermediate_tensor_name\u2190the_original_base_tensor"), got);
  // the lane is as tall as its label: the next lane starts below the label's last line
  assert.ok(got.length >= 5, got);
  const next = view("v2", "next", "r1", [2], [4], 0);
  const svg3 = m.renderSvg(oneRegion(48, [base, v, next], i32([...Array(12).keys()])), { width: 980 });
  const lastOfV1 = Math.max(...[...labelOf(svg3, "v1").matchAll(/<text [^>]* y="([\d.]+)"/g)].map((x) => +x[1]));
  const firstOfV2 = Math.min(...[...labelOf(svg3, "v2").matchAll(/<text [^>]* y="([\d.]+)"/g)].map((x) => +x[1]));
  assert.ok(firstOfV2 - lastOfV1 >= m.LABEL_LINE, [lastOfV1, firstOfV2]);
});

function orderState() {
  const bytes = i32([...Array(12).keys()]);
  const base = view("v0", "base", "r1", [12], [4], 0, { dense: true });
  const grid = view("v1", "grid", "r1", [3, 4], [16, 4], 0, { dense: true });
  const gt = view("v2", "grid.T", "r1", [4, 3], [4, 16], 0, { dense: true });
  const flipped = view("v3", "flipped", "r1", [12], [-4], 44, { dense: true });
  return oneRegion(48, [base, grid, gt, flipped], bytes);
}
const pinned = (svg) => textOf(svg, /<g class="pti-lane[^"]*pti-order-pinned[^"]*" data-view="[^"]*" data-name="([^"]*)"/g);

test("the order path is shown for one lane at a time: the first that steps back, or the one picked", () => {
  const st = orderState();
  const svg = m.renderSvg(st, { width: 980 });
  // every lane still has its path (hover shows it), one is shown without hover: the transpose
  assert.equal((svg.match(/<g class="pti-order" /g) || []).length, 4);
  assert.deepEqual(pinned(svg), ["grid.T"]);
  // the label is a button a keyboard reaches; the picked lane says it is pressed
  assert.match(svg, /<g class="pti-label" data-view="v2" tabindex="0" role="button" aria-pressed="true"/);
  assert.match(svg, /<g class="pti-label" data-view="v3" tabindex="0" role="button" aria-pressed="false"/);
  assert.deepEqual(pinned(m.renderSvg(st, { width: 980, orderLane: { r1: "v3" } })), ["flipped"]);
  assert.deepEqual(pinned(m.renderSvg(st, { width: 980, orderLane: { r1: null } })), []);
  // the stylesheet hides a path unless its lane is picked, hovered, lit or focused
  assert.match(css, /\.pti-root \.pti-order \{ visibility: hidden; \}/);
  for (const sel of [".pti-lane.pti-order-pinned .pti-order", ".pti-lane:hover .pti-order", ".pti-lane.pti-hl .pti-order"]) {
    assert.ok(css.includes(sel), sel);
  }
});

function manyViews(n, empty = 0) {
  const bytes = i32([...Array(1024).keys()]);
  const views = [view("v0", "base", "r1", [1024], [4], 0, { dense: true })];
  for (let k = 0; k < n; k++) {
    views.push(view(`v${k + 1}`, `views[${k}]`, "r1", [100], [4 * ((k % 5) + 1)], 4 * (k % 300), {}));
  }
  for (let k = 0; k < empty; k++) views.push(view(`e${k}`, `views[${n + k}]`, "r1", [0], [4], 0));
  return oneRegion(4096, views, bytes);
}

test("a family of many lanes folds into a coverage view of a bounded number of rows, empty lanes hidden", () => {
  const st = manyViews(500, 3);
  const fams = m.families(st.views, "r1");
  assert.equal(fams.length, 1);
  assert.equal(fams[0].prefix, "views");
  assert.equal(fams[0].members.length, 503);
  const svg = m.renderSvg(st, { width: 980 });
  const fold = /<g class="pti-fold" data-region="r1" data-family="r1:views" data-lanes="(\d+)" data-rows="(\d+)" data-hidden="(\d+)">/.exec(svg);
  assert.deepEqual(fold.slice(1).map(Number), [503, m.LIMITS.foldRows, 3]);
  assert.equal((svg.match(/<g class="pti-fold-row"/g) || []).length, m.LIMITS.foldRows);
  assert.equal((svg.match(/<g class="pti-lane/g) || []).length, 1);          // base alone is a lane
  assert.match(svg, /views: 503 lanes folded into 24 rows of up to 21; 3 empty lanes hidden/);
  assert.match(svg, /data-act="fold"[^>]*aria-pressed="true"/);
  assert.match(svg, /and 503 folded lanes: unfold to list them/);
  // a row's shade says how many of its lanes reach each stretch of bytes
  const counts = m.foldCounts(fams[0].members.slice(0, 21), 0, 4096, 8);
  assert.equal(counts[0], 21);                                               // every view starts within bytes [0, 512)
  assert.ok(counts[7] === 0);
  // weighted by how much of its footprint each lane reads: views of step 1 read all of it, step 4 a quarter
  const steps = [1, 4].map((k) => view(`s${k}`, `s[${k}]`, "r1", [8], [4 * k], 0, { touched_bytes: 32 }));
  const reads = m.foldCounts(steps, 0, 4096, 4, (v) => v.touched_bytes / (v.footprint[1] - v.footprint[0]));
  assert.ok(Math.abs(reads[0] - (1 + 32 / 116)) < 1e-9, reads);
  // the picture is as tall for 500 views as for 100: rows, not lanes
  const h = (s) => +/<svg[^>]* viewBox="0 0 \d+ (\d+)"/.exec(s)[1];
  const small = m.renderSvg(manyViews(100), { width: 980 });
  assert.ok(Math.abs(h(svg) - h(small)) <= 4 * m.FOLD_ROW_H, [h(svg), h(small)]);   // 24 rows against 20
  // unfolded, every lane comes back (up to the frame's limit), with a toggle to fold them again
  const open = m.renderSvg(st, { width: 980, fold: { "r1:views": false } });
  assert.equal((open.match(/<g class="pti-lane/g) || []).length, m.LIMITS.lanes);
  assert.match(open, /data-act="fold"[^>]*aria-pressed="false"/);
  // a few lanes named like a family are not folded; names that only look alike are not one family
  assert.equal(m.families(manyViews(m.LIMITS.foldMin - 1).views, "r1").length, 0);
  const mixed = [view("a", "x[0]", "r1", [1], [4], 0), view("b", "y[1]", "r1", [1], [4], 0)];
  assert.equal(m.families(mixed, "r1", 2).length, 0);
});

test("the size control magnifies the whole picture: the same drawing in units, more pixels", () => {
  const st = orderState();
  const small = m.renderSvg(st, { width: 1366, size: "small" }), large = m.renderSvg(st, { width: 1366, size: "large" });
  const box = (s) => /<svg[^>]* width="(\d+)" height="(\d+)" viewBox="0 0 (\d+) (\d+)" data-size="(\w+)"/.exec(s).slice(1);
  const [w1, h1, u1, , s1] = box(small), [w2, h2, u2, v2, s2] = box(large);
  assert.deepEqual([w1, u1, s1, w2, s2], ["1366", "1366", "small", "1366", "large"]);
  assert.equal(+u2, Math.round(1366 / m.SIZES.large));
  assert.ok(Math.abs(+h2 - +v2 * m.SIZES.large) <= 1);
  assert.ok(+h2 > +h1);
  // values are drawn at 9.5 units or more: 12 px or more at the large size
  const sizes = [...css.matchAll(/font-size: ([\d.]+)px/g)].map((x) => +x[1]);
  assert.ok(Math.min(...sizes) * m.SIZES.large >= 12, Math.min(...sizes));
  assert.equal(m.SIZE_DEFAULT, "medium");
});
