// values: decoding element values from preview bytes, and how numbers and indices are written.
// ------------------------------------------------------------------ values
const F32 = new DataView(new ArrayBuffer(4));

function half(bits) {
  const s = bits & 0x8000 ? -1 : 1, e = (bits >> 10) & 0x1f, f = bits & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

function bf16(bits) { F32.setUint32(0, bits << 16); return F32.getFloat32(0); }

export function fmtNumber(x) {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (Number.isInteger(x) && Math.abs(x) < 1e6) return x.toFixed(1).replace(/\.0$/, ".");
  const p = x.toPrecision(4);
  return p.includes("e") ? p.replace(/\.?0+e/, "e") : p.replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, ".");
}

/** The element at `pos` of `bytes` as display text, or null when the bytes are not all there. */
export function decode(bytes, pos, dtype, endian = "<") {
  const sizes = { bool: 1, uint8: 1, int8: 1, uint16: 2, int16: 2, float16: 2, bfloat16: 2, uint32: 4,
    int32: 4, float32: 4, uint64: 8, int64: 8, float64: 8, complex64: 8, complex128: 16 };
  const n = sizes[dtype];
  if (!bytes || n === undefined || pos < 0 || pos + n > bytes.length) return null;
  const dv = new DataView(bytes.buffer, bytes.byteOffset + pos, n), le = endian !== ">";
  switch (dtype) {
    case "bool": return dv.getUint8(0) ? "True" : "False";
    case "uint8": return String(dv.getUint8(0));
    case "int8": return String(dv.getInt8(0));
    case "uint16": return String(dv.getUint16(0, le));
    case "int16": return String(dv.getInt16(0, le));
    case "uint32": return String(dv.getUint32(0, le));
    case "int32": return String(dv.getInt32(0, le));
    case "uint64": return String(dv.getBigUint64(0, le));
    case "int64": return String(dv.getBigInt64(0, le));
    case "float16": return fmtNumber(half(dv.getUint16(0, le)));
    case "bfloat16": return fmtNumber(bf16(dv.getUint16(0, le)));
    case "float32": return fmtNumber(dv.getFloat32(0, le));
    case "float64": return fmtNumber(dv.getFloat64(0, le));
    case "complex64": return cplx(dv.getFloat32(0, le), dv.getFloat32(4, le));
    case "complex128": return cplx(dv.getFloat64(0, le), dv.getFloat64(8, le));
    default: return null;
  }
}

function cplx(re, im) { return `${fmtNumber(re)}${im < 0 || Object.is(im, -0) ? "-" : "+"}${fmtNumber(Math.abs(im))}j`; }

// "1.2300e+6" -> "1.23e6": the short spelling of one toPrecision/toExponential result.
function compactNum(s) {
  let [m, e] = s.split("e");
  if (m.includes(".")) m = m.replace(/0+$/, "").replace(/\.$/, "");
  return e === undefined ? m : `${m}e${Number(e)}`;
}

/**
 * `text` in at most `room` characters, so a narrow cell still says something:
 * a number loses significant digits first (1234567 -> 1.2e6), anything else
 * keeps its head and a trailing ellipsis. The hover always has the full text.
 */
export function abbreviate(text, room) {
  text = String(text);
  if (text.length <= room) return text;
  if (room < 1) return "";
  const x = /^[-+]?[\d.]+(e[-+]?\d+)?$/i.test(text) ? Number(text) : NaN;
  if (Number.isFinite(x)) {
    for (let p = Math.min(room, 17); p >= 1; p--) {
      for (const s of [x.toPrecision(p), x.toExponential(p - 1)]) {
        const c = compactNum(s);
        if (c.length <= room) return c;
      }
    }
  }
  return room >= 2 ? text.slice(0, room - 1) + "\u2026" : "\u2026";
}

/** A cell's label in `room` characters; a repeated element keeps its "×n" while there is room for it. */
export function cellLabel(val, hits, room) {
  if (hits <= 1) return abbreviate(val, room);
  const suffix = `\u00d7${hits}`;
  return room >= suffix.length + 2 ? abbreviate(val, room - suffix.length) + suffix : abbreviate(val, room);
}

/** An index as `[1, 2]` in at most `room` characters: spaces go first, then brackets, then all but the last. */
export function indexText(index, room) {
  for (const t of [`[${index.join(", ")}]`, `[${index.join(",")}]`, index.join(",")]) if (t.length <= room) return t;
  const last = String(index.length ? index[index.length - 1] : "");
  return room >= last.length + 1 ? "\u2026" + last : "";
}

/** The indices of one cell in `room` characters: all of a few, else the first and last, else the first. */
export function indicesText(idxs, room) {
  if (idxs.length <= 1) return indexText(idxs[0] || [], room);
  const all = idxs.map((i) => `[${i.join(",")}]`).join(" ");
  if (idxs.length <= 4 && all.length <= room) return all;
  const a = idxs[0], b = idxs[idxs.length - 1];
  for (const t of [`[${a.join(", ")}]\u2026[${b.join(", ")}]`, `[${a.join(",")}]\u2026[${b.join(",")}]`]) {
    if (t.length <= room) return t;
  }
  const head = indexText(a, room - 1);
  return head ? head + "\u2026" : "";
}

export const idxList = (i) => `[${i.join(", ")}]`;

/**
 * `text` as lines of at most `room` characters, the first of at most `firstRoom`: broken at spaces,
 * a word longer than a line broken inside it. Nothing is left out (no ellipsis); the first line is
 * "" when not even a piece of the first word fits in `firstRoom` (the caller starts a new line).
 */
export function wrapText(text, room, firstRoom = room) {
  room = Math.max(1, Math.floor(room));
  const lines = [""];
  let cap = Math.max(0, Math.floor(firstRoom));
  for (const word of String(text).split(" ").filter((w) => w !== "")) {
    let rest = word;
    while (rest) {
      const line = lines[lines.length - 1], gap = line ? 1 : 0;
      if (line.length + gap + rest.length <= cap) { lines[lines.length - 1] = line + (gap ? " " : "") + rest; rest = ""; break; }
      if (!line && rest.length > cap && cap > 0 && rest.length > room) {
        // a word longer than any line: cut it at the line's end, the rest goes on
        lines[lines.length - 1] = rest.slice(0, cap);
        rest = rest.slice(cap);
      }
      lines.push("");
      cap = room;
    }
  }
  return lines;
}
