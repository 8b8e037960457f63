// What the picture says: tick labels, abbreviated values, colours that read in
// both themes, pattern ids per picture, temporary views, tooltip placement.
import { test } from "node:test";
import assert from "node:assert/strict";
import { m, css, i32, view, region, oneRegion } from "./load.mjs";

const MiB = 2 ** 20;
const tickTexts = (svg) => [...svg.matchAll(/<text class="pti-tick"[^>]*>([^<]*)</g)].map((x) => x[1]);

test("tick labels never repeat a neighbour, however deep the zoom", () => {
  const v = view("v0", "big", "r1", [10 * MiB], [4], 0, { dense: true });
  const st = oneRegion(40 * MiB, [v]);
  const at = 10.3 * MiB;
  for (const span of [2048, 512, 64, 16, 4, 3, 1]) {
    const labels = tickTexts(m.renderSvg(st, { zoom: { r1: [at, at + span] } }));
    assert.ok(labels.length >= 2 || span === 1, `${span}: ${labels}`);
    labels.forEach((l, k) => assert.ok(k === 0 || l !== labels[k - 1], `span ${span}: ${labels.join(" | ")}`));
  }
  // whole buffers keep the short spellings
  assert.deepEqual(tickTexts(m.renderSvg(st)), ["0", "10 MiB", "20 MiB", "30 MiB", "40 MiB"]);
  assert.deepEqual(m.tickLabels([0, 4, 8, 12, 16]), ["0", "4 B", "8 B", "12 B", "16 B"]);
  // 2 KiB of a 40 MiB buffer: MiB with enough decimals, else exact offsets
  const zoomed = m.tickLabels([10813440, 10813952, 10814464, 10814976, 10815488]);
  assert.equal(new Set(zoomed).size, 5, zoomed.join(" | "));
  assert.deepEqual(m.tickLabels([10813440, 10813441, 10813442]), ["10\u2009813\u2009440", "10\u2009813\u2009441", "10\u2009813\u2009442"]);
});

test("values that do not fit a cell are abbreviated, never dropped", () => {
  assert.equal(m.abbreviate("1234567", 7), "1234567");
  assert.equal(m.abbreviate("1234567", 5), "1.2e6");
  assert.equal(m.abbreviate("1.235e+6", 5), "1.2e6");
  assert.equal(m.abbreviate("1.235e+6", 3), "1e6");
  assert.equal(m.abbreviate("-0.0001234", 7), "-1.2e-4");
  assert.equal(m.abbreviate("-0.0001234", 6), "-1e-4");
  assert.equal(m.abbreviate("123", 2), "1\u2026");
  assert.equal(m.abbreviate("False", 3), "Fa\u2026");
  assert.equal(m.abbreviate("1.5-2.j", 4), "1.5\u2026");
  assert.equal(m.abbreviate("nan", 2), "n\u2026");
  assert.equal(m.abbreviate("7", 0), "");
  for (let room = 1; room < 12; room++) {
    for (const t of ["18446744073709551615", "-2147483648", "3.403e+38", "-1.175e-38", "0.3333", "inf", "True"]) {
      assert.ok(m.abbreviate(t, room).length <= room, `${t} in ${room}`);
    }
  }
  // in a picture: 16 int32 cells, each 6 characters wide, all labelled
  const big = Array.from({ length: 16 }, (_, k) => 123456789 * (k % 2 ? -1 : 1));
  const v = view("v0", "big", "r1", [16], [4], 0, { dense: true });
  const svg = m.renderSvg(oneRegion(64, [v], i32(big)));
  const vals = [...svg.matchAll(/<text class="pti-val" data-view="v0" data-index="(\d+)"[^>]*>([^<]*)</g)].map((x) => x[2]);
  assert.equal(vals.length, 16);
  assert.deepEqual(vals.slice(0, 2), ["1.23e8", "-1.2e8"]);
  // a repeated element keeps its ×n while there is room
  const rep = view("v1", "rep", "r1", [3, 4], [0, 4], 0, { max_hits: 3, self_overlap: true });
  const svg2 = m.renderSvg(oneRegion(16, [rep], i32([1000000, 2, 3, 4])));
  assert.match(svg2, /<text class="pti-val" data-view="v1" data-index="0,0"[^>]*>1000000×3</);
  // 32 cells of 22 px: three characters, so the value alone, shortened
  const narrow = m.renderSvg(oneRegion(128, [rep], i32(Array(32).fill(1000000))));
  const label = /<text class="pti-val" data-view="v1" data-index="0,0"[^>]*>([^<]*)</.exec(narrow);
  assert.equal(label && label[1], "1e6");
});

