/**
 * The interactive graph view as plain DOM (no Lumino): toolbar, legend, zoomable SVG canvas,
 * tooltip, details panel, collapse/expand, direction toggle, backward stepper and export.
 */
import {
  backwardFrame,
  buildModel,
  buildView,
  collapseChains,
  collapseInputs,
  CollapseState,
  expandAll,
  expandGroup,
  fitToBudget,
  foldStructure,
  IGraphModel,
  IGraphView,
  IPaths,
  MAX_VISIBLE_NODES,
  pathsFrom,
  viewSeeds
} from './graph';
import { ILayout, layoutGraph, LayoutEngine } from './layout';
import {
  buildDetails,
  buildTooltip,
  capText,
  drawGraph,
  drawLegend,
  edgeMidpoint,
  edgePath,
  IDrawing,
  nodeTitle,
  nodeTransform,
  SVG_NS,
  viewSizes
} from './render';
import { IGraphPayload } from './schema';

/** Smallest zoom factor. */
export const MIN_ZOOM = 0.02;
/** Largest zoom factor. */
export const MAX_ZOOM = 4;
/** Zoom below which labels are hidden. */
export const LOW_DETAIL_ZOOM = 0.35;
/** Zoom used to show the root end of a graph too big to read when fitted whole. */
export const FOCUS_ZOOM = 0.8;

/** Delay between steps when the backward replay plays. */
export const PLAY_INTERVAL_MS = 800;

/** Largest PNG export, in pixels. */
export const MAX_PNG_PIXELS = 32e6;

const EDGE_LABEL_CHARS = 32;
const MIN_CANVAS_HEIGHT = 220;
const MAX_CANVAS_HEIGHT = 560;
const FIT_PAD = 8;
const FOCUS_HEIGHT = 400;

/** Options of {@link GraphView}. */
export interface IGraphViewOptions {
  /** Most nodes drawn at once. */
  budget?: number;
  /** Layout engine ('auto' picks dagre when cheap enough). */
  engine?: LayoutEngine;
  /** Leave layout and drawing to a later {@link GraphView.draw} call (to split long work). */
  deferDraw?: boolean;
}

/** Timings of the last (re)draw, in ms. */
export interface ITimings {
  layout: number;
  draw: number;
}

const STYLE_PROPS = [
  'fill',
  'fill-opacity',
  'stroke',
  'stroke-width',
  'stroke-dasharray',
  'stroke-opacity',
  'opacity',
  'font-family',
  'font-size',
  'font-weight',
  'text-anchor',
  'paint-order',
  'display',
  'visibility'
];

/** Characters XML 1.0 forbids (C0 controls, lone surrogates, U+FFFE/F), which break SVG export. */
const XML_INVALID =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Safe file-name stem from an untrusted title. */
export function fileStem(title: string | undefined): string {
  const stem = (title || 'graph').replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 40);
  return `autograd-${stem || 'graph'}`;
}

/** Interactive computation-graph view rooted at {@link GraphView.node}. */
export class GraphView {
  /** Root element to insert into the page. */
  readonly node: HTMLElement;
  /** Timings of the last draw. */
  readonly timings: ITimings = { layout: 0, draw: 0 };

  constructor(
    doc: Document,
    payload: IGraphPayload,
    options: IGraphViewOptions = {}
  ) {
    this._doc = doc;
    this._budget = options.budget ?? MAX_VISIBLE_NODES;
    this._engine = options.engine ?? 'auto';
    this._model = buildModel(payload);
    this._backward = payload.direction === 'backward';
    this.node = doc.createElement('div');
    this.node.className = 'jp-AutogradGraph';
    this._buildChrome();
    foldStructure(this._model, this._state);
    this._view = fitToBudget(this._model, this._state, this._budget);
    if (!options.deferDraw) {
      this.draw();
    }
  }

  /** Lay out and draw, once (the constructor does it unless `deferDraw` was set). */
  draw(): void {
    if (!this._drawing) {
      this._redraw();
    }
  }

  /** The indexed payload. */
  get model(): IGraphModel {
    return this._model;
  }

  /** The visible graph. */
  get view(): IGraphView {
    return this._view;
  }

  /** The current layout. */
  get layout(): ILayout {
    return this._layout as ILayout;
  }

  /** Whether arrows are drawn in backward (gradient) direction. */
  get backward(): boolean {
    return this._backward;
  }

  /** Selected view node, or -1. */
  get selected(): number {
    return this._selected;
  }

  /** Backward replay step (0 = before backward). */
  get step(): number {
    return this._step;
  }

  /** Stop timers and drop listeners' targets. */
  dispose(): void {
    this._stopPlay();
    this._observer?.disconnect();
    this.node.remove();
  }

