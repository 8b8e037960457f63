// entry: the anywidget entry point (render) and the history slider.
import { applyDelta } from "./state.mjs";
import { dropFallbacks, mount } from "./dom.mjs";

// anywidget entry point: redraw on every synced change, poll the kernel for foreign writes.
function render({ model, el }) {
  const view = mount(el, { live: true, send: (msg) => model.send(msg) });
  dropFallbacks(el);
  view.ui.lastTick = (model.get("changes") || {}).tick;   // a new view does not replay an old flash
  const snap = snapshotTraits(model);
  const stops = [followTraits(model, view, snap), poll(model, view, el, snap), followWidth(el, view), keepRenderer(model)];
  return () => {
    for (const stop of stops) stop();
    view.destroy();
  };
}

const TRAITS = ["base", "checkpoint", "delta", "previews", "changes", "steps"];

/** The snapshot traits (base, checkpoint, delta) of `model` as objects, each a promise. The kernel sends
 * them as text: a notebook saved with its widget state keeps each on one line, where nbformat would
 * indent a dict key by key. `delta` (every update) is JSON; `base` and `checkpoint` (sent rarely, saved
 * once per inspector) are base64 of gzipped JSON (_export.pack_json), unpacked off the main thread by
 * DecompressionStream. Each is read once per value it takes. */
function snapshotTraits(model) {
  const seen = new Map();
  return (name) => {
    const value = model.get(name);
    if (!seen.has(name) || seen.get(name)[0] !== value) seen.set(name, [value, readTrait(value)]);
    return seen.get(name)[1];
  };
}

async function readTrait(value) {
  if (typeof value !== "string") return value;          // a stand-in model may hold the objects
  if (!value) return {};
  return value.startsWith("{") ? JSON.parse(value) : unpackJson(value);
}

/** The object _export.pack_json packed into `base64` (as unpack.js's ptiUnpackJson, which the loaders
 * embed; this module is loaded by them and cannot reach their scope). */
async function unpackJson(base64) {
  const packed = Uint8Array.from(atob(base64.trim()), (c) => c.charCodeAt(0));
  const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

/** Draw the model's picture now and whenever its traits change; returns what stops it. */
function followTraits(model, view, snap) {
  const current = async () => applyDelta(applyDelta(await snap("base"), await snap("checkpoint")), await snap("delta"));
  // One update message changes several traits: redraw once, after all of them landed. A packed trait
  // is read asynchronously: only the newest redraw draws, so an older one never lands after it.
  let pending = false, latest = 0, stopped = false;
  const draw = (first) => {
    const mine = ++latest;
    current().then((snapshot) => {
      if (mine !== latest || stopped) return;
      view.setSteps(model.get("steps"));
      view.update(snapshot, model.get("previews"), first ? null : model.get("changes"));
    }, (e) => console.error("pytensor inspector: cannot read the picture", e));
  };
  const sync = () => {
    if (pending) return;
    pending = true;
    Promise.resolve().then(() => {
      pending = false;
      draw(false);
    });
  };
  draw(true);
  for (const t of TRAITS) model.on(`change:${t}`, sync);
  return () => {
    stopped = true;
    for (const t of TRAITS) model.off(`change:${t}`, sync);
  };
}

/** Polling, and the answers to it and to the history slider's requests; returns what stops it.
 * One poll in flight at a time, so a busy kernel never piles them up. After 20 quiet polls the
 * interval relaxes to 1 s; a change or the mouse brings it back. */
function poll(model, view, el, snap) {
  let inflight = 0, timer = null, quiet = 0;
  const onMsg = (msg, buffers) => {
    if (msg && msg.op === "step") {
      if (msg.missing) { view.showStep(null); return; }
      snap("base").then((base) => view.showStep(msg.generation, applyDelta(base, msg.delta), buffers && buffers[0],
        msg.changes, msg.info));
      return;
    }
    if (!msg || msg.op !== "pong") return;
    inflight = 0;
    quiet = msg.changed ? 0 : quiet + 1;
  };
  model.on("msg:custom", onMsg);
  const wake = () => { quiet = 0; };
  el.addEventListener("mouseover", wake);
  const tick = () => {
    const base = model.get("poll_ms") || 0;
    const ms = base > 0 && quiet >= 20 ? Math.max(base, 1000) : base;
    if (ms > 0 && (typeof document === "undefined" || document.visibilityState !== "hidden")) {
      const now = Date.now();
      if (!inflight || now - inflight > 5000) {
        inflight = now;
        try { model.send({ op: "poll" }); } catch { /* kernel gone: keep the last picture */ }
      }
    }
    timer = setTimeout(tick, Math.max(100, ms || 1000));
  };
  timer = setTimeout(tick, Math.max(100, model.get("poll_ms") || 1000));
  return () => {
    clearTimeout(timer);
    model.off("msg:custom", onMsg);
    el.removeEventListener("mouseover", wake);
  };
}

/** The notebook's static copies load the renderer from the one copy that stores it (loader.js). If
 * that copy leaves the page while the kernel runs (its cell deleted, or run anew without an
 * inspector), ask the kernel to store it again in this widget's copy, so the notebook saved next still
 * draws every picture; returns what stops it. */
function keepRenderer(model) {
  const hash = model.get("renderer");
  if (!hash || typeof document === "undefined") return () => {};
  let asked = 0;
  const timer = setInterval(() => {
    if (document.querySelector(`script[data-pti-renderer="${hash}"]`)) return;
    if (asked && Date.now() - asked < 10000) return;
    asked = Date.now();
    try { model.send({ op: "carry" }); } catch { /* kernel gone: nothing can store it now */ }
  }, 2000);
  return () => clearInterval(timer);
}

/** Redraw when the output area changes width (the SVG is laid out for the width it gets). */
function followWidth(el, view) {
  let lastWidth = 0, frame = 0;
  const onResize = () => {
    const w = el.clientWidth;
    if (w && Math.abs(w - lastWidth) > 8) {
      lastWidth = w;
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => view.draw());
    }
  };
  const ro = typeof ResizeObserver !== "undefined" ? new ResizeObserver(onResize) : null;
  if (ro) ro.observe(el);
  return () => {
    if (ro) ro.disconnect();
    cancelAnimationFrame(frame);
  };
}

export default { render };
