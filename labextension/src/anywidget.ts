/**
 * The same graph view as an anywidget ES module (issue #17): wherever ipywidgets run
 * (VS Code, Colab, Notebook 7, JupyterLab without this extension), `graph(...).widget()` draws
 * it from the widget's `payload` trait. One source tree: this file only hosts `GraphView`.
 */
import { checkPayload, ERROR_PREFIX } from './schema';
import { GraphView } from './view';

/** The MIME renderer's output class (widget.ts), so both hosts look and test the same. */
const WIDGET_CLASS = 'jp-AutogradGraph-output';

/** What the view needs of an anywidget model. */
interface IAnyModel {
  get(name: string): unknown;
  on(event: string, callback: () => void): void;
  off(event: string, callback: () => void): void;
}

/** Draw `model`'s payload into `el`, again on every change; returns the cleanup. */
function render({
  model,
  el
}: {
  model: IAnyModel;
  el: HTMLElement;
}): () => void {
  const host = document.createElement('div');
  host.className = `${WIDGET_CLASS} jp-AutogradGraph-anywidget`;
  el.appendChild(host);
  let view: GraphView | null = null;
  const draw = () => {
    view?.dispose();
    view = null;
    while (host.firstChild) {
      host.removeChild(host.firstChild);
    }
    delete host.dataset.painted;
    const result = checkPayload(model.get('payload'));
    if (!result.ok) {
      const box = document.createElement('div');
      box.className = 'jp-AutogradGraph-error';
      box.setAttribute('role', 'alert');
      box.textContent = ERROR_PREFIX + result.message;
      host.appendChild(box);
      return;
    }
    const v = new GraphView(document, result.payload, { deferDraw: true });
    host.appendChild(v.node);
    v.draw();
    view = v;
    requestAnimationFrame(() => {
      v.fit();
      requestAnimationFrame(() => (host.dataset.painted = 'true'));
    });
  };
  draw();
  model.on('change:payload', draw);
  return () => {
    model.off('change:payload', draw);
    view?.dispose();
  };
}

export default { render };
