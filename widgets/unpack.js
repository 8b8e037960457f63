// The renderer as a notebook stores it, loaded: the one way both loaders (loader.js for the static
// copies, loader_live.js for the live widget) turn the stored block into the renderer's module.
//
// The block is base64 of gzipped JSON {js, css} (inspector.js and inspector.css). It is unpacked
// with DecompressionStream, the CSS added to the page, and the JS loaded as a module from a Blob URL
// (what anywidget does with a widget's code). A static copy's snapshot is packed the same way
// (_export.pack_json) and read with ptiUnpackJson.

async function ptiUnpackJson(base64) {
  const packed = Uint8Array.from(atob(base64.trim()), (c) => c.charCodeAt(0));
  const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

async function ptiUnpack(base64) {
  const { js, css } = await ptiUnpackJson(base64);
  const style = document.createElement("style");
  style.textContent = css;
  document.head.appendChild(style);
  const url = URL.createObjectURL(new Blob([js], { type: "text/javascript" }));
  try {
    return await import(url);
  } finally {
    URL.revokeObjectURL(url);
  }
}
