// Each live inspector's module (its anywidget _esm). A notebook saved with its widget state stores
// this once per inspector, so it holds only the way to the code that loads the renderer
// (loader_live.js), which is stored once: in the renderer model each inspector names in its
// "_renderer" trait ("IPY_MODEL_" and its id, as ipywidgets writes a reference to a widget).
// The widget manager has that model from the kernel or, with no kernel, from the saved widget state;
// a manager that registers models one at a time may not have it yet: a short wait covers that.

async function ptiLoader(model) {
  const id = String(model.get("_renderer") || "").replace(/^IPY_MODEL_/, "");
  for (let tries = 0; ; tries++) {
    let shared;
    try {
      shared = await model.widget_manager.get_model(id);
    } catch (e) {
      if (tries >= 40) throw new Error(`its renderer model ${id} is not in this notebook (${e})`);
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    const url = URL.createObjectURL(new Blob([shared.get("loader")], { type: "text/javascript" }));
    try {
      return [await import(url), shared];
    } finally {
      URL.revokeObjectURL(url);
    }
  }
}

export default {
  async render(props) {
    try {
      const [loader, shared] = await ptiLoader(props.model);
      return await loader.render(props, shared);
    } catch (e) {
      props.el.textContent = `The inspector could not load its renderer: ${e.message || e}`;
      return () => {};
    }
  },
};
