// The pure renderer: the order each lane walks its elements, element
// hover across lanes, and the "who owns what" table under each buffer.
import { test } from "node:test";
import assert from "node:assert/strict";
import { m, i32, view, region, oneRegion } from "./load.mjs";

const laneBody = (svg, id) => svg.split(/(?=<g class="pti-lane)/).find((s) => s.includes(` data-view="${id}" data-name=`))
  .split(/(?=<g class="pti-table)/)[0];
const orderOf = (body) => {
  const m1 = /<g class="pti-order" data-view="[^"]*" data-starts="([^"]*)"/.exec(body);
  return m1 ? m1[1].split(",").map(Number) : null;
};
// Arrowheads are subpaths "M tip L tail L tail Z" of one path per kind: a negative dir points left.
const arrows = (body) => [...body.matchAll(/<path class="pti-step-arrow([^"]*)" d="([^"]*)"/g)].flatMap(([, cls, d]) =>
  d.split("M").filter(Boolean).map((sub) => {
    const xs = sub.replace("Z", "").split("L").map((pt) => +pt.trim().split(" ")[0]);
    return { back: cls.includes("pti-step-back"), dir: Math.sign(xs[0] - (xs[1] + xs[2]) / 2) };
  }));
// Steps are brackets, one subpath ("M") each, in a few paths per lane.
const nSteps = (body) => [...body.matchAll(/<path class="pti-step(?:[ "][^"]*)?" d="([^"]*)"/g)]
  .filter((x) => !x[0].includes("pti-step-arrow")).reduce((n, x) => n + (x[1].match(/M/g) || []).length, 0);
const cellX = (body) => Object.fromEntries([...body.matchAll(/<rect class="pti-el[^"]*" [^>]*data-start="(\d+)"[^>]*x="([\d.]+)"/g)]
  .map(([, s, x]) => [+s, +x]));
const tableRows = (svg) => [...svg.matchAll(/<g class="pti-row" data-view="([^"]*)" data-name="[^"]*">([\s\S]*?)<\/g>(?=<g class="pti-row|<text|<\/g>)/g)]
  .map(([, id, body]) => [id, Object.fromEntries([...body.matchAll(/<text class="[^"]*" data-col="([^"]*)"[^>]*>(?:<title>([^<]*)<\/title>)?((?:<tspan[^>]*>[^<]*<\/tspan>)+|[^<]*)<\/text>/g)]
    .map(([, col, full, shown]) => [col, full ?? shown.replace(/<[^>]*>/g, "")]))]);
// the same, for cells that may wrap onto several lines (tspans): {col: [its lines]}
const tableLines = (svg) => [...svg.matchAll(/<text class="pti-t[dh][^"]*" data-col="([^"]*)" x="([\d.]+)"[^>]*>(?:<title>[^<]*<\/title>)?((?:<tspan[^>]*>[^<]*<\/tspan>)+|[^<]*)<\/text>/g)]
  .map(([, col, x, body]) => [col, +x, body.includes("<tspan") ? [...body.matchAll(/<tspan[^>]*>([^<]*)<\/tspan>/g)].map((t) => t[1]) : [body]]);

function flippedState() {
  const bytes = i32([0, 1, 2, 3, 4, 5]);
  const a = view("v0", "a", "r1", [6], [4], 0, { dense: true, contiguous: true });
  const flipped = view("v1", "flipped", "r1", [6], [-4], 20, { dense: true, tags: ["flipped"] });
  return oneRegion(24, [a, flipped], bytes, [{ region: "r1", a: "v0", b: "v1", lo: 0, hi: 24, shared_bytes: 24 }]);
}

test("indices abbreviate to fit their cell, and a repeated cell lists its first and last", () => {
  assert.equal(m.indexText([1, 2], 6), "[1, 2]");
  assert.equal(m.indexText([1, 2], 5), "[1,2]");
  assert.equal(m.indexText([1, 2], 3), "1,2");
  assert.equal(m.indexText([10, 2], 3), "\u20262");
  assert.equal(m.indexText([10, 12], 2), "");
  assert.equal(m.indexText([], 2), "[]");
  assert.equal(m.indicesText([[0, 2], [1, 0]], 20), "[0,2] [1,0]");
  assert.equal(m.indicesText([[0], [1], [2], [3], [4], [5]], 20), "[0]\u2026[5]");
  assert.equal(m.indicesText([[0, 0], [1, 0], [2, 0]], 7), "[0, 0]\u2026");
  for (let room = 0; room < 14; room++) {
    assert.ok(m.indicesText([[10, 20], [11, 20], [12, 20]], room).length <= room, `room ${room}`);
    assert.ok(m.indexText([123, 4567], room).length <= room, `room ${room}`);
  }
});

test("a flipped view's order path runs right to left, every step back in memory", () => {
  const svg = m.renderSvg(flippedState());
  const body = laneBody(svg, "v1");
  assert.deepEqual(orderOf(body), [20, 16, 12, 8, 4, 0]);
  const x = cellX(body);
  const xs = orderOf(body).map((s) => x[s]);
  assert.ok(xs.every((v, k) => k === 0 || v < xs[k - 1]), xs.join(" "));
  assert.deepEqual(arrows(body), Array(5).fill({ back: true, dir: -1 }));
  // its indices sit over the right cells: [0] over the last element in memory
  assert.match(body, /<text class="pti-idx" data-view="v1" data-index="0" x="[\d.]+" y="[\d.]+" text-anchor="middle">\[0\]</);
  const idxX = Object.fromEntries([...body.matchAll(/<text class="pti-idx" data-view="v1" data-index="(\d+)" x="([\d.]+)"/g)].map(([, i, px]) => [+i, +px]));
  assert.ok(idxX[0] > idxX[5]);
  // the forward lane: left to right, no step back
  const fwd = laneBody(svg, "v0");
  assert.deepEqual(orderOf(fwd), [0, 4, 8, 12, 16, 20]);
  assert.deepEqual(arrows(fwd), Array(5).fill({ back: false, dir: 1 }));
  assert.match(svg, /<path class="pti-step pti-step-back"[^>]*\/><path class="pti-step-arrow pti-step-back"[^>]*\/><\/g><text[^>]*>a step back in memory</);
});

test("a transpose's path jumps forward a row and back to the next column", () => {
  const t = view("v0", "t.T", "r1", [4, 3], [4, 16], 0, { tags: ["transposed"], touched_bytes: 48 });
  const body = laneBody(m.renderSvg(oneRegion(48, [t], i32([...Array(12).keys()]))), "v0");
  assert.deepEqual(orderOf(body), [0, 16, 32, 4, 20, 36, 8, 24, 40, 12, 28, 44]);
  const a = arrows(body);
  assert.equal(a.filter((s) => s.back).length, 3);
  assert.equal(a.filter((s) => !s.back && s.dir === 1).length, 8);
  // index labels: [0, 1] sits over byte 16
  assert.match(body, /data-start="16" data-hits="1" data-indices="0,1"/);
  assert.match(body, /<text class="pti-idx" data-view="v0" data-index="0,1"[^>]*>\[0, 1\]</);
});

test("an expanded view's repeats are a loop marker with ×n, and data-indices lists every index", () => {
  const rep = view("v0", "rep", "r1", [6], [0], 0, { max_hits: 6, self_overlap: true, touched_bytes: 4 });
  const rows = view("v1", "rows", "r1", [3, 4], [0, 4], 0, { max_hits: 3, self_overlap: true, touched_bytes: 16 });
  const svg = m.renderSvg(oneRegion(48, [rep, rows], i32([7, 8, 9, 10])));
  const one = laneBody(svg, "v0");
  assert.match(one, /<rect class="pti-el pti-multi" data-view="v0" data-index="0" data-start="0" data-hits="6" data-indices="0;1;2;3;4;5"/);
  assert.deepEqual(orderOf(one), [0]);                              // six indices, one cell
  assert.match(one, /<g class="pti-loop" data-start="0"><circle[^>]*\/><text[^>]*>×6<\/text><\/g>/);
  assert.equal(nSteps(one), 0);
  const two = laneBody(svg, "v1");
  assert.match(two, /data-start="4" data-hits="3" data-indices="0,1;1,1;2,1"/);
  // 0 -> 4 -> 8 -> 12, back to 0, three times: each distinct step is drawn once
  assert.deepEqual(orderOf(two), [0, 4, 8, 12, 0, 4, 8, 12, 0, 4, 8, 12]);
  assert.equal(nSteps(two), 4);
  assert.equal((two.match(/<g class="pti-loop"/g) || []).length, 4);
});

test("a walk that leaves the zoomed window comes back dashed", () => {
  const t = view("v0", "t.T", "r1", [4, 3], [4, 16], 0, { tags: ["transposed"], touched_bytes: 48 });
  const body = laneBody(m.renderSvg(oneRegion(48, [t], i32([...Array(12).keys()])), { zoom: { r1: [0, 20] } }), "v0");
  assert.deepEqual(orderOf(body), [0, 16, 4, 8, 12]);             // [0,0] [0,1] | [1,0] | [2,0] | [3,0]
  const gaps = [...body.matchAll(/<path class="pti-step[^"]*pti-step-gap" d="([^"]*)"/g)];
  assert.equal(gaps.reduce((n, x) => n + (x[1].match(/M/g) || []).length, 0), 3);   // leaving the window, 3 times
});

test("the order toggle is a header button; off, lanes are short again; overviews have none", () => {
  const st = flippedState();
  const on = m.renderSvg(st), off = m.renderSvg(st, { order: { r1: false } });
  assert.match(on, /<g class="pti-toggle pti-on" data-act="order" data-region="r1" role="button" aria-pressed="true"/);
  assert.match(off, /<g class="pti-toggle" data-act="order" data-region="r1" role="button" aria-pressed="false"/);
  assert.equal((off.match(/class="pti-order"|class="pti-idx"/g) || []).length, 0);
  const h = (svg) => +/<svg[^>]* height="(\d+)"/.exec(svg)[1];
  assert.ok(h(on) > h(off));
  // cell attributes are there either way
  assert.match(off, /<rect class="pti-el" data-view="v1" data-index="0" data-start="20" data-hits="1" data-indices="0"/);
  const big = view("v0", "big", "r1", [1 << 20], [4], 0, { dense: true });
  const overview = m.renderSvg(oneRegion(4 << 20, [big]));
  assert.doesNotMatch(overview, /data-act="order"|class="pti-order"/);
  assert.match(overview, /data-act="table"/);
});

test("order paths are paid from the frame's drawing budget", () => {
  const saved = m.LIMITS.frameCells;
  try {
    const views = Array.from({ length: 6 }, (_, k) => view(`v${k}`, `f${k}`, "r1", [64], [-4], 252, { dense: true }));
    m.LIMITS.frameCells = 64 * 3 + 63 * 2 + 10;     // three lanes of cells, two of them with their paths
    const svg = m.renderSvg(oneRegion(256, views, new Uint8Array(256)));
    assert.equal((svg.match(/<g class="pti-order" /g) || []).length, 2);
    assert.match(svg, /order path not drawn: this picture's drawing budget is spent/);
    assert.equal((svg.match(/<rect class="pti-el/g) || []).length, 64 * 3);
  } finally {
    m.LIMITS.frameCells = saved;
  }
  // 200 lanes of byte detail, every path drawn or skipped: the work is counted, not timed (a loaded
  // machine made a time limit flaky; tests/bench times the renderer)
  const many = Array.from({ length: 200 }, (_, k) => view(`v${k}`, `s${k}`, "r1", [96], [k % 2 ? -4 : 4], k % 2 ? 380 : 0, { dense: true }));
  const svg = m.renderSvg(oneRegion(384, many, new Uint8Array(384)));
  const drawn = (svg.match(/<rect class="pti-el/g) || []).length + nSteps(svg);
  assert.ok(drawn <= m.LIMITS.frameCells, `${drawn} cells and steps`);
});

test("hovering an element names the elements of every other lane over the same bytes", () => {
  const d = m.describeElement(flippedState(), "v1", 8);              // flipped[3] = a[2]
  assert.deepEqual(d.indices, [[3]]);
  assert.equal(d.value, "2");
  assert.deepEqual(d.others.map((o) => `${o.name}[${o.index}]@${o.start}=${o.value}`), ["a[2]@8=2"]);
  // a repeated cell: every index of it; other lanes partly over it are named with their bytes
  const rep = view("v0", "rep", "r1", [3, 2], [0, 4], 8, { max_hits: 3, touched_bytes: 8 });
  const bytes = view("v1", "bytes", "r1", [24], [1], 0, { itemsize: 1, dtype: "uint8", dense: true });
  const st = oneRegion(24, [rep, bytes], i32([0, 1, 2, 3, 4, 5]));
  const e = m.describeElement(st, "v0", 8);
  assert.deepEqual(e.indices, [[0, 0], [1, 0], [2, 0]]);
  assert.deepEqual(e.others.map((o) => `${o.name}[${o.index}]`), ["bytes[8]", "bytes[9]", "bytes[10]", "bytes[11]"]);
  // bounded like a byte hover
  const wide = Array.from({ length: 40 }, (_, k) => view(`w${k}`, `w${k}`, "r1", [6], [4], 0, { dense: true }));
  const f = m.describeElement(oneRegion(24, wide, i32([0, 1, 2, 3, 4, 5])), "w0", 0);
  assert.equal(f.others.length, m.LIMITS.hoverReaders);
  assert.equal(f.truncated, true);
});

test("the ownership table lists each view's layout and bytes, and the buffer's union", () => {
  const a = view("v0", "a", "r1", [6], [4], 0, { dense: true, contiguous: true, exclusive_bytes: 8, shared_bytes: 16,
    provenance: "NumPy", readonly: true });
  const mid = view("v1", "mid", "r1", [2, 2], [8, 4], 4, { exclusive_bytes: 0, shared_bytes: 16, provenance: "NumPy" });
  const st = oneRegion(24, [a, mid], i32([0, 1, 2, 3, 4, 5]), [{ region: "r1", a: "v0", b: "v1", lo: 4, hi: 20, shared_bytes: 16 }]);
  st.regions[0].union_bytes = 24;
  st.regions[0].touched_sum = 40;
  const svg = m.renderSvg(st);
  const rows = Object.fromEntries(tableRows(svg));
  assert.deepEqual(Object.keys(rows), ["v0", "v1"]);
  assert.deepEqual(rows.v1, { view: "mid", shape: "(2, 2)", dtype: "int32", strides: "(2, 1)", bstrides: "(8, 4)",
    storage_offset: "1", byte_offset: "4", touched: "16 B", exclusive: "0 B", shared: "16 B", with: "a 16 B", readonly: "no",
    provenance: "NumPy" });
  assert.equal(rows.v0.readonly, "yes");
  assert.equal(rows.v0.shape, "(6,)");
  assert.match(svg, /<text class="pti-total"[^>]*>together: 24 B of this 24 B buffer reached, each byte counted once \(40 B if each view were counted alone\)/);
  // toggled off by the region's button, or folded by default (the live widget)
  assert.doesNotMatch(m.renderSvg(st, { table: { r1: false } }), /pti-table/);
  assert.doesNotMatch(m.renderSvg(st, { tableDefault: false }), /pti-table/);
  assert.match(m.renderSvg(st, { tableDefault: false, table: { r1: true } }), /pti-table/);
  assert.match(m.renderSvg(st, { tableDefault: false }), /data-act="table" data-region="r1" role="button" aria-pressed="false"/);
});

test("without the model's numbers the table says ?, and names partners from the overlaps", () => {
  const a = view("v0", "a", "r1", [6], [4], 0, { dense: true });
  const b = view("v1", "b", "r1", [2], [8], 4, { touched_bytes: null, ownership_note: "too many elements to count" });
  const st = oneRegion(24, [a, b], new Uint8Array(24), [{ region: "r1", a: "v0", b: "v1", lo: 4, hi: 12, shared_bytes: null }]);
  const rows = Object.fromEntries(tableRows(m.renderSvg(st)));
  assert.equal(rows.v0.with, "b ?");
  assert.equal(rows.v1.touched, "?");
  assert.equal(rows.v1.exclusive, "?");
  assert.match(m.renderSvg(st), /<text class="pti-td pti-unknown-n" data-col="touched"/);
});

test("the table fits its picture: long text wraps onto more lines, never cut, its whole text in a title; rows are capped", () => {
  const n = m.LIMITS.tableRows + 5;
  const long = "a_view_name_much_longer_than_the_table_column_allows";
  const views = Array.from({ length: n }, (_, k) => view(`v${k}`, k ? `partner_number_${k}` : long, "r1", [4], [4], 0,
    { dense: true, provenance: "a provenance badge with a great deal of text in it" }));
  const overlaps = Array.from({ length: 9 }, (_, j) => ({ region: "r1", a: "v0", b: `v${j + 1}`, lo: 0, hi: 16, shared_bytes: 16 }));
  for (const width of [640, 980]) {
    const svg = m.renderSvg(oneRegion(16, views, new Uint8Array(16), overlaps), { width });
    const rows = tableRows(svg);
    assert.equal(rows.length, m.LIMITS.tableRows);
    assert.match(svg, new RegExp(`and ${n - m.LIMITS.tableRows} more views`));
    assert.equal(rows[0][1].view, long);                          // the title holds the whole name
    assert.match(rows[0][1].with, /and 3 more$/);
    // every line of every cell ends inside the picture, and none is cut short with an ellipsis
    const cells = tableLines(svg);
    const ends = cells.flatMap(([, x, lines]) => lines.map((t) => x + t.length * 6.2));
    assert.ok(Math.max(...ends) <= width, `${Math.max(...ends)} > ${width}`);
    assert.ok(!cells.some(([, , lines]) => lines.some((t) => t.endsWith("\u2026"))), "no cell is cut");
    const nameLines = cells.find(([col, , lines]) => col === "view" && lines.join("").startsWith("a_view"))[2];
    assert.ok(nameLines.length > 1 && nameLines.join("") === long, nameLines);   // wrapped, every character kept
    // a narrow picture leaves out columns the lanes already show, and says which
    const hidden = /<g class="pti-table" data-region="r1"(?: data-hidden="([^"]*)")?>/.exec(svg)[1];
    if (width === 640) assert.ok(hidden && hidden.split(",").includes("readonly"), hidden);
    else assert.equal(hidden, undefined);
  }
});