  /**
   * Fit the drawing into the canvas (called once attached, and on resize until zoomed).
   *
   * 'auto' shows the whole graph when that stays readable, else the root at a readable zoom
   * (press Fit, i.e. 'all', for the overview); 'all' always shows everything.
   */
  fit(mode: 'auto' | 'all' = 'auto'): void {
    const layout = this._layout as ILayout;
    const cw = this._canvas.clientWidth;
    const ch = this._canvas.clientHeight;
    if (cw === 0 || ch === 0 || layout.width === 0) {
      return;
    }
    let h = ch;
    if (this._autoHeight) {
      // Size the canvas to the drawing at the width-limited scale, within bounds.
      const kw = Math.min(cw / layout.width, 1.25);
      const focus = mode === 'auto' && kw < LOW_DETAIL_ZOOM;
      const wanted = focus ? FOCUS_HEIGHT : layout.height * kw + 2 * FIT_PAD;
      h = Math.round(
        Math.max(MIN_CANVAS_HEIGHT, Math.min(MAX_CANVAS_HEIGHT, wanted))
      );
      if (h !== ch) {
        this._canvas.style.height = `${h}px`;
      }
      this._setHeight = h;
    }
    const k = Math.max(
      MIN_ZOOM,
      Math.min(
        (cw - 2 * FIT_PAD) / layout.width,
        (h - 2 * FIT_PAD) / layout.height,
        1.25
      )
    );
    this._autoFit = true;
    this._fitMode = mode;
    const seed = viewSeeds(this._model, this._view)[0];
    if (mode === 'auto' && k < LOW_DETAIL_ZOOM && seed !== undefined) {
      // Too small to read: show the root end of the graph instead.
      const kf = FOCUS_ZOOM;
      const half = layout.widths[seed] / 2;
      const rx = this._backward
        ? layout.width - layout.x[seed]
        : layout.x[seed];
      const tx = this._backward
        ? 3 * FIT_PAD - (rx - half) * kf
        : cw - 3 * FIT_PAD - (rx + half) * kf;
      this._setTransform(kf, tx, h / 2 - layout.y[seed] * kf);
      this._say(
        'Large graph: showing the root end at a readable zoom. Press Fit (or 0) for the whole graph; drag to pan.'
      );
    } else {
      this._setTransform(
        k,
        (cw - layout.width * k) / 2,
        (h - layout.height * k) / 2
      );
    }
    this._syncDetailsHeight();
  }

  /** Re-fit after a size change unless the user zoomed or panned. */
  refit(): void {
    if (this._autoFit) {
      this.fit(this._fitMode);
    }
  }