// ---- colours: parse the stylesheet and check contrast of text against the fills it is drawn on
function rules(text) {
  const out = [];
  const body = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/@keyframes[^{]*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}/g, "");
  for (const [, sel, decls] of body.matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
    const d = Object.fromEntries(decls.split(";").map((x) => x.split(":").map((y) => y && y.trim())).filter((x) => x[0])
      .map(([k, ...v]) => [k, v.join(":")]));
    for (const s of sel.split(",")) out.push({ sel: s.trim(), decls: d });
  }
  return out;
}
const RULES = rules(css);
const ROOT_VARS = RULES.find((r) => r.sel === ".pti-root").decls;
const resolve = (v) => {
  const mv = /^var\((--[\w-]+)(?:,\s*(.*))?\)$/.exec(v || "");
  if (!mv) return v;
  return resolve(ROOT_VARS[mv[1]] ?? mv[2]);
};
const decl = (sel, prop) => {
  const r = RULES.find((x) => x.sel === sel && x.decls[prop] !== undefined);
  assert.ok(r, `no rule "${sel}" setting ${prop}`);
  return resolve(r.decls[prop]);
};
function luminance(hex) {
  const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((x) => (x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4));
  return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}
function contrast(a, b) {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}
const specificity = (sel) => {
  const ids = (sel.match(/#[\w-]+/g) || []).length;
  const cls = (sel.match(/\.[\w-]+|\[[^\]]+\]|:(?!not)[\w-]+/g) || []).length;
  const types = (sel.replace(/\([^)]*\)/g, "").match(/(^|[\s>+~])[a-z]+/g) || []).length;
  return ids * 10000 + cls * 100 + types;
};
const FLASH = "#fab005";

