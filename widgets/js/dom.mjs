// dom: the interactive view on a page: mounting, tooltips, zoom and history, patching the picture in place.
import { LIMITS, SIZES, SIZE_DEFAULT, W_DEFAULT } from "./geometry.mjs";
import { attachPreviews, toU8, visibleRange } from "./state.mjs";
import {
  describeByte, describeElement, describeView, tipForByte, tipForElement, tipForView
} from "./describe.mjs";
import { renderSvg } from "./picture.mjs";

export function tipPosition(mx, my, w, h, vw, vh, margin = 4) {
  let left = mx + 14, top = my + 16;
  if (left + w > vw - margin) left = vw - margin - w;
  if (top + h > vh - margin) top = my - 10 - h;
  left = Math.max(margin, Math.min(left, vw - margin - w));
  top = Math.max(margin, Math.min(top, vh - margin - h));
  return { left: Math.max(0, left), top: Math.max(0, top) };
}

/**
 * Put the picture `html` into `holder`, keeping every node of the one already there that did not
 * change: the SVG's children, and one level further down (a region's header, byte strip, lanes and
 * table). A write changes a few lanes, a badge and some bytes, and the browser lays out only
 * those again; replacing the whole picture would lay out every lane's text.
 */
export function patchPicture(holder, html) {
  const old = holder.firstElementChild;
  const tpl = document.createElement("template");
  tpl.innerHTML = html;
  const fresh = tpl.content.firstElementChild;
  if (!old || !fresh || old.tagName !== fresh.tagName || holder.children.length !== 1) {
    holder.replaceChildren(tpl.content);
    return;
  }
  copyAttributes(old, fresh);
  patchChildren(old, fresh, 1);
}

function copyAttributes(old, fresh) {
  for (const { name } of [...old.attributes]) if (!fresh.hasAttribute(name)) old.removeAttribute(name);
  for (const { name, value } of fresh.attributes) if (old.getAttribute(name) !== value) old.setAttribute(name, value);
}

const sameAttributes = (a, b) => a.attributes.length === b.attributes.length &&
  [...b.attributes].every(({ name, value }) => a.getAttribute(name) === value);

function patchChildren(old, fresh, depth) {
  const a = [...old.children], b = [...fresh.children];
  if (a.length !== b.length) { old.replaceChildren(...b); return; }
  for (let i = 0; i < a.length; i++) {
    // a container with the same attributes is patched child by child; anything else is compared whole
    if (depth > 0 && a[i].tagName === b[i].tagName && sameAttributes(a[i], b[i])) patchChildren(a[i], b[i], depth - 1);
    else if (a[i].outerHTML !== b[i].outerHTML) a[i].replaceWith(b[i]);
  }
}

// Pattern ids must differ between every picture on a page, including pictures
// drawn by separate copies of this module (each static export inlines one).
const PAGE_TAG = Math.random().toString(36).slice(2, 8);

let mounted = 0;

