// table: who owns what, one row per view, and the legend.
import { CHAR_W, LIMITS, PAD, PALETTE, ROW_H } from "./geometry.mjs";
import { esc, fmtBytes, madeBy } from "./state.mjs";
import { wrapText } from "./values.mjs";
import { bytesOrUnknown } from "./describe.mjs";

// ------------------------------------------------------------------ who owns what
const LINE = 12;     // between the lines of a wrapped cell
const tuple = (xs) => (xs == null ? "\u2014" : `(${xs.join(", ")}${xs.length === 1 ? "," : ""})`);

/** "base 16 B, grid 4 B, and 3 more": the views this one shares bytes with (the pairs in state.overlaps). */
function partnersText(state, v, frame) {
  const list = (frame.ovByView.get(v.id) || []).filter((o) => o.shared_bytes !== 0).map((o) => {
    const w = state.viewById[o.a === v.id ? o.b : o.a];
    return { name: w ? w.name : "?", bytes: o.shared_bytes };
  });
  if (!list.length) return "\u2014";
  const shown = list.slice(0, LIMITS.tablePartners).map((p) => `${p.name} ${bytesOrUnknown(p.bytes)}`);
  return shown.join(", ") + (list.length > LIMITS.tablePartners ? `, and ${list.length - LIMITS.tablePartners} more` : "");
}

// The table's columns: key (data-col), header, its hover text, a view's cell text, and the width in characters
// a narrow picture may cut it to (0: never cut).
const TABLE_COLS = [
  ["view", "view", "the lane's name", (v) => v.name, 10],
  ["shape", "shape", "", (v) => tuple(v.shape), 0],
  ["dtype", "dtype", "", (v) => v.dtype, 0],
  ["strides", "strides", "in elements: how far the next index moves", (v) => tuple(v.strides), 0],
  ["bstrides", "in bytes", "strides in bytes", (v) => tuple(v.bstrides), 0],
  ["storage_offset", "offset", "storage offset, in elements", (v) => String(v.storage_offset), 0],
  ["byte_offset", "at byte", "where element 0 is, from the start of this buffer", (v) => String(v.byte_offset), 0],
  ["touched", "touched", "distinct bytes the view reads", (v) => bytesOrUnknown(v.touched_bytes), 0],
  ["exclusive", "alone", "bytes no other view in this picture reads", (v) => bytesOrUnknown(v.exclusive_bytes), 0],
  ["shared", "shared", "bytes some other view in this picture reads too", (v) => bytesOrUnknown(v.shared_bytes), 0],
  ["with", "shared with", "bytes in common with each other view", null, 12],
  ["readonly", "read-only", "", (v) => (v.readonly ? "yes" : "no"), 0],
  ["provenance", "provenance", "where the view's memory came from", (v) => v.provenance || "?", 10],
  ["lineage", "made by", "the expressions that made this view, its own first", madeBy, 12],
];

// Columns a narrow picture leaves out, first to last: each is also in the lane's label or hover.
const TABLE_DROP = ["lineage", "readonly", "bstrides", "byte_offset", "dtype", "storage_offset", "strides", "shape"];

/** Widths in characters of columns `cols`: their longest text, the shrinkable ones cut to fit `room`. */
function fitColumns(cols, cells, room) {
  const widths = cols.map((c) => Math.max(TABLE_COLS[c][1].length, ...cells.map((row) => row[c].length)));
  for (let over = widths.reduce((p, q) => p + q, 0) - room, k = cols.length - 1; over > 0 && k >= 0; k--) {
    const min = TABLE_COLS[cols[k]][4];
    if (!min || widths[k] <= min) continue;
    const cut = Math.min(over, widths[k] - min);
    widths[k] -= cut;
    over -= cut;
  }
  return widths;
}

/**
 * Who owns what, under a buffer's lanes: one row per view (name, layout, bytes touched, alone and
 * shared, with whom, read-only, provenance) and the buffer's total, each byte counted once. Column
 * widths follow their text; when the picture is too narrow, the columns that may shrink wrap
 * their text (the full text is in the cell's title), and a picture narrower still leaves out the
 * columns the lanes already show (TABLE_DROP; the table's data-hidden names them).
 */
