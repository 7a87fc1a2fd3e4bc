/**
 * The backward replay: which nodes backward has run after a step, the gradient on each edge,
 * play at a chosen speed, jump to a node. After `--backward` the view opens at the last step,
 * so every visit number and gradient shape is there without stepping.
 */
import { backwardFrame, IGraphModel, IGraphView } from './graph';
import { drawingBounds, edgePoints, LabelPlacer } from './edgelabels';
import { ILayout } from './layout';
import { IRect } from './place';
import { capText, edgeMidpoint, formatShape, IDrawing, SVG_NS } from './render';

/** Replay speeds offered, as multiples of one step per {@link BASE_INTERVAL_MS}. */
export const SPEEDS: ReadonlyArray<number> = [0.25, 0.5, 1, 2, 4, 8];

/** Delay between steps at speed 1. */
export const BASE_INTERVAL_MS = 500;

/** Edges beyond which only the flowing edges get a label (the rest would be clutter), and
 * the most labels drawn at one step (each is placed by a search). */
export const MAX_SHAPE_LABELS = 120;

const EDGE_LABEL_CHARS = 32;
const SHORT_CHARS = 16;

/** 1-based backward visit number of each view node backward ran (its first visit). */
export function visitNumbers(
  model: IGraphModel,
  view: IGraphView
): Map<number, number> {
  const visits = new Map<number, number>();
  model.backwardOrder.forEach((i, k) => {
    const v = view.viewOf[i];
    if (v >= 0 && !visits.has(v)) {
      visits.set(v, k + 1);
    }
  });
  return visits;
}

/** What the replay draws on: the current view, layout, drawing and direction. */
export interface IReplayHost {
  model: IGraphModel;
  view: IGraphView;
  layout: ILayout | null;
  drawing: IDrawing | null;
  backward: boolean;
  /** Called after every change of step (labels, details, buttons). */
  changed(active: number): void;
}

/** Backward replay state and its drawing. */
export class Replay {
  constructor(host: IReplayHost, step: number) {
    this._host = host;
    this.step = Math.max(0, Math.min(this.total, step));
  }

  /** Steps run so far (0 = before backward). */
  step: number;

  /** Replay speed, a multiple of one step per {@link BASE_INTERVAL_MS}. */
  speed = 1;

  /** Number of steps. */
  get total(): number {
    return this._host.model.backwardOrder.length;
  }

  /** Whether it is playing. */
  get playing(): boolean {
    return this._timer !== null;
  }

  /** Show the state after `step` steps. */
  set(step: number): void {
    this.step = Math.max(0, Math.min(this.total, step));
    this.apply();
  }

  /** The step right after view node `v` first ran, or -1 if backward never ran it. */
  stepOf(v: number): number {
    const order = this._host.model.backwardOrder;
    const viewOf = this._host.view.viewOf;
    for (let k = 0; k < order.length; k++) {
      if (viewOf[order[k]] === v) {
        return k + 1;
      }
    }
    return -1;
  }

  /** Jump to the step where view node `v` runs; false if it never does. */
  jumpTo(v: number): boolean {
    const k = this.stepOf(v);
    if (k < 0) {
      return false;
    }
    this.stop();
    this.set(k);
    return true;
  }

  /** Play from the current step (from the start when at the end), or pause. */
  toggle(): void {
    if (this._timer !== null) {
      this.stop();
      return;
    }
    if (this.step >= this.total) {
      this.set(0);
    }
    this._timer = window.setInterval(() => {
      this.set(this.step + 1);
      if (this.step >= this.total) {
        this.stop();
      }
    }, BASE_INTERVAL_MS / this.speed);
    this._host.changed(-1);
  }

  /** Change speed; a running replay goes on at the new speed. */
  setSpeed(speed: number): void {
    this.speed = speed;
    if (this._timer !== null) {
      this.stop();
      this.toggle();
    }
  }

  /** Stop playing. */
  stop(): void {
    if (this._timer !== null) {
      window.clearInterval(this._timer);
      this._timer = null;
      this._host.changed(-1);
    }
  }