export function mount(el, opts) {
  const v = mountDom(el, opts);
  const at = { x: 0, y: 0 };
  const seen = (ev) => { at.x = ev.clientX; at.y = ev.clientY; };
  const onOver = (ev) => { seen(ev); hoverAt(v, ev); }, onMove = (ev) => { seen(ev); if (!v.tip.hidden) placeTip(v, ev); };
  // A fixed tooltip would stay put while the page scrolls under it: it follows what is under the
  // pointer after the scroll (or goes, when that is not this picture).
  const onScroll = () => {
    if (v.tip.hidden) return;
    const under = document.elementFromPoint(at.x, at.y);
    if (under && v.holder.contains(under)) hoverAt(v, { target: under, clientX: at.x, clientY: at.y });
    else { clearHl(v); hideTip(v); }
  };
  const onLeave = () => { clearHl(v); hideTip(v); }, onClick = (ev) => click(v, ev);
  // the picture's buttons (toggles, a lane's order) answer Enter and Space as a button does
  const onKey = (ev) => {
    if ((ev.key === "Enter" || ev.key === " ") && ev.target.closest(".pti-toggle, .pti-label[tabindex]")) {
      ev.preventDefault();
      click(v, ev);
    }
  };
  v.hist.onPick = (generation) => {
    if (generation == null) showStep(v, null);
    else if (opts.send) opts.send({ op: "step", generation });
  };
  v.holder.addEventListener("mouseover", onOver);
  v.holder.addEventListener("mousemove", onMove);
  v.holder.addEventListener("mouseleave", onLeave);
  v.holder.addEventListener("click", onClick);
  v.holder.addEventListener("keydown", onKey);
  window.addEventListener("scroll", onScroll, { capture: true, passive: true });
  return {
    update: (snapshot, previews, changes) => update(v, snapshot, previews, changes),
    draw: () => redraw(v),
    ui: v.ui,
    // History: the slider picks a step; the live view asks Python for its picture (showStep answers).
    setSteps: (steps) => v.hist.set(steps || [], v.past ? v.past.generation : null),
    showStep: (generation, snapshot, previews, changes, info) => showStep(v, generation, snapshot, previews, changes, info),
    destroy() {
      clearTimeout(v.flashTimer);
      v.holder.removeEventListener("mouseover", onOver);
      v.holder.removeEventListener("mousemove", onMove);
      v.holder.removeEventListener("mouseleave", onLeave);
      v.holder.removeEventListener("click", onClick);
      v.holder.removeEventListener("keydown", onKey);
      window.removeEventListener("scroll", onScroll, { capture: true });
      v.layer.remove();
      v.root.remove();
    },
  };
}

/** A view's elements under `el` and its state: `state` is the live picture, `past` a history step shown
 * instead of it. */
function mountDom(el, opts) {
  const root = document.createElement("div");
  root.className = opts.live ? "pti-root pti-live" : "pti-root";
  const bar = document.createElement("div");
  bar.className = "pti-bar";
  const hist = historyBar();
  const holder = document.createElement("div");
  holder.className = "pti-holder";
  const head = document.createElement("div");
  head.className = "pti-head";
  head.append(bar);
  root.append(head, hist.el, holder);
  el.appendChild(root);
  // The tooltip lives on <body>, outside every box that clips (the holder's
  // scroll area, notebook output areas); pti-root gives it the scoped styles.
  const layer = document.createElement("div");
  layer.className = "pti-root pti-tip-layer";
  const tip = document.createElement("div");
  tip.className = "pti-tip";
  tip.hidden = true;
  layer.appendChild(tip);
  document.body.appendChild(layer);
  // The ownership table starts open in a static page (a document to read) and folded in a live
  // widget (a notebook stacks many; its repr prints the same numbers): one click either way.
  // orderLane: per region, the lane whose order path is shown (null: none); fold: per family, false
  // when unfolded; size: the size control's choice (SIZES)
  const ui = { zoom: {}, order: {}, table: {}, tableDefault: !opts.live, flash: null, width: 0,
    uid: `${PAGE_TAG}${++mounted}`, orderLane: {}, fold: {}, size: SIZE_DEFAULT };
  const v = { opts, root, bar, hist, holder, layer, tip, ui, state: null, flashTimer: null, past: null };
  head.append(sizeControl(v));
  root.dataset.size = layer.dataset.size = ui.size;
  return v;
}

const shownState = (v) => (v.past ? v.past.state : v.state);

export function redraw(v) {
  const { ui, opts, past, root, holder, bar } = v, shown = shownState(v);
  if (!shown) return;
  ui.width = Math.max(640, Math.min(1400, Math.floor(root.clientWidth || W_DEFAULT)));
  const flash = ui.flash;
  if (past) { ui.flash = past.changes; ui.past = true; }
  const focused = focusKey(holder);
  patchPicture(holder, renderSvg(shown, ui));
  refocus(holder, focused);
  if (past) { ui.flash = flash; ui.past = false; }
  bar.textContent = `${shown.views.length} view${shown.views.length === 1 ? "" : "s"} of ` +
    `${shown.regions.length} buffer${shown.regions.length === 1 ? "" : "s"} \u00b7 ` +
    (past ? "history: a past picture (live updates wait until you go back to live)" :
      opts.live ? "live" : opts.saved ? "saved with the notebook (no kernel is drawing it; values are from when " +
      "the cell ran)" : "static export (hover works; values are from the moment of export)");
}

