/**
 * The Lumino widget JupyterLab creates for each output of our MIME type.
 */
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { checkPayload, ERROR_PREFIX, MIME_TYPE } from './schema';
import { GraphView } from './view';

/** Class of the output widget's node. */
export const WIDGET_CLASS = 'jp-AutogradGraph-output';

let instances = 0;

/**
 * Renders one `application/vnd.jupyter-autograd.graph+json` output. The payload is validated
 * first; anything it cannot draw becomes a readable inline message, never an exception.
 * Rendering never depends on `model.trusted`: the payload is always treated as untrusted.
 */
export class GraphWidget extends Widget implements IRenderMime.IRenderer {
  constructor(options: IRenderMime.IRendererOptions) {
    super();
    this._mimeType = options.mimeType;
    this._translator = options.translator ?? null;
    this.addClass(WIDGET_CLASS);
  }

  /** The interactive view, when the last payload was valid. */
  get graphView(): GraphView | null {
    return this._view;
  }

  /**
   * Validate and draw the payload; resolves even for malformed data. The work runs in three
   * tasks (check, collapse, layout + SVG), apart from JupyterLab's message handling, so a
   * 20 000-node payload never blocks the page for a second in one go (test plan G3).
   */
  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const token = ++this._renderToken;
    const mark = `jupyter-autograd:render-${++instances}`;
    this._startMark = mark;
    try {
      performance.mark(mark);
    } catch {
      this._startMark = null;
    }
    this._painted = false;
    this._rendered = false;
    this._clear();
    const data = model.data[this._mimeType];
    let busy = 0;
    const timed = <T>(fn: () => T): T => {
      const t0 = performance.now();
      try {
        return fn();
      } finally {
        busy += performance.now() - t0;
      }
    };
    try {
      await nextTask();
      if (token !== this._renderToken) {
        return;
      }
      const result = timed(() => checkPayload(data));
      if (!result.ok) {
        this._showError(result.message);
      } else {
        await nextTask();
        if (token !== this._renderToken) {
          return;
        }
        const view = timed(
          () =>
            new GraphView(document, result.payload, {
              deferDraw: true,
              translator: this._translator
            })
        );
        await nextTask();
        if (token !== this._renderToken) {
          view.dispose();
          return;
        }
        timed(() => view.draw());
        this._view = view;
        this.node.appendChild(view.node);
      }
    } catch (err) {
      this._clear();
      this._showError(
        `internal error while drawing (${String(err).slice(0, 300)})`
      );
    }
    this.node.dataset.renderMs = busy.toFixed(1);
    this._rendered = true;
    if (this.isAttached) {
      this._afterPaint();
    }
  }

  dispose(): void {
    this._clear();
    super.dispose();
  }

  protected onAfterAttach(): void {
    if (this._rendered) {
      this._afterPaint();
    }
  }

  protected onResize(): void {
    this._view?.refit();
  }

  private _afterPaint(): void {
    if (this._painted) {
      return;
    }
    this._painted = true;
    requestAnimationFrame(() => {
      this._view?.fit();
      // The frame after this callback is the first one showing the graph.
      requestAnimationFrame(() => {
        if (this._startMark) {
          try {
            const name = `${this._startMark}:first-paint`;
            const m = performance.measure(name, this._startMark);
            this.node.dataset.firstPaintMs = m.duration.toFixed(1);
            performance.clearMarks(this._startMark);
            performance.clearMeasures(name);
          } catch {
            // performance.measure without entries support: skip the figure.
          }
        }
        this.node.dataset.painted = 'true';
      });
    });
  }

  private _clear(): void {
    this._view?.dispose();
    this._view = null;
    while (this.node.firstChild) {
      this.node.removeChild(this.node.firstChild);
    }
    delete this.node.dataset.painted;
  }

  private _showError(message: string): void {
    const box = document.createElement('div');
    box.className = 'jp-AutogradGraph-error';
    box.setAttribute('role', 'alert');
    box.textContent = ERROR_PREFIX + message;
    this.node.appendChild(box);
  }

  private _mimeType: string;
  private _translator: IRenderMime.ITranslator | null;
  private _view: GraphView | null = null;
  private _startMark: string | null = null;
  private _painted = false;
  private _renderToken = 0;
  private _rendered = false;
}

/** Resolve in a later task, so the browser can handle input and paint in between. */
function nextTask(): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, 0));
}

/** Re-exported for convenience: the MIME type this widget renders. */
export { MIME_TYPE };
