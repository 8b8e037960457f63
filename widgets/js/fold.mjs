// fold: a family of many lanes (views[0], views[1], ... as `inspect(views)` names a list's items)
// folded into one compact coverage view: a few rows, each a group of lanes, shaded by how many of
// them reach each stretch of bytes. 500 views stay one screen tall; a toggle unfolds them.
import { CHAR_W, FOLD_ROW_H, LABEL_W, LIMITS, PAD, PALETTE } from "./geometry.mjs";
import { wrapText } from "./values.mjs";
import { esc } from "./state.mjs";

const MEMBER = /^(.*)\[(\d+)\]$/;

/**
 * The families of `views` (in order): runs of consecutive views named `prefix[i]` with one prefix,
 * at least `minSize` long. Returns [{key, prefix, members}], `key` naming the family in `ui.fold`.
 */
export function families(views, rid, minSize = LIMITS.foldMin) {
  const out = [];
  let cur = null;
  for (const v of views) {
    const m = MEMBER.exec(String(v.name));
    if (m && cur && cur.prefix === m[1]) { cur.members.push(v); continue; }
    if (cur && cur.members.length >= minSize) out.push(cur);
    cur = m ? { key: `${rid}:${m[1]}`, prefix: m[1], members: [v] } : null;
  }
  if (cur && cur.members.length >= minSize) out.push(cur);
  return out;
}

/** Whether a family is drawn folded: yes, until its toggle says otherwise. */
export const folded = (ui, fam) => !(ui.fold && ui.fold[fam.key] === false);

const isEmpty = (v) => !v.numel || !(v.footprint[1] > v.footprint[0]);

/**
 * Per bucket k of [z0, z0 + span) in `nb` buckets, how many of `views`' footprints meet it, each
 * counted with `weight(v)` (1: a count): one sweep over sorted starts and ends.
 */
export function foldCounts(views, z0, span, nb, weight = () => 1) {
  const starts = views.map((v) => [v.footprint[0], weight(v)]).sort((p, q) => p[0] - q[0]);
  const ends = views.map((v) => [v.footprint[1], weight(v)]).sort((p, q) => p[0] - q[0]);
  const out = new Float64Array(nb);
  let i = 0, j = 0, begun = 0, ended = 0;
  for (let k = 0; k < nb; k++) {
    const a = z0 + Math.floor((span * k) / nb), b = z0 + Math.floor((span * (k + 1)) / nb);
    while (i < starts.length && starts[i][0] < Math.max(b, a + 1)) begun += starts[i++][1];
    while (j < ends.length && ends[j][0] <= a) ended += ends[j++][1];
    out[k] = begun - ended;
  }
  return out;
}

/** How much of its footprint a view reads (its shade in a fold row): 1 for a dense view, 0.5 unknown. */
const density = (v) => (v.touched_bytes == null ? 0.5
  : Math.min(1, v.touched_bytes / Math.max(1, v.footprint[1] - v.footprint[0])));

/** The toggle that folds or unfolds a family: pressed while folded. */
export function foldToggle(rid, fam, on, x, y) {
  const label = on ? "unfold" : "fold", w = Math.round(label.length * CHAR_W + 12);
  return `<g class="pti-toggle${on ? " pti-on" : ""}" data-act="fold" data-region="${esc(rid)}" data-family="${esc(fam.key)}" ` +
    `role="button" tabindex="0" aria-pressed="${on}" transform="translate(${x},${y})"><title>${on ? "show every lane of " :
      "fold the lanes of "}${esc(fam.prefix)}</title><rect width="${w}" height="16" rx="3"/>` +
    `<text x="${w / 2}" y="12" text-anchor="middle">${label}</text></g>`;
}

/**
 * A folded family at `y`: a header line (what was folded, how many empty lanes are hidden) and one
 * row per group of lanes, each a bar over the visible bytes [z0, z1) shaded by how many of the
 * group's footprints reach each stretch. Returns [svg, height]. Its cost: rows x buckets, whatever
 * the family's size (plus one sort of its footprints).
 */
export function foldSvg(rid, fam, g, y) {
  const { z0, span, sx, sw, width } = g;
  const live = fam.members.filter((v) => !isEmpty(v)), hidden = fam.members.length - live.length;
  const per = Math.max(1, Math.ceil(live.length / LIMITS.foldRows)), rows = Math.ceil(live.length / per);
  const head = `${fam.prefix}: ${fam.members.length} lanes folded into ${rows} row${rows === 1 ? "" : "s"}` +
    (per > 1 ? ` of up to ${per}` : "") + (hidden ? `; ${hidden} empty lane${hidden === 1 ? "" : "s"} hidden` : "");
  const room = Math.floor((width - 2 * PAD - 70) / CHAR_W);
  const lines = wrapText(head, room);
  const parts = [`<g class="pti-fold" data-region="${esc(rid)}" data-family="${esc(fam.key)}" data-lanes="${fam.members.length}" ` +
    `data-rows="${rows}" data-hidden="${hidden}">`];
  lines.forEach((t, k) => parts.push(`<text class="pti-fold-head" x="${PAD}" y="${y + 12 + k * 13}">${esc(t)}</text>`));
  parts.push(foldToggle(rid, fam, true, width - PAD - 60, y + 1));
  let yy = y + 6 + 13 * lines.length;
  const nb = Math.max(1, Math.min(Math.ceil(sw / 3), span)), bw = sw / nb;
  const color = fam.members[0].color || PALETTE[0];
  for (let k = 0; k < rows; k++) {
    const group = live.slice(k * per, (k + 1) * per);
    const idx = (v) => MEMBER.exec(v.name)[2];
    const name = group.length > 1 ? `[${idx(group[0])}\u2013${idx(group[group.length - 1])}]` : `[${idx(group[0])}]`;
    parts.push(`<g class="pti-fold-row" data-first="${esc(group[0].id)}" data-count="${group.length}">` +
      `<text class="pti-fold-name" x="${LABEL_W - 4}" y="${yy + 9}" text-anchor="end">${esc(fam.prefix + name)}</text>` +
      `<rect class="pti-fold-bg" x="${sx}" y="${yy + 1}" width="${sw}" height="${FOLD_ROW_H - 2}"/>`);
    // shaded by the bytes the group reads there: each lane that reaches a stretch adds the share of
    // its footprint it reads (a dense lane 1, a step-4 lane 1/4), out of the group's size
    const counts = foldCounts(group, z0, span, nb), reads = foldCounts(group, z0, span, nb, density);
    for (let b = 0; b < nb;) {
      let e = b + 1;
      while (e < nb && counts[e] === counts[b] && Math.abs(reads[e] - reads[b]) < 1e-9) e++;
      if (counts[b] > 0) {
        const share = reads[b] / counts[b];
        parts.push(`<rect class="pti-fold-run" x="${(sx + b * bw).toFixed(2)}" y="${yy + 1}" width="${((e - b) * bw).toFixed(2)}" ` +
          `height="${FOLD_ROW_H - 2}" fill="${color}" fill-opacity="${(0.15 + (0.85 * reads[b]) / group.length).toFixed(2)}">` +
          `<title>${esc(fam.prefix + name)}: ${counts[b]} of ${group.length} lanes reach bytes ` +
          `[${z0 + Math.floor((span * b) / nb)}, ${z0 + Math.floor((span * e) / nb)}), reading ` +
          `${Math.round(100 * share)}% of their footprints on average</title></rect>`);
      }
      b = e;
    }
    parts.push(`</g>`);
    yy += FOLD_ROW_H;
  }
  parts.push(`</g>`);
  return [parts.join(""), yy - y + 6];
}