export function update(v, snapshot, previews, changes) {
  const { ui, root } = v;
  v.state = attachPreviews(snapshot || {}, previews);
  if (changes && changes.tick && changes.tick !== ui.lastTick) {
    ui.flash = changes;
    ui.lastTick = changes.tick;
    clearTimeout(v.flashTimer);
    v.flashTimer = setTimeout(() => { ui.flash = null; }, 1500);
    root.dataset.flashes = String((+root.dataset.flashes || 0) + 1);
  }
  redraw(v);
}

export function showStep(v, generation, snapshot, previews, changes, info) {
  if (generation == null) v.past = null;
  else v.past = { generation, state: attachPreviews(snapshot || {}, previews), changes: changes || null };
  v.root.dataset.step = v.past ? String(generation) : "live";
  v.hist.mark(v.past ? generation : null, info);
  redraw(v);
}

// ---- hover: the tooltip, and the same bytes lit in every lane
const clearHl = (v) => v.holder.querySelectorAll(".pti-hl").forEach((n) => n.classList.remove("pti-hl"));

const hideTip = (v) => { v.tip.hidden = true; };

const light = (v, selector) => v.holder.querySelectorAll(selector).forEach((n) => n.classList.add("pti-hl"));

function placeTip(v, ev) {
  const de = document.documentElement;
  const vw = de.clientWidth || window.innerWidth, vh = de.clientHeight || window.innerHeight;
  const box = v.tip.getBoundingClientRect();
  const { left, top } = tipPosition(ev.clientX, ev.clientY, box.width, box.height, vw, vh);
  v.tip.style.left = `${left}px`;
  v.tip.style.top = `${top}px`;
}

function showTip(v, html, ev) {
  if (!html) { hideTip(v); return; }
  v.tip.innerHTML = html;
  v.tip.hidden = false;
  placeTip(v, ev);
}

function hoverAt(v, ev) {
  const t = ev.target.closest("[data-off],[data-view]");
  clearHl(v);
  const shown = shownState(v);
  if (!t || !shown) { hideTip(v); return; }
  if (t.dataset.off !== undefined && t.dataset.region) hoverByte(v, shown, t, ev);
  else if (t.dataset.view) hoverView(v, shown, t, ev);
}

function hoverByte(v, shown, t, ev) {
  const d = describeByte(shown, t.dataset.region, +t.dataset.off);
  if (!d) { hideTip(v); return; }
  for (const rd of d.readers) light(v, `.pti-el[data-view="${rd.view}"][data-start="${rd.start}"]`);
  light(v, `.pti-byte[data-region="${t.dataset.region}"][data-off="${t.dataset.off}"]`);
  const extra = t.dataset.end ? `<div class="pti-dim">bytes ${t.dataset.off}\u2013${t.dataset.end}: click to zoom in</div>` : "";
  showTip(v, tipForByte(d) + extra, ev);
}

function hoverView(v, shown, t, ev) {
  const vid = t.dataset.view;
  let html = tipForView(describeView(shown, vid));
  if (t.dataset.start !== undefined && t.classList.contains("pti-el")) {
    // an element: its bytes in the strip, and the cells of every other lane over the same bytes
    const w = shown.viewById[vid], start = +t.dataset.start;
    for (let b = start; b < start + w.itemsize; b++) light(v, `.pti-byte[data-region="${w.region}"][data-off="${b}"]`);
    const d = describeElement(shown, vid, start);
    t.classList.add("pti-hl");
    for (const o of d ? d.others : []) light(v, `.pti-el[data-view="${o.view}"][data-start="${o.start}"]`);
    html = tipForElement(d) + html;
  }
  light(v, `.pti-lane[data-view="${vid}"]`);
  showTip(v, html, ev);
}

