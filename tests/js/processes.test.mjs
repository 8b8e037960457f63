// The processes strip (widgets/js/processes.mjs) as the joined renderer draws it: only where another
// process maps the buffer, with each process on a line and the shared and copied pages over the bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { m, i32, view, region } from "./load.mjs";

const P = 4096;
const me = { pid: 10, name: "python", relation: "this process", pss_bytes: 2 * P, rss_bytes: 4 * P,
  mapped_bytes: 4 * P, shared_pages: 3, copied_pages: 1 };

function draw(processes, nbytes = 4 * P) {
  const v = view("v0", "t", "r1", [nbytes / 4], [4], 0, { dense: true, contiguous: true });
  const bytes = i32([1, 2, 3, 4]);
  const state = m.attachPreviews({ version: 2, regions: [region("r1", nbytes, [v], bytes, { processes })],
    views: [v], overlaps: [], gone: [] }, bytes);
  return m.renderSvg(state, { uid: "t", width: 900 });
}

const strip = (pids, extra = {}) => ({ mapping: "private", identity: null, page_size: P, pages: 4,
  shared: [[P, 4 * P]], copied: [[0, P]], copied_since: 0, written: null, written_since: null, pids, note: "", ...extra });

test("no other process: no strip; another process: the strip, its pages and a line each", () => {
  assert.ok(!draw(strip([me], { shared: [], copied: [] })).includes("pti-procs"));
  assert.ok(!draw(null).includes("pti-procs"));
  const child = { ...me, pid: 11, relation: "child", copied_pages: 1 };
  const svg = draw(strip([me, child]));
  assert.match(svg, /<g class="pti-procs" data-region="r1" data-mapping="private" data-pids="11" data-shared-pages="3" data-copied-pages="1"/);
  assert.match(svg, /class="pti-proc-copied" data-lo="0" data-hi="4096"/);
  assert.match(svg, /class="pti-proc-shared" data-lo="4096" data-hi="16384"/);
  assert.match(svg, />this process \(pid 10\): PSS 8 KiB of its 16 KiB mapping · 3 pages shared · 1 copied by it</);
  assert.match(svg, />pid 11 \(python, child\): PSS/);
  // the strip sits between the buffer's header and its byte strip
  assert.ok(svg.indexOf("pti-procs") < svg.indexOf("pti-bucket") || svg.indexOf("pti-procs") < svg.indexOf("pti-byte"));
});

test("copies since the last picture alone draw the strip; its rects and lines are bounded", () => {
  assert.match(draw(strip([me], { copied_since: 2 })), />2 pages copied since the last picture</);
  const many = Array.from({ length: 40 }, (_, k) => ({ ...me, pid: 100 + k, relation: "another process" }));
  const runs = Array.from({ length: 10000 }, (_, k) => [k * 8 * P, k * 8 * P + P]);
  const svg = draw(strip([me, ...many], { shared: runs, pages: 80000 }), 80000 * P);
  assert.ok((svg.match(/class="pti-proc-shared"/g) || []).length <= 2000);
  assert.equal((svg.match(/class="pti-proc"/g) || []).length, 8 + 1);     // 8 named, then "and 33 more"
  assert.match(svg, />and 33 more processes</);
});

test("pages of a shared mapping written since the last picture: crimson marks and a line, alone or not", () => {
  const shared = { ...me, copied_pages: null };
  const svg = draw(strip([shared], { mapping: "shared", shared: [], copied: null, written: [[P, 3 * P]], written_since: 2 }));
  assert.match(svg, /<g class="pti-procs" [^>]*data-written-pages="2"/);
  assert.match(svg, /class="pti-proc-written" data-lo="4096" data-hi="12288"/);
  assert.match(svg, />2 pages written since the last picture</);
  assert.ok(!svg.includes("pti-proc-copied"));
  const none = draw(strip([shared], { mapping: "shared", shared: [], copied: null, written: [], written_since: 0 }));
  assert.ok(!none.includes("pti-procs"));           // alone and nothing written: nothing to say
  assert.ok(!draw(strip([me, { ...me, pid: 11 }], { written: null, written_since: null })).includes("pages written since"));   // a private mapping: no count
});
