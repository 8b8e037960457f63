// The live views' loader, stored once per kernel in the renderer model (its "loader" trait; each
// widget's _esm, live_esm.js, loads it from there) and so once in a notebook saved with its widget
// state.
//
// The renderer itself is stored once per notebook already, in the block of one static copy
// (<script type="application/gzip" data-pti-renderer="HASH">, see loader.js), which JupyterLab and
// Notebook 7 keep on the page. A live view takes it from there; where no static copy is on the page
// (a widget shown inside another widget, or the carrier's cell deleted), it asks the kernel, which
// puts the renderer in the renderer model's "packed" trait, where every other view finds it (and
// the widget state saved next keeps it, once). The first view to find it unpacks it (unpack.js,
// embedded before this file) and shares the promise with the others, keyed by the renderer's hash.

const PTI_ASK_AFTER_MS = 1000;         // the static copy is the output after the widget's: it may come late
const PTI_GIVE_UP_MS = 20000;

async function ptiFind(hash, model, shared) {
  const selector = `script[data-pti-renderer="${hash}"]`;
  let asked = false;
  for (let waited = 0; ; waited += 250) {
    const block = document.querySelector(selector);
    if (block) return ptiUnpack(block.textContent);
    if (shared.get("packed")) return ptiUnpack(shared.get("packed"));
    if (waited >= PTI_ASK_AFTER_MS && !asked) {
      asked = true;
      try { model.send({ op: "renderer" }); } catch { /* no kernel: only the page can have it */ }
    }
    if (waited >= PTI_GIVE_UP_MS) {
      throw new Error("it is stored with a picture that is not on this page (an untrusted notebook shows " +
        "none: trust it), and no kernel sent it: run the cell to draw it again");
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function ptiLiveRenderer(model, shared) {
  const all = (globalThis.ptiLiveRenderers = globalThis.ptiLiveRenderers || {});
  const hash = model.get("renderer");
  if (!all[hash]) {
    all[hash] = ptiFind(hash, model, shared);
    all[hash].catch(() => delete all[hash]);     // the next view looks again
  }
  return all[hash];
}

export async function render(props, shared) {
  const renderer = await ptiLiveRenderer(props.model, shared);
  return renderer.default.render(props);
}