export function tableSvg(state, r, views, y0, width, frame, nViews = views.length) {
  const rows = views.slice(0, LIMITS.tableRows);
  const all = rows.map((v) => TABLE_COLS.map(([key, , , f]) => String(key === "with" ? partnersText(state, v, frame) : f(v))));
  const chars = Math.floor((width - 2 * PAD - 14) / CHAR_W);
  // "made by" only where the model says (older snapshots have no lineage)
  const lineage = views.some((v) => v.lineage);
  let cols = TABLE_COLS.map((_, c) => c).filter((c) => lineage || TABLE_COLS[c][0] !== "lineage"), widths;
  for (const drop of [null, ...TABLE_DROP]) {
    if (drop) cols = cols.filter((c) => TABLE_COLS[c][0] !== drop);
    widths = fitColumns(cols, all, chars - 2 * cols.length);
    if (widths.reduce((p, q) => p + q, 0) <= chars - 2 * cols.length) break;
  }
  const cells = all.map((row) => cols.map((c) => row[c]));
  const xs = [];
  widths.reduce((x, w) => { xs.push(x); return x + (w + 2) * CHAR_W; }, PAD + 14);
  const hidden = TABLE_COLS.filter(([key], c) => !cols.includes(c) && (lineage || key !== "lineage")).map(([key]) => key);
  // a cell too long for its column wraps onto more lines of its row (its title keeps the text whole)
  const text = (t, k, cls, y) => {
    const lines = wrapText(t, widths[k]), x = xs[k].toFixed(1);
    const body = lines.length === 1 ? esc(t) : lines.map((line, j) =>
      `<tspan x="${x}" dy="${j ? LINE : 0}">${esc(line)}</tspan>`).join("");
    return `<text class="${cls}" data-col="${TABLE_COLS[cols[k]][0]}" x="${x}" y="${y}">` +
      `${lines.length > 1 ? `<title>${esc(t)}</title>` : ""}${body}</text>`;
  };
  const height = (row) => ROW_H + LINE * (Math.max(...row.map((t, k) => wrapText(t, widths[k]).length)) - 1);
  const parts = [`<g class="pti-table" data-region="${esc(r.id)}"${hidden.length ? ` data-hidden="${hidden.join(",")}"` : ""}>`];
  parts.push(`<g class="pti-thead">` + cols.map((c, k) => {
    const [, head, hint] = TABLE_COLS[c];
    return hint ? `<g><title>${esc(hint)}</title>${text(head, k, "pti-th", y0 + 11)}</g>` : text(head, k, "pti-th", y0 + 11);
  }).join("") + `</g>`);
  let y = y0 + ROW_H;
  rows.forEach((v, k) => {
    const h = height(cells[k]);
    parts.push(`<g class="pti-row" data-view="${esc(v.id)}" data-name="${esc(v.name)}">` +
      `<rect class="pti-row-bg${k % 2 ? " pti-odd" : ""}" x="${PAD}" y="${y}" width="${width - 2 * PAD}" height="${h}"/>` +
      `<rect x="${PAD + 3}" y="${y + 4}" width="8" height="8" fill="${v.color || PALETTE[0]}"/>` +
      cells[k].map((t, c) => text(t, c, t === "?" ? "pti-td pti-unknown-n" : "pti-td", y + 12)).join("") +
      (v.ownership_note ? `<title>${esc(v.ownership_note)}</title>` : "") + `</g>`);
    y += h;
  });
  if (views.length > rows.length) {
    parts.push(`<text class="pti-dim" x="${PAD + 14}" y="${y + 12}">and ${views.length - rows.length} more views</text>`);
    y += ROW_H;
  }
  if (nViews > views.length) {
    // folded lanes are counted in the total, not listed (unfold them to list them)
    parts.push(`<text class="pti-dim pti-folded-rows" x="${PAD + 14}" y="${y + 12}">and ${nViews - views.length} folded ` +
      `lane${nViews - views.length === 1 ? "" : "s"}: unfold to list them</text>`);
    y += ROW_H;
  }
  const total = wrapText(totalText(r, nViews), chars);
  parts.push(`<text class="pti-total" x="${PAD + 14}" y="${y + 13}">${esc(total[0])}` +
    `${r.union_note ? `<title>${esc(r.union_note)}</title>` : ""}</text>`);
  for (const line of total.slice(1)) {
    y += ROW_H;
    parts.push(`<text class="pti-total" x="${PAD + 14}" y="${y + 13}">${esc(line)}</text>`);
  }
  parts.push(`</g>`);
  return [parts.join(""), y + ROW_H + 4];
}