  /** Draw the current step: done/active nodes, flowed/flowing edges, their labels. */
  apply(): void {
    const { model, view, layout, drawing } = this._host;
    if (!drawing || !layout || this.total === 0) {
      return;
    }
    for (const el of this._marked) {
      el.classList.remove(
        'jp-mod-active',
        'jp-mod-done',
        'jp-mod-flowing',
        'jp-mod-flowed'
      );
    }
    this._marked = [];
    while (drawing.edgeLabels.firstChild) {
      drawing.edgeLabels.removeChild(drawing.edgeLabels.firstChild);
    }
    const frame = backwardFrame(model, view, this.step);
    if (this.step === this.total) {
      // the result: everything has run, nothing is in flight
      frame.flowing.forEach(e => frame.flowed.add(e));
      frame.flowing.clear();
      frame.active = -1;
    }
    const mark = (el: Element, cls: string) => {
      el.classList.add(cls);
      this._marked.push(el);
    };
    frame.done.forEach(v =>
      mark(
        drawing.nodeEls[v],
        v === frame.active ? 'jp-mod-active' : 'jp-mod-done'
      )
    );
    frame.flowed.forEach(e => mark(drawing.edgeEls[e], 'jp-mod-flowed'));
    frame.flowing.forEach(e => mark(drawing.edgeEls[e], 'jp-mod-flowing'));
    const few = view.edges.length <= MAX_SHAPE_LABELS;
    // each label placed clear of the nodes, the badges shown, count labels, module titles and
    // the labels placed before it
    const shown: IRect[] = [];
    frame.done.forEach(v => {
      const badge = drawing.badges[v];
      if (badge) {
        shown.push(badge);
      }
    });
    const placer = new LabelPlacer(
      drawing.obstacles.concat(shown),
      drawingBounds(layout)
    );
    // a label with no free place near its edge is left out (the details panel lists every
    // gradient), as are those past the cap: labels never cover nodes or each other
    let dropped = 0;
    const label = (e: number, flowing: boolean) => {
      if (
        placer.placed.length >= MAX_SHAPE_LABELS ||
        !this._label(placer, e, flowing)
      ) {
        dropped++;
      }
    };
    frame.flowing.forEach(e => label(e, true));
    if (few) {
      frame.flowed.forEach(e => label(e, false));
    }
    drawing.edgeLabels.setAttribute('data-dropped', String(dropped));
    this._host.changed(frame.active);
  }

  /** Draw the label of edge `k`; false where it has one but no free place. */
  private _label(placer: LabelPlacer, k: number, flowing: boolean): boolean {
    const { model, view, layout, drawing, backward } = this._host;
    const ve = view.edges[k];
    const edges = ve.edges.map(i => model.payload.edges[i]);
    const shape = edges.find(e => e.grad_shape)?.grad_shape;
    const grad = edges.find(e => e.grad)?.grad;
    // the flowing edge says what flows; a passed one, the shape of what flowed
    // (shortened, or its shape alone, where the whole value finds no free place near its edge)
    const texts: string[] = [];
    if (flowing && grad) {
      const line = grad.split('\n')[0];
      texts.push(capText(line, EDGE_LABEL_CHARS), capText(line, SHORT_CHARS));
    }
    if (shape) {
      texts.push(formatShape(shape));
    }
    if (texts.length === 0 || !layout || !drawing) {
      return true;
    }
    const mid = edgeMidpoint(layout, k, ve.source, ve.target, backward);
    // a bundled edge carries its "×k" near the midpoint: the gradient label goes below it
    const p = placer.place(
      texts.filter((t, i) => t !== texts[i - 1]),
      edgePoints(layout, k, ve.source, ve.target, backward),
      { x: mid.x, y: ve.count > 1 ? mid.y + 13 : mid.y - 5 },
      true
    );
    if (!p) {
      return false;
    }
    const el = document.createElementNS(SVG_NS, 'text');
    el.setAttribute(
      'class',
      'jp-AutogradGraph-edgeLabel' + (flowing ? ' jp-mod-flowing' : '')
    );
    el.setAttribute('x', p.x.toFixed(1));
    el.setAttribute('y', p.y.toFixed(1));
    el.textContent = p.text;
    drawing.edgeLabels.appendChild(el);
    return true;
  }

  private _host: IReplayHost;
  private _marked: Element[] = [];
  private _timer: number | null = null;
}