// ---- clicks: the order and table toggles, and zoom
function setZoom(v, r, z0, z1) {
  const { ui, opts } = v;
  const span = Math.max(16, z1 - z0);
  z0 = Math.max(0, Math.min(z0, r.nbytes - span));
  z1 = Math.min(r.nbytes, z0 + span);
  if (z0 <= 0 && z1 >= r.nbytes) delete ui.zoom[r.id]; else ui.zoom[r.id] = [z0, z1];
  const p = r.preview || { start: 0, length: 0 };
  if (opts.send && r.host && (z0 < p.start || Math.min(z1, z0 + LIMITS.detailBytes) > p.start + p.length)) {
    opts.send({ op: "window", region: r.id, start: z0 });
  }
  redraw(v);
}

function click(v, ev) {
  const shown = shownState(v);
  if (!shown) return;
  const toggle = ev.target.closest(".pti-toggle");
  if (toggle) {
    const act = toggle.dataset.act, on = toggle.getAttribute("aria-pressed") !== "true";
    if (act === "fold") v.ui.fold[toggle.dataset.family] = on;
    else v.ui[act === "order" ? "order" : "table"][toggle.dataset.region] = on;
    redraw(v);
    return;
  }
  const label = ev.target.closest(".pti-label[tabindex]"), lane = label && label.closest(".pti-lane");
  if (lane) {
    // one lane's order path at a time: this one, or (clicked again) none
    v.ui.orderLane[lane.dataset.region] = label.getAttribute("aria-pressed") === "true" ? null : label.dataset.view;
    redraw(v);
    return;
  }
  const z = ev.target.closest(".pti-zoom");
  const bucket = ev.target.closest(".pti-bucket");
  const mm = ev.target.closest(".pti-minimap");
  const rid = (z || bucket || mm || {}).dataset?.region;
  const r = rid && shown.regions.find((x) => x.id === rid);
  if (!r) return;
  const [z0, z1] = visibleRange(r, v.ui), span = z1 - z0, mid = (z0 + z1) / 2;
  if (z) {
    const act = z.dataset.act;
    if (act === "in") setZoom(v, r, Math.floor(mid - span / 4), Math.ceil(mid + span / 4));
    else if (act === "out") setZoom(v, r, Math.floor(mid - span), Math.ceil(mid + span));
    else if (act === "left") setZoom(v, r, Math.floor(z0 - span / 2), Math.floor(z1 - span / 2));
    else if (act === "right") setZoom(v, r, Math.ceil(z0 + span / 2), Math.ceil(z1 + span / 2));
    else setZoom(v, r, 0, r.nbytes);
  } else if (bucket) {
    // straight to readable bytes: 64 of them, starting where the click landed
    const a = Math.floor(+bucket.dataset.off / 16) * 16;
    setZoom(v, r, a, a + Math.min(64, r.nbytes));
  } else if (mm) {
    const box = mm.getBoundingClientRect(), frac = (ev.clientX - box.left) / Math.max(1, box.width);
    const c = Math.floor(frac * r.nbytes);
    setZoom(v, r, Math.floor(c - span / 2), Math.floor(c - span / 2) + span);
  }
}

/** Static page entry point: no kernel, hover and zoom still work. */
export function mountStatic(el, snapshot, previewsBase64, options = {}) {
  const view = mount(el, { live: false, saved: !!options.saved });
  view.update(snapshot, toU8(previewsBase64), null);
  return view;
}

// The notebook output areas a live view and its static fallback share (JupyterLab and Notebook 7,
// classic Notebook, nbconvert's lab template).
const OUTPUT_AREA = ".jp-OutputArea, .output_area, .output";

/**
 * The static stand-in that the widget's display adds after the live view: drawn only when no live
 * view shares its output area (a saved notebook without a kernel, an nbconvert page). A live view
 * that arrives later removes it (dropFallbacks).
 */
export function mountFallback(el, snapshot, previewsBase64) {
  if (!el || !el.isConnected) return null;   // a newer picture replaced this output before its script ran
  const area = el.closest(OUTPUT_AREA);
  if (area && area.querySelector(".pti-live")) { el.hidden = true; return null; }
  const view = mountStatic(el, snapshot, previewsBase64, { saved: true });
  el.ptiView = view;
  el.dataset.fallback = "shown";
  return view;
}

export function dropFallbacks(el) {
  const area = el.closest(OUTPUT_AREA);
  for (const n of area ? area.querySelectorAll(".pti-fallback .pti-static") : []) {
    if (n.ptiView) n.ptiView.destroy();
    n.ptiView = null;
    n.hidden = true;
    n.dataset.fallback = "hidden";
  }
}