test("text on fixed light fills has contrast >= 4.5:1 in light and dark themes", () => {
  const themeText = ".pti-root .pti-svg text";
  // the rules that colour text on light fills must beat the theme's text rule
  for (const sel of [".pti-root .pti-svg text.pti-hex", ".pti-root .pti-svg text.pti-val",
    ".pti-root .pti-svg .pti-badge text", ".pti-root .pti-svg .pti-zoom text"]) {
    assert.ok(specificity(sel) > specificity(themeText), `${sel} must outrank ${themeText}`);
  }
  const hexInk = decl(".pti-root .pti-svg text.pti-hex", "fill");
  for (const fill of [resolve("var(--pti-n0)"), resolve("var(--pti-n1)"), resolve("var(--pti-n2)"), FLASH]) {
    assert.ok(contrast(hexInk, fill) >= 4.5, `hex ${hexInk} on ${fill}: ${contrast(hexInk, fill).toFixed(2)}`);
  }
  const cellInk = decl(".pti-root .pti-svg text.pti-val", "fill");
  for (const color of [...m.PALETTE.map((c) => m.tint(c)), FLASH]) {
    assert.ok(contrast(cellInk, color) >= 4.5, `value ${cellInk} on ${color}: ${contrast(cellInk, color).toFixed(2)}`);
  }
  // values sit on top of the overlap hatching too: check them on a hatch line over every tint
  const hatch = /<pattern id="pti-hatch"[^>]*><rect[^>]* fill="rgba\(([\d,.]+)\)"\/><line[^>]* stroke="rgba\(([\d,.]+)\)"/
    .exec(m.renderSvg({ regions: [], views: [] }));
  assert.ok(hatch, "the hatch pattern's colours");
  const over = (hex, rgba) => {
    const [r, g, b, a] = rgba.split(",").map(Number);
    const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    return "#" + c.map((x, k) => Math.round(x * (1 - a) + [r, g, b][k] * a).toString(16).padStart(2, "0")).join("");
  };
  for (const color of m.PALETTE.map((c) => over(over(m.tint(c), hatch[1]), hatch[2]))) {
    assert.ok(contrast(cellInk, color) >= 4.5, `value ${cellInk} on hatched ${color}: ${contrast(cellInk, color).toFixed(2)}`);
  }
  const badgeInk = decl(".pti-root .pti-svg .pti-badge text", "fill");
  const badgeFills = RULES.filter((r) => /^\.pti-root \.pti-b(adge|-[\w-]+) rect$/.test(r.sel) && r.decls.fill).map((r) => r.decls.fill);
  assert.ok(badgeFills.length >= 8);
  for (const f of badgeFills) assert.ok(contrast(badgeInk, f) >= 4.5, `badge ${badgeInk} on ${f}`);
  const zoomInk = decl(".pti-root .pti-svg .pti-zoom text", "fill");
  for (const sel of [".pti-root .pti-zoom rect", ".pti-root .pti-zoom:hover rect"]) {
    assert.ok(contrast(zoomInk, decl(sel, "fill")) >= 4.5, sel);
  }
  // tooltip chips carry their own text colour (the theme's would be light on light in dark mode)
  for (const sel of [".pti-root .pti-tag", ".pti-root .pti-tag.pti-tag-temp"]) {
    assert.ok(contrast(decl(sel, "color"), decl(sel, "background")) >= 4.5, sel);
  }
  // warnings switch to a light red on dark themes
  const darkWarn = RULES.find((r) => r.sel.startsWith('body[data-jp-theme-light="false"]')).decls["--pti-warn"];
  assert.ok(contrast(darkWarn, "#111111") >= 4.5 && contrast(darkWarn, "#212121") >= 4.5);
  assert.ok(contrast(resolve("var(--pti-warn)"), "#ffffff") >= 4.5);
});

