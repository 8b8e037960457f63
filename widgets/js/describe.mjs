// describe: what a hover says about a byte, an element or a view (pure: data in, data or HTML text out).
import { LIMITS, elementsInWindow, footprint } from "./geometry.mjs";
import { idxList } from "./values.mjs";
import { byteAt, esc, fmtBytes, regionViews, valueAt } from "./state.mjs";

// ------------------------------------------------------------------ hover descriptions (pure)
/**
 * Every (view, index) that reads byte `off` of region `rid`, with values.
 * Bounded like a frame: at most LIMITS.hoverReaders readers in all, and
 * `truncated` says some view was not searched to the end.
 */
export function describeByte(state, rid, off) {
  const r = state.regions.find((x) => x.id === rid);
  if (!r) return null;
  const readers = [];
  let left = LIMITS.frameBudget, truncated = false;
  for (const v of regionViews(state, r)) {
    if (v.footprint && (off < v.footprint[0] || off >= v.footprint[1])) continue;
    const room = LIMITS.hoverReaders - readers.length;
    if (room <= 0 || left <= 0) { truncated = true; break; }
    const els = elementsInWindow(v.shape, v.bstrides, v.itemsize, v.byte_offset, off, off + 1, room, Math.min(LIMITS.walkBudget, left));
    left -= els.visited;
    truncated = truncated || els.truncated;
    for (const e of els) {
      readers.push({ view: v.id, name: v.name, index: e.index, start: e.start, byteInElement: off - e.start,
        value: valueAt(r, v, e.start) });
    }
  }
  const b = byteAt(r, off);
  return { region: rid, byte_offset: off, byte: b, hex: b == null ? null : b.toString(16).padStart(2, "0"),
    // one file seen through several mappings has no one address: name the byte by its place in the file
    address: r.identity ? `file byte ${r.identity.byte_offset + off}` : addrPlus(r.addr, off), readers, truncated };
}

function addrPlus(hex, off) {
  try { return "0x" + (BigInt(hex) + BigInt(off)).toString(16); } catch { return `${hex}+${off}`; }
}

/** What a hover over a view shows: layout, contiguity, idiom tags, overlaps, whether the object is gone. */
export function describeView(state, vid) {
  const v = state.viewById[vid];
  if (!v) return null;
  const overlaps = (state.overlaps || []).filter((o) => o.a === vid || o.b === vid).map((o) => {
    const other = state.viewById[o.a === vid ? o.b : o.a];
    return { with: other ? other.name : "?", lo: o.lo, hi: o.hi, shared: o.shared_bytes };
  });
  return {
    name: v.name, type: v.type, dtype: v.dtype, itemsize: v.itemsize, shape: v.shape,
    strides: v.strides, bstrides: v.bstrides, storage_offset: v.storage_offset, byte_offset: v.byte_offset,
    footprint: v.footprint, contiguous: v.contiguous, tags: v.tags || [], numel: v.numel,
    touched: v.touched_bytes, max_hits: v.max_hits, readonly: v.readonly, overlaps,
    exclusive: v.exclusive_bytes, shared: v.shared_bytes, ownership_note: v.ownership_note || "",
    status: v.status || "live", note: v.note || "",
    lineage: v.lineage || null, lineage_text: v.lineage_text || "", origin: v.origin || null,
  };
}

/**
 * What hovering the element cell of view `vid` at byte `start` shows: every index of this view
 * that reads the cell (a repeated cell has several), and the elements of every other view whose
 * bytes meet it, with values. Bounded like describeByte.
 */
export function describeElement(state, vid, start) {
  const v = state.viewById[vid];
  const r = v && state.regions.find((x) => x.id === v.region);
  if (!r) return null;
  const end = start + v.itemsize;
  let left = LIMITS.frameBudget, truncated = false;
  const mine = elementsInWindow(v.shape, v.bstrides, v.itemsize, v.byte_offset, start, end, LIMITS.hoverReaders, LIMITS.walkBudget);
  left -= mine.visited;
  const indices = mine.filter((e) => e.start === start).map((e) => e.index);
  const others = [];
  for (const w of regionViews(state, r)) {
    if (w.id === vid || (w.footprint && (end <= w.footprint[0] || start >= w.footprint[1]))) continue;
    const room = LIMITS.hoverReaders - others.length;
    if (room <= 0 || left <= 0) { truncated = true; break; }
    const els = elementsInWindow(w.shape, w.bstrides, w.itemsize, w.byte_offset, start, end, room, Math.min(LIMITS.walkBudget, left));
    left -= els.visited;
    truncated = truncated || els.truncated;
    for (const e of els) {
      others.push({ view: w.id, name: w.name, index: e.index, start: e.start, end: e.start + w.itemsize, value: valueAt(r, w, e.start) });
    }
  }
  return { view: vid, name: v.name, start, end, value: valueAt(r, v, start), indices,
    indicesTruncated: mine.truncated, others, truncated };
}

