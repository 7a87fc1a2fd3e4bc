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
    this.addClass(WIDGET_CLASS);
  }

  /** The interactive view, when the last payload was valid. */
  get graphView(): GraphView | null {
    return this._view;
  }

  /** Validate and draw the payload; resolves even for malformed data. */
  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const mark = `jupyter-autograd:render-${++instances}`;
    this._startMark = mark;
    try {
      performance.mark(mark);
    } catch {
      this._startMark = null;
    }
    const t0 = performance.now();
    this._painted = false;
    this._clear();
    try {
      const result = checkPayload(model.data[this._mimeType]);
      if (!result.ok) {
        this._showError(result.message);
      } else {
        this._view = new GraphView(document, result.payload);
        this.node.appendChild(this._view.node);
      }
    } catch (err) {
      this._clear();
      this._showError(`internal error while drawing (${String(err).slice(0, 300)})`);
    }
    this.node.dataset.renderMs = (performance.now() - t0).toFixed(1);
    if (this.isAttached) {
      this._afterPaint();
    }
    return Promise.resolve();
  }

  dispose(): void {
    this._clear();
    super.dispose();
  }

  protected onAfterAttach(): void {
    this._afterPaint();
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
            const m = performance.measure(`${this._startMark}:first-paint`, this._startMark);
            this.node.dataset.firstPaintMs = m.duration.toFixed(1);
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
  private _view: GraphView | null = null;
  private _startMark: string | null = null;
  private _painted = false;
}

export { MIME_TYPE };
