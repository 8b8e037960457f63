// Shared by the renderer tests: the inspector module and its stylesheet.
//
// widgets/inspector.js is an ES module with a .js name and no package.json beside it:
// import its source as a data: URL so Node treats it as a module without extra files.
import fs from "node:fs";
import { fileURLToPath } from "node:url";

const path = (rel) => fileURLToPath(new URL(rel, import.meta.url));
export const m = await import("data:text/javascript;base64," +
  Buffer.from(fs.readFileSync(path("../../widgets/inspector.js"))).toString("base64"));
export const css = fs.readFileSync(path("../../widgets/inspector.css"), "utf8");

export const i32 = (xs) => new Uint8Array(new Int32Array(xs).buffer);
export const GiB = 2 ** 30;

/** A view dict as _snapshot.py makes it; `extra` overrides any field. */
export function view(id, name, region, shape, bstrides, byteOffset, extra = {}) {
  const itemsize = extra.itemsize ?? 4;
  const numel = shape.reduce((a, b) => a * b, 1);
  return { id, name, region, kind: "tensor", type: "pytensor.Tensor", dtype: "int32", itemsize, endian: "<",
    shape, bstrides, strides: bstrides.map((s) => s / itemsize), byte_offset: byteOffset, storage_offset: byteOffset / itemsize,
    footprint: m.footprint(shape, bstrides, itemsize, byteOffset), numel, touched_bytes: numel * itemsize, max_hits: 1,
    exact: true, self_overlap: false, dense: false, contiguous: false, readonly: false, in_bounds: true, tags: [], ...extra };
}

/** One host region of `nbytes` holding `views`, with `bytes` as its preview from offset 0. */
export function region(id, nbytes, views, bytes = new Uint8Array(0), extra = {}) {
  return { id, addr: "0x10000", nbytes, device: "cpu", host: true, readonly: false, version: 0, badges: [],
    sources: [], views: views.map((v) => v.id), preview: { start: 0, length: bytes.length, pos: 0, known: [[0, bytes.length]] },
    ...extra };
}

/** A renderable state of one region; overlaps are left to the caller. */
export function oneRegion(nbytes, views, bytes = new Uint8Array(0), overlaps = []) {
  return m.attachPreviews({ version: 1, regions: [region("r1", nbytes, views, bytes)], views, overlaps, gone: [] }, bytes);
}

/** Milliseconds `f` takes (the result is returned too). */
export function timed(f) {
  const t0 = performance.now();
  const out = f();
  return [out, performance.now() - t0];
}