/**
 * The history slider above the picture: one stop per step Python keeps, the last one live.
 * `set(steps)` refreshes the stops, `mark(g)` shows which is drawn, `onPick(g | null)` is called
 * when the user moves it (null: back to live).
 */

export function historyBar() {
  const el = document.createElement("div");
  el.className = "pti-history";
  el.hidden = true;
  const range = document.createElement("input");
  range.type = "range";
  range.min = "0";
  range.className = "pti-history-range";
  range.setAttribute("aria-label", "history: step back through the pictures");
  const label = document.createElement("span");
  label.className = "pti-history-what";
  const live = document.createElement("button");
  live.type = "button";
  live.className = "pti-history-live";
  live.textContent = "live";
  el.append(range, live, label);
  const h = { el, steps: [], shown: null, onPick: () => {} };
  const describe = () => {
    const k = h.shown == null ? h.steps.length - 1 : h.steps.findIndex((s) => s.generation === h.shown);
    range.value = String(Math.max(0, k));
    live.disabled = h.shown == null;
    if (k < 0) { label.textContent = h.shown == null ? "" : "a past step, no longer kept"; return; }
    const s = h.shown == null ? null : h.info;
    const who = s && s.views && s.views.length ? `; read by ${s.views.join(", ")}${s.more_views ? ` and ${s.more_views} more` : ""}` : "";
    label.textContent = `step ${k + 1} of ${h.steps.length}${h.shown == null ? " (live)" : `: ${s ? s.what : ""}${who}`}`;
  };
  h.set = (steps, shown) => {
    h.steps = steps;
    el.hidden = steps.length < 2 && shown == null;
    range.max = String(Math.max(0, steps.length - 1));
    describe();
  };
  h.mark = (g, info) => { h.shown = g; h.info = info || null; describe(); };
  range.addEventListener("input", () => {
    const k = +range.value, s = h.steps[k];
    h.onPick(!s || k === h.steps.length - 1 ? null : s.generation);
  });
  live.addEventListener("click", () => h.onPick(null));
  return h;
}

/**
 * The size control above the picture: small, medium, large (SIZES), as radio buttons a keyboard
 * reaches with Tab and works with Enter, Space or the arrow keys. The choice is the picture's
 * (`ui.size`, and the root's data-size), kept across redraws and updates.
 */
export function sizeControl(v) {
  const group = document.createElement("div");
  group.className = "pti-sizes";
  group.setAttribute("role", "radiogroup");
  group.setAttribute("aria-label", "picture size");
  const names = Object.keys(SIZES);
  const pick = (name) => {
    v.ui.size = name;
    v.root.dataset.size = v.layer.dataset.size = name;
    for (const b of group.children) b.setAttribute("aria-checked", String(b.dataset.size === name));
    redraw(v);
  };
  for (const name of names) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "pti-size";
    b.dataset.size = name;
    b.textContent = name;
    b.setAttribute("role", "radio");
    b.setAttribute("aria-checked", String(name === v.ui.size));
    b.addEventListener("click", () => pick(name));
    b.addEventListener("keydown", (ev) => {
      const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[ev.key];
      if (!step) return;
      ev.preventDefault();
      const next = names[(names.indexOf(name) + step + names.length) % names.length];
      pick(next);
      group.querySelector(`[data-size="${next}"]`).focus();
    });
    group.append(b);
  }
  return group;
}

/** What has the keyboard's focus in the picture, as a selector that finds it again after a redraw. */
function focusKey(holder) {
  const a = holder.ownerDocument && holder.ownerDocument.activeElement;
  if (!a || !holder.contains(a)) return null;
  const attrs = ["data-act", "data-region", "data-family", "data-view"].filter((k) => a.hasAttribute(k));
  return `.${a.classList[0]}` + attrs.map((k) => `[${k}="${CSS.escape(a.getAttribute(k))}"]`).join("");
}

function refocus(holder, key) {
  const n = key && holder.querySelector(key);
  if (n && typeof n.focus === "function") n.focus();
}
