// One file, one identity: a region that is a file (or shared memory) seen through several mappings is
// drawn on the file's axis, says how many mappings show it, and names a hovered byte by its file byte.
import { test } from "node:test";
import assert from "node:assert/strict";
import { m, i32, view, region } from "./load.mjs";

const IDENT = { device: 64768, inode: 1234, byte_offset: 4096 };
const SOURCES = [{ kind: "storage", identity: [64768, 1234, 4096] }, { kind: "storage", identity: [64768, 1234, 4096] }];
const FILE = { path: "/data/w.bin", mapping: "shared", file_offset: 4096, nbytes: 48, page_size: 16,
  resident: [[0, 16]], resident_note: null, asked: [[0, 32]], cow: null, cow_note: "shared mapping: writes go to the file" };

function picture(extra) {
  const a = view("v0", "a", "f1", [12], [4], 0, { dense: true });
  const b = view("v1", "b", "f1", [4], [4], 16, { dense: true });
  const bytes = i32([...Array(12).keys()]);
  const st = m.attachPreviews({ version: 1, regions: [region("f1", 48, [a, b], bytes, extra)], views: [a, b],
    overlaps: [{ region: "f1", a: "v0", b: "v1", lo: 16, hi: 32, shared_bytes: 16 }], gone: [] }, bytes);
  return [st, m.renderSvg(st, {})];
}

test("a file region is drawn on the file's axis and says how many mappings show it", () => {
  const [, svg] = picture({ identity: IDENT, sources: SOURCES, file: FILE });
  assert.match(svg, /<g class="pti-region[^"]*" data-region="f1"[^>]* data-file-offset="4096" data-mappings="2">/);
  assert.match(svg, /buffer 1 \u00b7 48 B of one file from its byte 4096, seen through 2 mappings/);
  assert.match(svg, />file bytes \(hex\)</);
  const ticks = [...svg.matchAll(/<text class="pti-tick"[^>]*>([^<]*)</g)].map((x) => x[1]);
  assert.match(ticks[0], /^4(\.0+)? KiB$/);                // the axis starts at the region's file byte
  // the page strip's ground covers only the pages asked about (those under the views)
  const ground = [...svg.matchAll(/<rect class="pti-pages-bg" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/g)];
  assert.equal(ground.length, 1);
});

test("a hovered byte of a file region is named by its file byte", () => {
  const [st] = picture({ identity: IDENT, sources: SOURCES, file: FILE });
  const d = m.describeByte(st, "f1", 20);
  assert.equal(d.address, "file byte 4116");
  assert.deepEqual(d.readers.map((x) => x.name), ["a", "b"]);
});

test("a region named by its address draws as before", () => {
  const [st, svg] = picture({ identity: null });
  assert.doesNotMatch(svg, /data-file-offset|file bytes|mappings/);
  assert.match(svg, /buffer 1 \u00b7 48 B at 0x10000/);
  assert.equal(m.describeByte(st, "f1", 20).address, "0x10014");
});
