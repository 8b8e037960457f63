// Which keys of the snapshot's dicts does the renderer read? (run by tests/widgets/test_widgets_keys.py)
//
// Not a test file itself (node --test skips the name): it needs a snapshot that Python made.
// Usage: node read_keys.mjs snapshot.json [inspector.js], where the file holds {"snapshot": ..., "previews":
// base64}; a second argument loads that copy of the renderer instead (to prove a stale read is caught).
// Every view, region, overlap and the state itself are wrapped in proxies that record each key
// read (a stale name reads `undefined` without any error, so nothing else would notice), then
// every drawing and hover path is driven: summary and detail pictures with the order path and
// the table, every byte's hover, every view's and every element's hover. Prints the keys read,
// by kind, as JSON.
import fs from "node:fs";
import { m as shipped } from "./load.mjs";

const m = process.argv[3] ? await import("data:text/javascript;base64," +
  fs.readFileSync(process.argv[3]).toString("base64")) : shipped;

const input = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const read = { view: new Set(), region: new Set(), overlap: new Set(), top: new Set() };

function watch(obj, kind) {
  const note = (key) => { if (typeof key === "string") read[kind].add(key); };
  return new Proxy(obj, {
    get(target, key, receiver) { note(key); return Reflect.get(target, key, receiver); },
    has(target, key) { note(key); return Reflect.has(target, key); },
  });
}

const plain = m.attachPreviews(input.snapshot, m.toU8(input.previews));
const views = plain.views.map((v) => watch(v, "view"));
const state = watch({
  ...plain,
  views,
  viewById: Object.fromEntries(views.map((v) => [v.id, v])),
  regions: plain.regions.map((r) => watch(r, "region")),
  overlaps: (plain.overlaps || []).map((o) => watch(o, "overlap")),
}, "top");

const flash = { tick: 1, regions: {}, views: plain.views.map((v) => v.id), writers: {} };
for (const r of plain.regions) {
  flash.regions[r.id] = [[0, r.nbytes]];
  flash.writers[r.id] = "a write";
}
let drawn = 0;
const draw = (ui) => { drawn += m.renderSvg(state, { width: 980, ...ui }).length; };
draw({});
draw({ flash, past: true, table: {} });
for (const r of plain.regions) {
  const z = [0, Math.min(r.nbytes, 64)];
  draw({ zoom: { [r.id]: z } });                              // detail: cells, order path, table
  draw({ zoom: { [r.id]: [1, Math.min(r.nbytes, 200)] }, order: { [r.id]: false }, flash });
  for (let off = 0; off < Math.min(r.nbytes, 256); off++) m.describeByte(state, r.id, off);
}
let elements = 0;
for (const v of plain.views) {
  m.describeView(state, v.id);
  m.chainText(state.viewById[v.id]);
  const [lo, hi] = v.footprint;
  for (const e of m.elementsInWindow(v.shape, v.bstrides, v.itemsize, v.byte_offset, lo, Math.min(hi, lo + 256), 64)) {
    m.describeElement(state, v.id, e.start);
    elements++;
  }
}
const out = Object.fromEntries(Object.entries(read).map(([k, s]) => [k, [...s].sort()]));
console.log(JSON.stringify({ ...out, drawn, elements }));