export function tipForByte(d) {
  if (!d) return "";
  const rows = d.readers.map((x) => `<tr><td><b>${esc(x.name)}</b>[${x.index.join(", ")}]</td>` +
    `<td>${x.value == null ? "<i>not in preview</i>" : esc(x.value)}</td>` +
    `<td class="pti-dim">byte ${x.byteInElement} of element</td></tr>`).join("");
  const more = d.truncated ? `<div class="pti-dim">more readers not listed (too many to search in one hover)</div>` : "";
  return `<div class="pti-tip-h">byte ${d.byte_offset} <span class="pti-dim">(${esc(d.address)})</span>` +
    ` = ${d.hex == null ? "?" : "0x" + d.hex}</div>` +
    (rows ? `<table>${rows}</table>` : d.truncated ? "" : `<div class="pti-dim">no inspected view reads this byte</div>`) + more;
}

const MAX_TIP_OVERLAPS = 12, MAX_TIP_INDICES = 24;

export function tipForElement(d) {
  if (!d) return "";
  const idx = d.indices.length ? d.indices : [[]];
  const shown = idx.slice(0, MAX_TIP_INDICES).map(idxList).join(", ") +
    (idx.length > MAX_TIP_INDICES || d.indicesTruncated ? ", \u2026" : "");
  const head = `<div class="pti-tip-h"><b>${esc(d.name)}</b>${idxList(idx[0])} = ${d.value == null ? "?" : esc(d.value)} ` +
    `<span class="pti-dim">bytes [${d.start}, ${d.end})</span></div>` +
    (idx.length > 1 ? `<div>read by ${idx.length}${d.indicesTruncated ? "+" : ""} indices: ${shown}</div>` : "");
  const rows = d.others.map((x) => `<tr><td><b>${esc(x.name)}</b>${idxList(x.index)}</td>` +
    `<td>${x.value == null ? "<i>not in preview</i>" : esc(x.value)}</td>` +
    `<td class="pti-dim">bytes [${x.start}, ${x.end})</td></tr>`).join("");
  const more = d.truncated ? `<div class="pti-dim">more not listed (too many to search in one hover)</div>` : "";
  return head + (rows ? `<div>the same bytes in other lanes:</div><table>${rows}</table>`
    : `<div class="pti-dim">no other lane reads these bytes</div>`) + more;
}

// Exact below 10 KiB (what a learner counts by hand), rounded above.
export const bytesOrUnknown = (n) => (n == null ? "?" : n < 10240 ? `${n} B` : fmtBytes(n));

export function tipForView(d) {
  if (!d) return "";
  const strides = d.strides ? `(${d.strides.join(", ")}) elements = (${d.bstrides.join(", ")}) bytes`
    : `(${d.bstrides.join(", ")}) bytes`;
  const ov = d.overlaps.slice(0, MAX_TIP_OVERLAPS).map((o) => `<li>${esc(o.with)}: bytes [${o.lo}, ${o.hi})` +
    `${o.shared == null ? " (footprints meet)" : `, ${o.shared} B shared`}</li>`).join("") +
    (d.overlaps.length > MAX_TIP_OVERLAPS ? `<li>and ${d.overlaps.length - MAX_TIP_OVERLAPS} more</li>` : "");
  const status = d.status === "temporary"
    ? `<tr><td>status</td><td><span class="pti-tag pti-tag-temp">temporary</span> ` +
      `${d.note ? esc(d.note) : "the Python object is gone; its bytes are alive, drawn from the layout recorded when it was inspected"}</td></tr>`
    : d.note ? `<tr><td>note</td><td>${esc(d.note)}</td></tr>` : "";
  const made = d.lineage_text ? `<tr><td>made by</td><td class="pti-tip-lineage">${esc(d.lineage_text)}</td></tr>` : "";
  const origin = d.origin && d.origin.text ? `<tr><td>bytes</td><td class="pti-tip-origin${d.origin.shared === false ? " pti-copied-text" : ""}">` +
    `${esc(d.origin.text)}</td></tr>` : "";
  return `<div class="pti-tip-h"><b>${esc(d.name)}</b> ${esc(d.type)}</div><table>` + status + made + origin +
    `<tr><td>shape</td><td>(${d.shape.join(", ")})</td></tr>` +
    `<tr><td>strides</td><td>${strides}</td></tr>` +
    `<tr><td>offset</td><td>${d.storage_offset} elements, byte ${d.byte_offset} of the buffer</td></tr>` +
    `<tr><td>dtype</td><td>${esc(d.dtype)} (${d.itemsize} B)</td></tr>` +
    `<tr><td>footprint</td><td>bytes [${d.footprint[0]}, ${d.footprint[1]}), touches ${d.touched == null ? "?" : d.touched} B</td></tr>` +
    (d.exclusive !== undefined ? `<tr><td>owns</td><td>${bytesOrUnknown(d.exclusive)} alone, ${bytesOrUnknown(d.shared)} ` +
      `shared with other lanes${d.ownership_note ? ` <span class="pti-dim">(${esc(d.ownership_note)})</span>` : ""}</td></tr>` : "") +
    `<tr><td>contiguous</td><td>${d.contiguous ? "yes" : "no"}${d.readonly ? " \u00b7 read-only" : ""}</td></tr>` +
    `<tr><td>idiom</td><td>${d.tags.map((t) => `<span class="pti-tag">${esc(t)}</span>`).join(" ")}` +
    `${d.max_hits > 1 ? ` each byte read up to ${d.max_hits}\u00d7` : ""}</td></tr></table>` +
    (ov ? `<div>overlaps:</div><ul>${ov}</ul>` : "");
}