/** The buffer's total without double counting, next to its size and to the sum that would double-count. */
function totalText(r, n) {
  if (r.union_bytes === undefined) return `buffer: ${fmtBytes(r.nbytes)}`;
  const sum = r.touched_sum != null && n > 1 && r.touched_sum !== r.union_bytes
    ? ` (${bytesOrUnknown(r.touched_sum)} if each view were counted alone)` : "";
  return `together: ${bytesOrUnknown(r.union_bytes)} of this ${bytesOrUnknown(r.nbytes)} buffer reached, each byte counted once${sum}` +
    (r.union_bytes == null && r.union_note ? ` \u2014 ${r.union_note}` : "");
}

// Legend swatches are not bytes (class pti-key, not pti-byte), so `.pti-byte` selects the byte strip only.
// Each entry is [its key drawn at (x, y), key width, text]; entries flow into rows that fit the picture.
export function legendSvg(y, width, ids, ordered, files) {
  const box = (cls, fill = "") => (x, t) => `<rect class="${cls}" x="${x}" y="${t}" width="12" height="12"${fill}/>`;
  const arc = (back) => (x, t) => `<g class="pti-order-key" transform="translate(${x},${t})">` +
    `<path class="pti-step${back}" d="M1 2L1 10L15 10L15 2"/><path class="pti-step-arrow${back}" ` +
    `d="${back ? "M5.4 10L10.6 7.4L10.6 12.6Z" : "M10.6 10L5.4 7.4L5.4 12.6Z"}"/></g>`;
  const none = () => "";
  const items = [[box("pti-key pti-n1"), 16, "read by one view"], [box("pti-key pti-n2"), 16, "shared by several views"],
    [box("pti-key pti-unknown", ` fill="url(#${ids.unk})"`), 16, "not in preview"],
    [box("pti-ovl", ` fill="url(#${ids.hatch})"`), 16, "footprints overlap"],
    [none, 0, "\u27f2\u00d7n: a view reads a byte n times"]];
  if (files) {
    items.push([box("pti-key pti-resident"), 16, "file page resident in RAM"],
      [box("pti-key pti-cow"), 16, "page copied on write (no longer the file's bytes)"]);
  }
  if (ordered) {
    items.push([none, 0, "[i, j] over a cell: its index"], [arc(""), 18, "the walk from each index to the next"],
      [arc(" pti-step-back"), 18, "a step back in memory"], [none, 0, "\u25cb\u00d7n: one cell, n indices"]);
  }
  const parts = [`<g class="pti-legend" transform="translate(${PAD},${y})">`];
  let x = 0, row = 0;
  for (const [key, kw, text] of items) {
    const w = kw + text.length * 5.9;
    if (x > 0 && x + w > width - 2 * PAD) { x = 0; row += 16; }
    parts.push(key(x, row) + `<text x="${(x + kw).toFixed(1)}" y="${row + 10}">${esc(text)}</text>`);
    x += w + 18;
  }
  parts.push(`</g>`);
  return [parts.join(""), row + 22];
}

/**
 * What one renderSvg call shares across regions and lanes: the pattern ids
 * (unique per mounted view, since ids are global to the page and a removed
 * SVG takes its patterns with it), the work left, and overlaps by view.
 */