  /** Zoom by `factor` around a canvas point (default: the centre). */
  zoom(factor: number, cx?: number, cy?: number): void {
    const t = this._t;
    const k = Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, t.k * factor));
    const px = cx ?? this._canvas.clientWidth / 2;
    const py = cy ?? this._canvas.clientHeight / 2;
    this._autoFit = false;
    this._setTransform(
      k,
      px - ((px - t.x) * k) / t.k,
      py - ((py - t.y) * k) / t.k
    );
  }

  /** Select a view node (-1 clears): details panel, paths to the root and to the leaves. */
  select(v: number): void {
    this._clearPaths();
    this._selected = v;
    const has = v >= 0 && v < this._view.nodes.length;
    this._canvas.classList.toggle('jp-mod-hasSelection', has);
    if (has) {
      const d = this._drawing as IDrawing;
      this._paths = pathsFrom(this._view, v);
      d.nodeEls[v].classList.add('jp-mod-selected');
      this._paths.downstreamNodes.forEach(w =>
        d.nodeEls[w].classList.add('jp-mod-downstream')
      );
      this._paths.upstreamNodes.forEach(w =>
        d.nodeEls[w].classList.add('jp-mod-upstream')
      );
      this._paths.downstreamEdges.forEach(e =>
        d.edgeEls[e].classList.add('jp-mod-downstream')
      );
      this._paths.upstreamEdges.forEach(e =>
        d.edgeEls[e].classList.add('jp-mod-upstream')
      );
      this._showDetails(v);
    } else {
      this._showDetails(-1);
    }
    this._updateButtons();
  }

  /** Collapse what only feeds view node `v` into one node; returns false if nothing to fold. */
  collapseInputsOf(v: number): boolean {
    const group = collapseInputs(this._model, this._state, this._view, v);
    if (!group) {
      this._say(
        `Nothing to collapse: every input of ${nodeTitle(this._model, this._view.nodes[v])} also feeds another node.`
      );
      return false;
    }
    this._view = buildView(this._model, this._state);
    this._redraw();
    this.select(this._view.byKey.get(group.key) ?? -1);
    this._say(
      `Collapsed ${group.members.length} nodes (${capText(group.caption, 80)}).`
    );
    return true;
  }

  /** Expand the collapsed group drawn as view node `v`. */
  expand(v: number): boolean {
    const node = this._view.nodes[v];
    if (!node || !node.group) {
      return false;
    }
    const count = node.group.members.length;
    this._view = expandGroup(this._model, this._state, node.key, this._budget);
    this._redraw();
    this.select(-1);
    this._say(`Expanded ${count} nodes.`);
    return true;
  }

  /** Fold every chain of single-input, single-output nodes. */
  collapseAllChains(): number {
    const made = collapseChains(this._model, this._state, this._view);
    if (made > 0) {
      this._view = buildView(this._model, this._state);
      this._redraw();
      this.select(-1);
    }
    this._say(
      made > 0 ? `Collapsed ${made} chains.` : 'No chains to collapse.'
    );
    return made;
  }

  /** Expand every collapsed node, as far as the node budget allows. */
  expandEverything(): void {
    expandAll(this._state);
    this._view = fitToBudget(this._model, this._state, this._budget);
    this._redraw();
    this.select(-1);
  }

  /** Draw arrows input -> consumer (forward) or the way gradients flow (backward). */
  setBackward(backward: boolean): void {
    this._backward = backward;
    const layout = this._layout as ILayout;
    const d = this._drawing as IDrawing;
    this._view.nodes.forEach((_, v) =>
      d.nodeEls[v].setAttribute('transform', nodeTransform(layout, v, backward))
    );
    this._view.edges.forEach((e, k) =>
      d.edgeEls[k].setAttribute(
        'd',
        edgePath(layout, e.source, e.target, layout.points[k], backward)
      )
    );
    for (const label of d.countLabels) {
      const k = Number(label.getAttribute('data-edge'));
      const e = this._view.edges[k];
      const mid = edgeMidpoint(layout, k, e.source, e.target, backward);
      label.setAttribute('x', mid.x.toFixed(1));
      label.setAttribute('y', (mid.y - 3).toFixed(1));
    }
    this._dirButton.setAttribute('aria-pressed', String(backward));
    this._dirButton.textContent = backward
      ? 'Direction: backward'
      : 'Direction: forward';
    this._applyStep();
  }

  /** Show the backward replay after `step` of the backward_order nodes have run. */
  setStep(step: number): void {
    const total = this._model.backwardOrder.length;
    this._step = Math.max(0, Math.min(total, step));
    this._applyStep();
  }

  /** Serialise the drawing as a standalone SVG document with resolved theme colours. */
  exportSvg(): string {
    const d = this._drawing as IDrawing;
    const layout = this._layout as ILayout;
    const low = this._canvas.classList.contains('jp-mod-lowDetail');
    this._canvas.classList.remove('jp-mod-lowDetail');
    const clone = d.svg.cloneNode(true) as SVGSVGElement;
    const src = d.svg.querySelectorAll('*');
    const dst = clone.querySelectorAll('*');
    const view = this._doc.defaultView as Window;
    for (let i = 0; i < src.length; i++) {
      const cs = view.getComputedStyle(src[i]);
      const parts: string[] = [];
      for (const p of STYLE_PROPS) {
        const value = cs.getPropertyValue(p);
        if (value) {
          parts.push(`${p}:${value}`);
        }
      }
      dst[i].setAttribute('style', parts.join(';'));
    }
    if (low) {
      this._canvas.classList.add('jp-mod-lowDetail');
    }
    const viewport = clone.querySelector(
      '.jp-AutogradGraph-viewport'
    ) as SVGGElement;
    viewport.removeAttribute('transform');
    clone.setAttribute('width', String(Math.ceil(layout.width)));
    clone.setAttribute('height', String(Math.ceil(layout.height)));
    clone.setAttribute(
      'viewBox',
      `0 0 ${Math.ceil(layout.width)} ${Math.ceil(layout.height)}`
    );
    const bg = this._doc.createElementNS(SVG_NS, 'rect');
    bg.setAttribute('width', '100%');
    bg.setAttribute('height', '100%');
    bg.setAttribute(
      'fill',
      view.getComputedStyle(this._canvas).backgroundColor || '#ffffff'
    );
    clone.insertBefore(bg, clone.firstChild);
    const text = new XMLSerializer().serializeToString(clone);
    return (
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
      text.replace(XML_INVALID, '\uFFFD')
    );
  }

  /** Render the SVG export to a PNG blob (2x, capped at {@link MAX_PNG_PIXELS}). */
  async exportPng(): Promise<Blob> {
    const layout = this._layout as ILayout;
    const svgText = this.exportSvg();
    const url = URL.createObjectURL(
      new Blob([svgText], { type: 'image/svg+xml' })
    );
    try {
      const img = new Image();
      img.src = url;
      await img.decode();
      const area = Math.max(1, layout.width * layout.height);
      const scale = Math.min(
        2,
        Math.sqrt(MAX_PNG_PIXELS / area),
        16384 / layout.width,
        16384 / layout.height
      );
      const canvas = this._doc.createElement('canvas');
      canvas.width = Math.max(1, Math.floor(layout.width * scale));
      canvas.height = Math.max(1, Math.floor(layout.height * scale));
      const ctx = canvas.getContext('2d') as CanvasRenderingContext2D;
      ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
      return await new Promise<Blob>((resolve, reject) =>
        canvas.toBlob(
          b => (b ? resolve(b) : reject(new Error('PNG encoding failed'))),
          'image/png'
        )
      );
    } finally {
      URL.revokeObjectURL(url);
    }
  }

  private _buildChrome(): void {
    const doc = this._doc;
    const toolbar = doc.createElement('div');
    toolbar.className = 'jp-AutogradGraph-toolbar';
    toolbar.setAttribute('role', 'toolbar');
    toolbar.setAttribute('aria-label', 'Autograd graph tools');
    const group = () => {
      const g = doc.createElement('span');
      g.className = 'jp-AutogradGraph-toolGroup';
      toolbar.appendChild(g);
      return g;
    };
    const button = (
      parent: HTMLElement,
      action: string,
      text: string,
      title: string,
      fn: () => void
    ) => {
      const b = doc.createElement('button');
      b.type = 'button';
      b.className = 'jp-AutogradGraph-button';
      b.dataset.action = action;
      b.textContent = text;
      b.title = title;
      b.setAttribute('aria-label', title);
      b.addEventListener('click', () => fn());
      parent.appendChild(b);
      this._buttons.set(action, b);
      return b;
    };
    const g1 = group();
    button(g1, 'fit', 'Fit', 'Fit the whole graph to the view (0)', () =>
      this.fit('all')
    );
    button(g1, 'zoom-in', '+', 'Zoom in (+)', () => this.zoom(1.25));
    button(g1, 'zoom-out', '−', 'Zoom out (-)', () => this.zoom(0.8));
    this._dirButton = button(
      g1,
      'direction',
      '',
      'Toggle forward / backward direction',
      () => this.setBackward(!this._backward)
    );
    this._dirButton.setAttribute('aria-pressed', String(this._backward));
    this._dirButton.textContent = this._backward
      ? 'Direction: backward'
      : 'Direction: forward';
    const g2 = group();
    button(
      g2,
      'collapse',
      'Collapse inputs',
      'Collapse the inputs of the selected node (C)',
      () => {
        if (this._selected >= 0) {
          this.collapseInputsOf(this._selected);
        }
      }
    );
    button(
      g2,
      'expand',
      'Expand',
      'Expand the selected collapsed node (E)',
      () => {
        if (this._selected >= 0) {
          this.expand(this._selected);
        }
      }
    );
    button(
      g2,
      'collapse-chains',
      'Collapse chains',
      'Fold runs of single-input nodes',
      () => this.collapseAllChains()
    );
    button(g2, 'expand-all', 'Expand all', 'Expand every collapsed node', () =>
      this.expandEverything()
    );
    if (this._model.backwardOrder.length > 0) {
      const g3 = group();
      g3.classList.add('jp-AutogradGraph-stepper');
      button(g3, 'step-first', '«', 'Before backward', () => this.setStep(0));
      button(g3, 'step-prev', '◀', 'Previous backward step ([)', () =>
        this.setStep(this._step - 1)
      );
      button(g3, 'step-next', '▶', 'Next backward step (])', () =>
        this.setStep(this._step + 1)
      );
      button(g3, 'step-last', '»', 'After backward', () =>
        this.setStep(this._model.backwardOrder.length)
      );
      button(g3, 'play', 'Play', 'Replay the backward pass', () =>
        this._togglePlay()
      );
      this._stepLabel = doc.createElement('span');
      this._stepLabel.className = 'jp-AutogradGraph-stepLabel';
      this._stepLabel.setAttribute('aria-live', 'polite');
      g3.appendChild(this._stepLabel);
    }
    const g4 = group();
    button(g4, 'export-svg', 'SVG', 'Export the graph as SVG', () =>
      this._download('svg')
    );
    button(g4, 'export-png', 'PNG', 'Export the graph as PNG', () =>
      this._download('png')
    );
    this.node.appendChild(toolbar);
    this.node.appendChild(drawLegend(doc));

    this._notice = doc.createElement('div');
    this._notice.className = 'jp-AutogradGraph-notice';
    this._notice.setAttribute('role', 'status');
    this.node.appendChild(this._notice);

    const body = doc.createElement('div');
    body.className = 'jp-AutogradGraph-body';
    this._canvas = doc.createElement('div');
    this._canvas.className = 'jp-AutogradGraph-canvas';
    this._canvas.tabIndex = 0;
    this._canvas.setAttribute('role', 'application');
    this._canvas.setAttribute(
      'aria-label',
      'Computation graph. Arrow keys move between nodes, Enter selects, E expands, C collapses, plus and minus zoom, 0 fits.'
    );
    this._tooltip = doc.createElement('div');
    this._tooltip.className = 'jp-AutogradGraph-tooltip';
    this._tooltip.setAttribute('role', 'tooltip');
    this._tooltip.hidden = true;
    this._canvas.appendChild(this._tooltip);
    this._details = doc.createElement('aside');
    this._details.className = 'jp-AutogradGraph-details';
    this._details.setAttribute('aria-label', 'Node details');
    body.appendChild(this._canvas);
    body.appendChild(this._details);
    this.node.appendChild(body);
    this._status = doc.createElement('div');
    this._status.className = 'jp-AutogradGraph-status';
    this._status.setAttribute('aria-live', 'polite');
    this.node.appendChild(this._status);
    this._showDetails(-1);
    this._listen();
  }

  private _redraw(): void {
    const { lines, widths, heights } = viewSizes(this._model, this._view);
    const sources = this._view.edges.map(e => e.source);
    const targets = this._view.edges.map(e => e.target);
    this._layout = layoutGraph(
      { widths, heights, sources, targets },
      this._engine
    );
    this.timings.layout = this._layout.ms;
    const t0 = performance.now();
    const drawing = drawGraph(
      this._doc,
      this._model,
      this._view,
      this._layout,
      lines,
      this._backward
    );
    if (this._drawing) {
      this._drawing.svg.replaceWith(drawing.svg);
    } else {
      this._canvas.insertBefore(drawing.svg, this._tooltip);
    }
    this._drawing = drawing;
    this._selected = -1;
    this._paths = null;
    this._focused = -1;
    this._stepEls = [];
    this._canvas.classList.remove('jp-mod-hasSelection');
    this.timings.draw = performance.now() - t0;
    this.node.dataset.layoutEngine = this._layout.engine;
    this.node.dataset.layoutMs = this.timings.layout.toFixed(1);
    this.node.dataset.drawMs = this.timings.draw.toFixed(1);
    this.node.dataset.visibleNodes = String(this._view.nodes.length);
    this.node.dataset.visibleEdges = String(this._view.edges.length);
    if (this._autoHeight) {
      // Until attached (and fitted) assume scale 1; fit() refines it.
      const height = Math.max(
        MIN_CANVAS_HEIGHT,
        Math.min(MAX_CANVAS_HEIGHT, this._layout.height + 2 * FIT_PAD)
      );
      this._canvas.style.height = `${Math.round(height)}px`;
      this._setHeight = Math.round(height);
    }
    this._updateNotice();
    this._applyStep();
    this._updateButtons();
    if (this._autoFit) {
      this.fit(this._fitMode);
    } else {
      this._setTransform(this._t.k, this._t.x, this._t.y);
    }
  }

  private _syncDetailsHeight(): void {
    const h = this._canvas.offsetHeight;
    if (h > 0) {
      this._details.style.height = `${h}px`;
    }
  }

  private _updateNotice(): void {
    const p = this._model.payload;
    const parts: string[] = [];
    if (p.truncated) {
      parts.push(
        `Showing ${p.nodes.length} of ${p.total_nodes} nodes: the graph was truncated in Python (raise max_nodes to see more).`
      );
    }
    const collapsed = this._state.groups.reduce(
      (n, g) => n + g.members.length,
      0
    );
    if (collapsed > 0) {
      parts.push(
        `${collapsed} nodes are folded into ${this._state.groups.length} collapsed nodes; select one and press Expand (or double-click it).`
      );
    }
    if (
      (this._layout as ILayout).engine === 'layered' &&
      this._engine === 'auto'
    ) {
      parts.push('Large graph: simplified layout.');
    }
    this._notice.textContent = parts.join(' ');
    this._notice.hidden = parts.length === 0;
  }

  private _updateButtons(): void {
    const sel = this._selected >= 0 ? this._view.nodes[this._selected] : null;
    (this._buttons.get('collapse') as HTMLButtonElement).disabled = !sel;
    (this._buttons.get('expand') as HTMLButtonElement).disabled = !(
      sel && sel.group
    );
    (this._buttons.get('expand-all') as HTMLButtonElement).disabled =
      this._state.groups.length === 0;
    const total = this._model.backwardOrder.length;
    if (total > 0) {
      (this._buttons.get('step-first') as HTMLButtonElement).disabled =
        this._step === 0;
      (this._buttons.get('step-prev') as HTMLButtonElement).disabled =
        this._step === 0;
      (this._buttons.get('step-next') as HTMLButtonElement).disabled =
        this._step === total;
      (this._buttons.get('step-last') as HTMLButtonElement).disabled =
        this._step === total;
    }
  }

  private _setTransform(k: number, x: number, y: number): void {
    this._t = { k, x, y };
    const d = this._drawing;
    if (d) {
      d.viewport.setAttribute(
        'transform',
        `translate(${x.toFixed(1)},${y.toFixed(1)}) scale(${k.toFixed(4)})`
      );
    }
    this._canvas.classList.toggle('jp-mod-lowDetail', k < LOW_DETAIL_ZOOM);
  }

  private _clearPaths(): void {
    const d = this._drawing;
    if (!d) {
      return;
    }
    if (this._selected >= 0 && this._selected < d.nodeEls.length) {
      d.nodeEls[this._selected].classList.remove('jp-mod-selected');
    }
    const p = this._paths;
    if (p) {
      p.downstreamNodes.forEach(w =>
        d.nodeEls[w].classList.remove('jp-mod-downstream')
      );
      p.upstreamNodes.forEach(w =>
        d.nodeEls[w].classList.remove('jp-mod-upstream')
      );
      p.downstreamEdges.forEach(e =>
        d.edgeEls[e].classList.remove('jp-mod-downstream')
      );
      p.upstreamEdges.forEach(e =>
        d.edgeEls[e].classList.remove('jp-mod-upstream')
      );
    }
    this._paths = null;
  }

  private _applyStep(): void {
    const d = this._drawing;
    const total = this._model.backwardOrder.length;
    if (!d || total === 0) {
      return;
    }
    for (const el of this._stepEls) {
      el.classList.remove(
        'jp-mod-active',
        'jp-mod-done',
        'jp-mod-flowing',
        'jp-mod-flowed'
      );
    }
    this._stepEls = [];
    while (d.edgeLabels.firstChild) {
      d.edgeLabels.removeChild(d.edgeLabels.firstChild);
    }
    const frame = backwardFrame(this._model, this._view, this._step);
    const mark = (el: Element, cls: string) => {
      el.classList.add(cls);
      this._stepEls.push(el);
    };
    frame.done.forEach(v =>
      mark(d.nodeEls[v], v === frame.active ? 'jp-mod-active' : 'jp-mod-done')
    );
    frame.flowed.forEach(e => mark(d.edgeEls[e], 'jp-mod-flowed'));
    frame.flowing.forEach(e => {
      mark(d.edgeEls[e], 'jp-mod-flowing');
      this._drawEdgeLabel(e);
    });
    this.node.classList.toggle('jp-mod-replaying', this._step > 0);
    if (this._stepLabel) {
      const name =
        frame.active >= 0
          ? `: ${nodeTitle(this._model, this._view.nodes[frame.active])}`
          : '';
      this._stepLabel.textContent = `Backward step ${this._step}/${total}${name}`;
    }
    if (frame.active >= 0 && this._selected < 0) {
      this._showDetails(frame.active);
    }
    this._updateButtons();
  }

  private _drawEdgeLabel(k: number): void {
    const d = this._drawing as IDrawing;
    const layout = this._layout as ILayout;
    const ve = this._view.edges[k];
    const grad = ve.edges
      .map(i => this._model.payload.edges[i].grad)
      .find(g => !!g);
    if (!grad) {
      return;
    }
    const pts = layout.points[k];
    let x: number;
    let y: number;
    if (pts && pts.length > 0) {
      const mid = pts[Math.floor(pts.length / 2)];
      x = mid.x;
      y = mid.y;
    } else {
      x = (layout.x[ve.source] + layout.x[ve.target]) / 2;
      y = (layout.y[ve.source] + layout.y[ve.target]) / 2;
    }
    if (this._backward) {
      x = layout.width - x;
    }
    const text = this._doc.createElementNS(SVG_NS, 'text');
    text.setAttribute('class', 'jp-AutogradGraph-edgeLabel');
    text.setAttribute('x', x.toFixed(1));
    text.setAttribute('y', (y - 4).toFixed(1));
    text.textContent = capText(grad.split('\n')[0], EDGE_LABEL_CHARS);
    d.edgeLabels.appendChild(text);
  }

  private _togglePlay(): void {
    if (this._timer !== null) {
      this._stopPlay();
      return;
    }
    if (this._step >= this._model.backwardOrder.length) {
      this.setStep(0);
    }
    (this._buttons.get('play') as HTMLButtonElement).textContent = 'Pause';
    this._timer = window.setInterval(() => {
      this.setStep(this._step + 1);
      if (this._step >= this._model.backwardOrder.length) {
        this._stopPlay();
      }
    }, PLAY_INTERVAL_MS);
  }

  private _stopPlay(): void {
    if (this._timer !== null) {
      window.clearInterval(this._timer);
      this._timer = null;
    }
    const b = this._buttons.get('play');
    if (b) {
      b.textContent = 'Play';
    }
  }

  private _showDetails(v: number): void {
    const box = this._details;
    while (box.firstChild) {
      box.removeChild(box.firstChild);
    }
    if (v < 0 || v >= this._view.nodes.length) {
      const hint = this._doc.createElement('div');
      hint.className = 'jp-AutogradGraph-hint';
      hint.textContent = 'Click a node to see its details.';
      box.appendChild(hint);
      const p = this._model.payload;
      const summary = this._doc.createElement('div');
      summary.className = 'jp-AutogradGraph-hint';
      summary.textContent = `${p.title ? capText(p.title, 200) + ': ' : ''}${p.nodes.length} nodes, ${p.edges.length} edges.`;
      box.appendChild(summary);
      return;
    }
    box.appendChild(buildDetails(this._doc, this._model, this._view.nodes[v]));
  }

  private _say(text: string): void {
    this._status.textContent = text;
  }

  private _nodeAt(target: EventTarget | null): number {
    let el = target as Element | null;
    while (el && el !== this._canvas) {
      if (
        el instanceof SVGGElement &&
        el.classList.contains('jp-AutogradGraph-node')
      ) {
        const key = el.getAttribute('data-key') ?? '';
        return this._view.byKey.get(key) ?? -1;
      }
      el = el.parentElement;
    }
    return -1;
  }

  private _showTooltip(v: number, clientX?: number, clientY?: number): void {
    const tip = this._tooltip;
    while (tip.firstChild) {
      tip.removeChild(tip.firstChild);
    }
    tip.appendChild(buildTooltip(this._doc, this._model, this._view.nodes[v]));
    tip.hidden = false;
    const box = this._canvas.getBoundingClientRect();
    let x: number;
    let y: number;
    if (clientX !== undefined && clientY !== undefined) {
      x = clientX - box.left + 14;
      y = clientY - box.top + 14;
    } else {
      const r = (this._drawing as IDrawing).nodeEls[v].getBoundingClientRect();
      x = r.right - box.left + 8;
      y = r.top - box.top;
    }
    // Keep the tooltip inside the canvas (which clips): flip above/left of the anchor if needed.
    const cw = this._canvas.clientWidth;
    const ch = this._canvas.clientHeight;
    tip.style.maxHeight = `${Math.max(60, ch - 8)}px`;
    const tw = tip.offsetWidth;
    const th = tip.offsetHeight;
    if (x + tw > cw - 4) {
      x = Math.max(4, x - tw - 28);
    }
    if (y + th > ch - 4) {
      y = Math.max(4, Math.min(y - th - 28, ch - th - 4));
    }
    tip.style.left = `${Math.max(0, x)}px`;
    tip.style.top = `${Math.max(0, y)}px`;
  }

  private _hideTooltip(): void {
    this._tooltip.hidden = true;
  }

  private _focusNode(v: number): void {
    const d = this._drawing as IDrawing;
    if (v < 0 || v >= d.nodeEls.length) {
      return;
    }
    if (this._focused >= 0 && this._focused < d.nodeEls.length) {
      d.nodeEls[this._focused].removeAttribute('tabindex');
    }
    this._focused = v;
    const el = d.nodeEls[v];
    el.setAttribute('tabindex', '-1');
    el.focus({ preventScroll: true });
    // Keep the focused node inside the canvas.
    const layout = this._layout as ILayout;
    const t = this._t;
    const cx =
      (this._backward ? layout.width - layout.x[v] : layout.x[v]) * t.k + t.x;
    const cy = layout.y[v] * t.k + t.y;
    const cw = this._canvas.clientWidth;
    const ch = this._canvas.clientHeight;
    if (cw > 0 && (cx < 0 || cy < 0 || cx > cw || cy > ch)) {
      this._autoFit = false;
      this._setTransform(t.k, t.x + cw / 2 - cx, t.y + ch / 2 - cy);
    }
    this._showTooltip(v);
  }

  private _neighbour(v: number, key: string): number {
    const layout = this._layout as ILayout;
    const view = this._view;
    let candidates: number[];
    const right = this._backward ? key === 'ArrowLeft' : key === 'ArrowRight';
    if (key === 'ArrowLeft' || key === 'ArrowRight') {
      candidates = right
        ? view.outEdges[v].map(e => view.edges[e].target)
        : view.inEdges[v].map(e => view.edges[e].source);
    } else {
      const down = key === 'ArrowDown';
      candidates = [];
      for (let w = 0; w < view.nodes.length; w++) {
        if (
          w !== v &&
          Math.abs(layout.x[w] - layout.x[v]) < 1 &&
          layout.y[w] > layout.y[v] === down
        ) {
          candidates.push(w);
        }
      }
    }
    let best = -1;
    let bestDist = Infinity;
    for (const w of candidates) {
      const dist =
        Math.abs(layout.y[w] - layout.y[v]) +
        Math.abs(layout.x[w] - layout.x[v]) / 4;
      if (dist < bestDist) {
        bestDist = dist;
        best = w;
      }
    }
    return best;
  }

  private _onKey(event: KeyboardEvent): void {
    const v = this._focused >= 0 ? this._focused : this._selected;
    let handled = true;
    switch (event.key) {
      case 'ArrowLeft':
      case 'ArrowRight':
      case 'ArrowUp':
      case 'ArrowDown': {
        if (v < 0) {
          this._focusNode(viewSeeds(this._model, this._view)[0] ?? 0);
        } else {
          const w = this._neighbour(v, event.key);
          if (w >= 0) {
            this._focusNode(w);
          }
        }
        break;
      }
      case 'Enter':
      case ' ':
        if (v >= 0) {
          this.select(this._selected === v ? -1 : v);
        }
        break;
      case 'e':
      case 'E':
        if (v >= 0) {
          this.expand(v);
        }
        break;
      case 'c':
      case 'C':
        if (v >= 0) {
          this.collapseInputsOf(v);
        }
        break;
      case 'Escape':
        this.select(-1);
        this._hideTooltip();
        break;
      case '+':
      case '=':
        this.zoom(1.25);
        break;
      case '-':
        this.zoom(0.8);
        break;
      case '0':
        this.fit('all');
        break;
      case '[':
        this.setStep(this._step - 1);
        break;
      case ']':
        this.setStep(this._step + 1);
        break;
      default:
        handled = false;
    }
    if (handled) {
      event.preventDefault();
      // Keep JupyterLab's notebook shortcuts (A, B, D-D, ...) away from the graph's keys.
      event.stopPropagation();
    }
  }

  private _listen(): void {
    const canvas = this._canvas;
    let drag: {
      x: number;
      y: number;
      tx: number;
      ty: number;
      moved: boolean;
      id: number;
    } | null = null;
    let suppressClick = false;
    canvas.addEventListener('pointerdown', (event: PointerEvent) => {
      if (event.button !== 0 || this._nodeAt(event.target) >= 0) {
        return;
      }
      drag = {
        x: event.clientX,
        y: event.clientY,
        tx: this._t.x,
        ty: this._t.y,
        moved: false,
        id: event.pointerId
      };
    });
    canvas.addEventListener('pointermove', (event: PointerEvent) => {
      if (!drag || event.pointerId !== drag.id) {
        return;
      }
      const dx = event.clientX - drag.x;
      const dy = event.clientY - drag.y;
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) > 3) {
        drag.moved = true;
        canvas.setPointerCapture(event.pointerId);
        canvas.classList.add('jp-mod-panning');
        this._hideTooltip();
      }
      if (drag.moved) {
        this._autoFit = false;
        this._setTransform(this._t.k, drag.tx + dx, drag.ty + dy);
      }
    });
    const endDrag = (event: PointerEvent) => {
      if (drag && drag.moved) {
        suppressClick = true;
        if (canvas.hasPointerCapture(event.pointerId)) {
          canvas.releasePointerCapture(event.pointerId);
        }
      }
      canvas.classList.remove('jp-mod-panning');
      drag = null;
    };
    canvas.addEventListener('pointerup', endDrag);
    canvas.addEventListener('pointercancel', endDrag);
    canvas.addEventListener('click', (event: MouseEvent) => {
      if (suppressClick) {
        suppressClick = false;
        return;
      }
      const v = this._nodeAt(event.target);
      if (v >= 0) {
        this._focusNode(v);
        this.select(v);
      } else if (!this._tooltip.contains(event.target as Node)) {
        this.select(-1);
      }
    });
    canvas.addEventListener('dblclick', (event: MouseEvent) => {
      const v = this._nodeAt(event.target);
      if (v >= 0 && this._view.nodes[v].group) {
        this.expand(v);
      }
    });
    canvas.addEventListener(
      'wheel',
      (event: WheelEvent) => {
        // Plain wheel scrolls the notebook; Ctrl/Cmd+wheel (and trackpad pinch) zooms.
        if (!event.ctrlKey && !event.metaKey) {
          return;
        }
        event.preventDefault();
        const box = canvas.getBoundingClientRect();
        this.zoom(
          Math.exp(-event.deltaY * 0.0015),
          event.clientX - box.left,
          event.clientY - box.top
        );
      },
      { passive: false }
    );
    canvas.addEventListener('pointerover', (event: PointerEvent) => {
      if (drag && drag.moved) {
        return;
      }
      const v = this._nodeAt(event.target);
      if (v >= 0) {
        this._showTooltip(v, event.clientX, event.clientY);
      }
    });
    canvas.addEventListener('pointerout', (event: PointerEvent) => {
      const from = this._nodeAt(event.target);
      const to = this._nodeAt(event.relatedTarget);
      if (from >= 0 && to !== from) {
        this._hideTooltip();
      }
    });
    canvas.addEventListener('keydown', (event: KeyboardEvent) =>
      this._onKey(event)
    );
    if (typeof ResizeObserver !== 'undefined') {
      this._observer = new ResizeObserver(() => {
        const h = canvas.clientHeight;
        // A height we did not set means the user dragged the resize handle: keep theirs.
        if (this._setHeight > 0 && Math.abs(h - this._setHeight) > 2) {
          this._autoHeight = false;
        }
        this.refit();
        this._syncDetailsHeight();
      });
      this._observer.observe(canvas);
    }
    canvas.addEventListener('focusout', (event: FocusEvent) => {
      if (!canvas.contains(event.relatedTarget as Node)) {
        this._hideTooltip();
      }
    });
  }

  private _download(kind: 'svg' | 'png'): void {
    const name = `${fileStem(this._model.payload.title)}.${kind}`;
    const save = (blob: Blob) => {
      const url = URL.createObjectURL(blob);
      const a = this._doc.createElement('a');
      a.href = url;
      a.download = name;
      a.click();
      window.setTimeout(() => URL.revokeObjectURL(url), 10000);
      this._say(`Exported ${name}.`);
    };
    try {
      if (kind === 'svg') {
        save(new Blob([this.exportSvg()], { type: 'image/svg+xml' }));
      } else {
        this.exportPng().then(save, err =>
          this._say(`PNG export failed: ${String(err).slice(0, 200)}`)
        );
      }
    } catch (err) {
      this._say(`Export failed: ${String(err).slice(0, 200)}`);
    }
  }

  private _doc: Document;
  private _budget: number;
  private _engine: LayoutEngine;
  private _model: IGraphModel;
  private _state = new CollapseState();
  private _view: IGraphView;
  private _layout: ILayout | null = null;
  private _drawing: IDrawing | null = null;
  private _backward: boolean;
  private _selected = -1;
  private _focused = -1;
  private _paths: IPaths | null = null;
  private _step = 0;
  private _stepEls: Element[] = [];
  private _timer: number | null = null;
  private _t = { k: 1, x: 0, y: 0 };
  private _autoFit = true;
  private _autoHeight = true;
  private _fitMode: 'auto' | 'all' = 'auto';
  private _setHeight = 0;
  private _observer: ResizeObserver | null = null;
  private _buttons = new Map<string, HTMLButtonElement>();
  private _dirButton!: HTMLButtonElement;
  private _stepLabel: HTMLElement | null = null;
  private _notice!: HTMLElement;
  private _canvas!: HTMLElement;
  private _tooltip!: HTMLElement;
  private _details!: HTMLElement;
  private _status!: HTMLElement;
}