test("patterns get ids unique to each picture, referenced by attributes (CSS cannot know them)", () => {
  const bytes = i32([1, 2, 3, 4]);
  const views = [view("v0", "a", "r1", [4], [4], 0, { dense: true }), view("v1", "b", "r1", [2], [8], 0)];
  const st = m.attachPreviews({ version: 1, views, overlaps: [{ region: "r1", a: "v0", b: "v1", lo: 0, hi: 12, shared_bytes: 8 }],
    regions: [region("r1", 32, views, bytes)] }, bytes);          // bytes 16..31 are not in the preview
  const ids = (svg) => [...svg.matchAll(/ id="([^"]+)"/g)].map((x) => x[1]);
  const refs = (svg) => [...new Set([...svg.matchAll(/url\(#([^)]+)\)/g)].map((x) => x[1]))];
  const one = m.renderSvg(st, { uid: "a1" }), two = m.renderSvg(st, { uid: "b2" }), bare = m.renderSvg(st);
  for (const svg of [one, two, bare]) {
    assert.deepEqual(refs(svg).sort(), ids(svg).sort(), "every pattern is used and every use is defined here");
    assert.match(svg, /<rect class="pti-ovl"[^>]* fill="url\(#[^)]+-hatch\)"/);
    assert.match(svg, /<rect class="pti-byte pti-unknown[^"]*"[^>]* fill="url\(#[^)]+-unk\)"/);
  }
  assert.equal(ids(one).filter((id) => ids(two).includes(id)).length, 0);
  assert.deepEqual(ids(bare).sort(), ["pti-hatch", "pti-unk"]);
  assert.doesNotMatch(css, /url\(#/);
  assert.ok(m.renderSvg(st, { uid: 'x"><script>' }).includes('id="pti-x___script_-hatch"'));
});

test("temporary views are drawn dashed and tagged; lanes carry view, name and region", () => {
  const bytes = i32([0, 1, 2, 3]);
  const views = [
    view("v0", "a", "r1", [4], [4], 0, { dense: true, status: "live" }),
    view("v1", 'x[::2] "tmp" <b>', "r1", [2], [8], 0, { status: "temporary", note: "made by inspect(x, x[::2]) and collected" }),
  ];
  const st = m.attachPreviews({ version: 1, regions: [region("r1", 16, views, bytes)], views, overlaps: [],
    gone: [{ name: "old", note: "was int32[2]" }] }, bytes);
  const svg = m.renderSvg(st);
  assert.match(svg, /<g class="pti-lane" data-view="v0" data-name="a" data-region="r1">/);
  assert.match(svg, /<g class="pti-lane pti-temp" data-view="v1" data-name="x\[::2\] &quot;tmp&quot; &lt;b&gt;" data-region="r1">/);
  const lane = svg.split(/(?=<g class="pti-lane)/).find((s) => s.includes('data-view="v1" data-name'));
  assert.match(lane, /<rect class="pti-swatch pti-swatch-temp"[^>]* stroke="#[0-9a-f]{6}"/);
  assert.match(lane, /<tspan class="pti-temp-tag">temporary<\/tspan>/);
  assert.match(lane, /<title>[^<]*temporary: made by inspect\(x, x\[::2\]\) and collected\)<\/title>/);
  assert.match(svg, /<text class="pti-gone"[^>]*><tspan[^>]*>freed: old \(was int32\[2\]\)</);
  assert.match(svg, /<g class="pti-region pti-detail" data-region="r1"/);
  const d = m.describeView(st, "v1");
  assert.deepEqual([d.status, d.note], ["temporary", "made by inspect(x, x[::2]) and collected"]);
  assert.equal(m.describeView(st, "v0").status, "live");
  assert.ok(RULES.some((r) => r.sel === ".pti-root .pti-swatch-temp" && r.decls["stroke-dasharray"]));
});

test("the tooltip is placed inside the viewport: shifted at the right edge, flipped at the bottom", () => {
  const inside = ({ left, top }, w, h, vw, vh) => left >= 0 && top >= 0 && left + w <= vw && top + h <= vh;
  assert.deepEqual(m.tipPosition(100, 100, 200, 80, 1280, 900), { left: 114, top: 116 });
  const right = m.tipPosition(1270, 100, 300, 80, 1280, 900);
  assert.ok(right.left + 300 <= 1276 && right.top === 116);
  const bottom = m.tipPosition(100, 880, 200, 150, 1280, 900);
  assert.ok(bottom.top + 150 <= 880, "flipped above the pointer");
  for (const [mx, my, w, h] of [[0, 0, 380, 300], [1279, 899, 380, 300], [640, 10, 380, 895], [5, 890, 1300, 50]]) {
    const vw = 1280, vh = 900, p = m.tipPosition(mx, my, Math.min(w, vw - 8), Math.min(h, vh - 8), vw, vh);
    assert.ok(inside(p, Math.min(w, vw - 8), Math.min(h, vh - 8), vw, vh), JSON.stringify([mx, my, w, h, p]));
  }
  // the stylesheet keeps it out of every clipping box, and the picture still scrolls sideways
  assert.equal(decl(".pti-root.pti-tip-layer", "position"), "fixed");
  assert.equal(decl(".pti-root .pti-tip", "position"), "fixed");
  assert.equal(decl(".pti-root .pti-holder", "overflow-x"), "auto");
  assert.equal(ROOT_VARS["overflow-x"], undefined);
});
