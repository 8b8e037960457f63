// The static copies' loader: the few lines each saved picture carries instead of the whole renderer.
//
// A notebook keeps one static copy per inspector output. The renderer (inspector.js and
// inspector.css, about 100 KB) is stored once, gzipped, in a data block of one of them
// (<script type="application/gzip" data-pti-renderer="HASH">, inert: no browser runs it); every
// copy, that one included, finds the block by its hash anywhere on the page, so cells may be
// reordered. The first copy to look unpacks it (unpack.js, embedded before this file) and shares
// the promise with the others.
// The block may arrive after a copy's script runs (outputs render in any order, JupyterLab may
// attach far cells late), so a copy waits for it, and after a few seconds says why it waits.
// Prefixed names: each copy's <script type="module"> defines them in its own module scope.

function ptiRenderer(hash) {
  const all = (globalThis.ptiRenderers = globalThis.ptiRenderers || {});
  if (!all[hash]) {
    all[hash] = new Promise((resolve, reject) => {
      const look = () => {
        const block = document.querySelector(`script[data-pti-renderer="${hash}"]`);
        if (!block) { setTimeout(look, 250); return; }
        ptiUnpack(block.textContent).then(resolve, reject);
      };
      look();
    });
  }
  return all[hash];
}

// JupyterLab and Notebook 7 draw a widget output whose model is gone (a saved notebook opened
// without the kernel that made it) as "Loading widget..." (no kernel: the widget manager never
// finishes) or "Error displaying widget: model not found": their widget renderer wins over any
// other mimetype of that output and has no fallback. The widget state is not saved by default
// (JupyterLab's "save widget state" is off, and an anywidget's state would hold its whole renderer
// once per widget), so that output cannot restore. The static copy is the output after it and
// hides it: the widget renderer's output (a Lumino panel) with no element inside, where a live
// view is an element. (:has() may not nest, so the tests sit side by side.) nbconvert and VS Code
// need no help: without a model they draw the widget output's next mimetype, an empty text/plain.
function ptiHideDeadWidgets() {
  if (document.getElementById("pti-hide-dead-widgets")) return;
  const style = document.createElement("style");
  style.id = "pti-hide-dead-widgets";
  style.textContent = ".jp-OutputArea-child:has(> .jp-OutputArea-output.lm-Panel)" +
    ":not(:has(> .jp-OutputArea-output > *)):has(+ .jp-OutputArea-child .pti-fallback) { display: none; }";
  document.head.appendChild(style);
}

/** Draw one saved picture into the element `id` once the renderer `hash` is loaded and the picture's
 * `packed` snapshot (base64 of gzipped JSON) unpacked. */
function ptiDraw(hash, id, packed, previews) {
  ptiHideDeadWidgets();
  const el = document.getElementById(id);
  if (!el) return;                      // a newer picture replaced this output before its script ran
  const wait = setTimeout(() => {
    el.textContent = "This saved picture waits for its renderer, stored with another picture of this " +
      "notebook that is not on this page (a deleted cell?): run the cell to draw it again.";
  }, 4000);
  Promise.all([ptiRenderer(hash), ptiUnpackJson(packed)]).then(([m, snapshot]) => {
    clearTimeout(wait);
    el.textContent = "";
    m.mountFallback(el, snapshot, previews);
  }, (e) => {
    clearTimeout(wait);
    el.textContent = `This saved picture could not load its renderer: ${e}`;
  });
}
