// Fields other parts of the model add: a view's lineage and origin, a region's mapped file.
// Snapshots without them draw exactly as before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { m, i32, view, region } from "./load.mjs";

const LINEAGE = [{ name: "col", expr: "grid[:, 2]" }, { name: "grid", expr: "base.view(3, 4)" }, { name: "base", expr: "arange(12)" }];
const LINEAGE_TEXT = "col = grid[:, 2] \u2190 grid = base.view(3, 4) \u2190 base = arange(12)";

function picture(extraView = {}, extraRegion = {}, width) {
  const base = view("v0", "base", "r1", [12], [4], 0, { dense: true });
  const col = view("v1", "col", "r1", [3], [16], 8, extraView);
  const st = m.attachPreviews({ version: 1, regions: [region("r1", 48, [base, col], i32([...Array(12).keys()]), extraRegion)],
    views: [base, col], overlaps: [{ region: "r1", a: "v0", b: "v1", lo: 8, hi: 44, shared_bytes: 12 }], gone: [] },
  i32([...Array(12).keys()]));
  return [st, m.renderSvg(st, { tableDefault: true, width })];
}
const lane = (svg, id) => new RegExp(`<g class="pti-lane[^"]*" data-view="${id}"[\\s\\S]*?</g></g>`).exec(svg)[0];

test("a lane shows its chain, and its hover the full path and where its bytes came from", () => {
  const [st, svg] = picture({ lineage: LINEAGE, lineage_text: LINEAGE_TEXT,
    origin: { shared: true, text: "shares base's bytes" } });
  assert.match(lane(svg, "v1"), /<text class="pti-tags"[^>]*>\u2190 grid \u2190 base/);
  const d = m.describeView(st, "v1");
  assert.equal(d.lineage_text, LINEAGE_TEXT);
  assert.equal(d.origin.text, "shares base's bytes");
  assert.doesNotMatch(lane(svg, "v1"), /pti-copied/);
});

test("a copied lane is flagged and says from what and why", () => {
  const origin = { shared: false, text: "copied from ndarray (dtype float64 -> float32)" };
  const [st, svg] = picture({ lineage: LINEAGE, lineage_text: LINEAGE_TEXT, origin });
  const l = lane(svg, "v1");
  assert.match(l, /^<g class="pti-lane[^"]*pti-copied/);
  assert.match(l, /<tspan class="pti-copied-tag">copied<\/tspan>/);
  assert.match(l, /<title>[^<]*copied from ndarray \(dtype float64 -&gt; float32\)<\/title>/);
  assert.equal(m.describeView(st, "v1").origin.shared, false);
});

test("the table gains a 'made by' column, the first one a narrow picture drops", () => {
  const [, wide] = picture({ lineage: LINEAGE, lineage_text: LINEAGE_TEXT }, {}, 1400);
  const cell = /<text class="pti-td" data-col="lineage"[^>]*>(?:<title>([^<]*)<\/title>)?([^<]*)<\/text>/g;
  const cells = [...wide.matchAll(cell)].map((x) => x[1] || x[2]);
  assert.deepEqual(cells, ["\u2014", "grid[:, 2] \u2190 base.view(3, 4) \u2190 arange(12)"]);
  assert.match(wide, /data-col="lineage"[^>]*>made by</);
  // narrowing the picture: the first column to go is "made by"
  const hiddenAt = (w) => (/<g class="pti-table" data-region="r1"(?: data-hidden="([^"]*)")?>/.exec(
    picture({ lineage: LINEAGE, lineage_text: LINEAGE_TEXT }, {}, w)[1])[1] || "");
  let w = 1400;
  while (w > 300 && !hiddenAt(w)) w -= 10;
  assert.ok(w > 300, "some width drops a column");
  assert.equal(hiddenAt(w), "lineage");
  assert.ok(hiddenAt(640).split(",").includes("lineage"));
});

test("the 'made by' cell ends at the owner's name, never at a dangling arrow", () => {
  const steps = [{ name: "v", expr: "view of a (8 \u2192 3)" }, { name: "a", expr: null }];
  const [, svg] = picture({ lineage: steps, lineage_text: "v = view of a (8 \u2192 3) \u2190 a" }, {}, 1400);
  const cell = /<text class="pti-td" data-col="lineage"[^>]*>(?:<title>([^<]*)<\/title>)?([^<]*)<\/text>/g;
  assert.deepEqual([...svg.matchAll(cell)].map((x) => x[1] || x[2]), ["\u2014", "view of a (8 \u2192 3) \u2190 a"]);
});

test("without the new fields the picture is exactly what it was", () => {
  const [, plain] = picture();
  assert.doesNotMatch(plain, /data-col="lineage"|pti-copied|pti-file|\u2190/);
  const [, withNulls] = picture({ origin: null }, { file: null });
  assert.equal(withNulls.replace(/data-generation="[^"]*"/, ""), plain.replace(/data-generation="[^"]*"/, ""));
});

const FILE = { path: "/data/weights.bin", mapping: "private", file_offset: 4096, nbytes: 48, page_size: 16,
  resident: [[0, 16], [32, 48]], resident_note: "", cow: [[16, 32]], cow_note: "" };

test("a file-backed region shows its mapping and a strip of resident and copied-on-write pages", () => {
  const [, svg] = picture({}, { file: FILE });
  const g = /<g class="pti-file" data-region="r1" data-mapping="private">[\s\S]*?<\/g>/.exec(svg)[0];
  assert.match(g, /file \/data\/weights\.bin \u00b7 private mapping \u00b7 file bytes \[4096, 4144\)/);
  const rects = (cls) => [...g.matchAll(new RegExp(`<rect class="${cls}" data-lo="(\\d+)" data-hi="(\\d+)"`, "g"))].map((x) => [+x[1], +x[2]]);
  assert.deepEqual(rects("pti-resident"), [[0, 16], [32, 48]]);
  assert.deepEqual(rects("pti-cow"), [[16, 32]]);
  assert.match(svg, /<g class="pti-legend"[\s\S]*page copied on write/);
  // zoomed in, only what the window shows
  const [st] = picture({}, { file: FILE });
  const zoomed = m.renderSvg(st, { zoom: { r1: [20, 40] } });
  const z = /<g class="pti-file"[\s\S]*?<\/g>/.exec(zoomed)[0];
  assert.deepEqual([...z.matchAll(/data-lo="(\d+)" data-hi="(\d+)"/g)].map((x) => [+x[1], +x[2]]), [[32, 40], [20, 32]]);
});

test("a file whose pages cannot be read says why instead of drawing a strip", () => {
  const file = { ...FILE, resident: null, resident_note: "residency unknown: mincore is not available here",
    cow: null, cow_note: "copy-on-write pages unknown: /proc/self/pagemap needs privileges" };
  const [, svg] = picture({}, { file });
  assert.doesNotMatch(svg, /class="pti-resident"|class="pti-cow"/);
  assert.match(svg, /<text class="pti-file-note pti-dim"[^>]*>residency unknown: mincore is not available here; copy-on-write/);
});
