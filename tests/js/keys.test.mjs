// The hover text reads only fields its describe* function returns (a renamed field reads
// `undefined` and prints "undefined" in the tooltip, with no error anywhere). The tooltips are
// built inside the DOM glue, so their field reads are taken from the source text.
// tests/widgets/test_widgets_keys.py does the same for the snapshot's dicts against the Python model.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { m, i32, view, oneRegion } from "./load.mjs";

const SRC = fs.readFileSync(fileURLToPath(new URL("../../widgets/inspector.js", import.meta.url)), "utf8");

/** The body of the top-level `function name(...) {...}`, exported or not (up to the next line that is just "}"). */
function body(name) {
  const at = (prefix) => SRC.indexOf(`\n${prefix}function ${name}(`);
  const start = at("") >= 0 ? at("") : at("export ");
  assert.ok(start >= 0, `inspector.js has no function ${name}`);
  return SRC.slice(start, SRC.indexOf("\n}\n", start));
}

/** Field names read as `obj.field` in `text`, for each variable name in `vars`. */
function reads(text, vars) {
  const out = new Set();
  for (const v of vars) for (const x of text.matchAll(new RegExp(`\\b${v}\\.([A-Za-z_]\\w*)`, "g"))) out.add(x[1]);
  return out;
}

const missing = (read, obj) => [...read].filter((k) => !(k in obj));

function state() {
  const a = view("v0", "a", "r1", [6], [4], 0, { dense: true, contiguous: true });
  const flipped = view("v1", "flipped", "r1", [6], [-4], 20, { dense: true, tags: ["flipped"] });
  const overlap = { region: "r1", a: "v0", b: "v1", lo: 0, hi: 24, shared_bytes: 24 };
  return oneRegion(24, [a, flipped], i32([0, 1, 2, 3, 4, 5]), [overlap]);
}

test("tooltips read only what describeView, describeByte and describeElement return", () => {
  const st = state();
  const dv = m.describeView(st, "v1"), db = m.describeByte(st, "r1", 8), de = m.describeElement(st, "v0", 8);
  assert.ok(dv.overlaps.length && db.readers.length && de.others.length, "every nested list has an entry to check");
  const cases = [
    ["tipForView", ["d"], dv], ["tipForView", ["o"], dv.overlaps[0]],
    ["tipForByte", ["d"], db], ["tipForByte", ["x"], db.readers[0]],
    ["tipForElement", ["d"], de], ["tipForElement", ["x"], de.others[0]],
  ];
  for (const [fn, vars, obj] of cases) {
    const read = reads(body(fn), vars);
    assert.ok(read.size >= 3, `${fn} reads ${[...read]}: the pattern found its fields`);
    assert.deepEqual(missing(read, obj), [], `${fn} reads ${vars}.<field> that the description lacks`);
  }
  // the offsets say their units
  assert.equal(db.byte_offset, 8);
  assert.deepEqual([dv.byte_offset, dv.storage_offset], [20, 5]);
  assert.ok(!("offset" in dv) && !("offset" in db));
});

test("the check above catches a stale field", () => {
  const read = reads(body("tipForView").replace("d.byte_offset", "d.offset"), ["d"]);
  assert.deepEqual(missing(read, m.describeView(state(), "v1")), ["offset"]);
});
