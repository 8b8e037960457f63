// processes: the strip under a buffer that says which processes map its pages, each one's share
// (PSS), and which pages are still shared, were copied, or (a shared mapping) were written since the last
// picture (widgets/_processes.py makes the data).
import { CHAR_W, PAD, pixelRuns } from "./geometry.mjs";
import { clip, esc, fmtBytes } from "./state.mjs";
import { wrapText } from "./values.mjs";

const PROC_LINES = 8;       // processes named one line each; the rest are counted

/** Drawn only where it says something: another process maps the bytes, or pages were copied or written since. */
export function processesShown(p) {
  return !!p && (p.pids.length > 1 || p.copied_since > 0 || p.written_since > 0);
}

/** "3 pages written since the last picture", or "" when none (or none could be compared). */
export function writtenLine(p) {
  const n = p.written_since;
  return n > 0 ? `${n} page${n === 1 ? "" : "s"} written since the last picture` : "";
}

/** "pid 4242 (python, child): PSS 2.1 MiB of its 4.2 MiB mapping · 512 pages shared · 3 copied by it". */
export function processLine(o) {
  const who = o.relation === "this process" ? `this process (pid ${o.pid})`
    : `pid ${o.pid} (${o.name ? `${o.name}, ` : ""}${o.relation})`;
  const parts = [];
  if (o.pss_bytes != null) parts.push(`PSS ${fmtBytes(o.pss_bytes)} of its ${fmtBytes(o.mapped_bytes)} mapping`);
  if (o.shared_pages != null) parts.push(`${o.shared_pages} page${o.shared_pages === 1 ? "" : "s"} shared`);
  if (o.copied_pages != null) parts.push(`${o.copied_pages} copied by it`);
  return `${who}: ${parts.join(" \u00b7 ") || "its pages cannot be read"}`;
}

/**
 * The processes strip of region r over the byte axis [z0, z1): pages this process maps that another maps
 * too (blue), this process's own copies (orange), pages of a shared mapping written since the last picture
 * (crimson, drawn over the blue), then one line per process. Returns [svg, next y].
 */
export function processesSvg(r, z0, z1, sx, sw, y, width) {
  const p = r.processes;
  if (!processesShown(p)) return ["", y];
  const me = p.pids[0], others = p.pids.slice(1);
  const parts = [`<g class="pti-procs" data-region="${esc(r.id)}" data-mapping="${esc(p.mapping)}" ` +
    `data-pids="${others.map((o) => o.pid).join(" ")}" data-shared-pages="${me.shared_pages ?? ""}" ` +
    `data-copied-pages="${me.copied_pages ?? ""}" data-written-pages="${p.written_since ?? ""}" data-pages="${p.pages}">`];
  const scale = sw / Math.max(1, z1 - z0);
  const x = (off) => sx + (Math.min(Math.max(off, z0), z1) - z0) * scale;
  const head = others.length ? `shared with ${others.length} other process${others.length === 1 ? "" : "es"}` : "processes";
  parts.push(`<text class="pti-lbl pti-dim" x="${PAD}" y="${y + 7}">${esc(clip(head, Math.floor((sx - PAD - 4) / CHAR_W)))}</text>` +
    `<rect class="pti-pages-bg" x="${sx}" y="${y}" width="${sw}" height="8"><title>${esc(p.shared ? "pages of the buffer; " +
      "blue where another process maps them too, orange where this process has its own copy, crimson where " +
      "written since the last picture" : "page states unknown")}</title></rect>`);
  const page = (cls, what) => ([p0, p1, lo, hi]) => `<rect class="${cls}" data-lo="${lo}" data-hi="${hi}" x="${p0.toFixed(2)}" ` +
    `y="${cls === "pti-proc-copied" ? y + 4 : y}" width="${(p1 - p0).toFixed(2)}" height="${cls === "pti-proc-copied" ? 4 : 8}">` +
    `<title>${what}: bytes [${lo}, ${hi})</title></rect>`;
  parts.push(...pixelRuns(p.shared, z0, z1, x).map(page("pti-proc-shared", "shared with another process")));
  parts.push(...pixelRuns(p.copied, z0, z1, x).map(page("pti-proc-copied", "this process's own copy: no longer shared")));
  parts.push(...pixelRuns(p.written, z0, z1, x).map(page("pti-proc-written", "written since the last picture")));
  y += 12;
  const lines = p.pids.slice(0, PROC_LINES).map(processLine);
  if (p.pids.length > PROC_LINES) lines.push(`and ${p.pids.length - PROC_LINES} more processes`);
  if (p.copied_since) lines.push(`${p.copied_since} page${p.copied_since === 1 ? "" : "s"} copied since the last picture`);
  if (writtenLine(p)) lines.push(writtenLine(p));
  if (p.note) lines.push(`note: ${p.note}`);
  const cols = Math.floor((width - sx - PAD) / CHAR_W);
  lines.forEach((line, k) => {   // a long line wraps onto the rows below it, never cut
    const pid = k < p.pids.length && k < PROC_LINES ? ` data-pid="${p.pids[k].pid}"` : "";
    const rows = wrapText(line, cols);
    parts.push(`<text class="pti-proc" x="${sx}" y="${y + 10}"${pid}><title>${esc(line)}</title>` +
      rows.map((row, i) => `<tspan x="${sx}" dy="${i ? 14 : 0}">${esc(row)}</tspan>`).join("") + `</text>`);
    y += 14 * rows.length;
  });
  parts.push(`</g>`);
  return [parts.join(""), y + 4];
}
