/**
 * The interactive graph view as plain DOM (no Lumino): it ties the model (graph.ts), the
 * layout, the drawing (render.ts), the chrome (toolbar.ts), zoom and pan (viewport.ts), keys
 * (keyboard.ts), the backward replay (replay.ts) and export (exporter.ts) together.
 */
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';

import { runAction } from './actions';
import { exportPng, exportSvg, fileStem } from './exporter';
import {
  collapseChains,
  collapseInputs,
  collapseModule,
  expandAll,
  expandGroup,
  fitToBudget,
  foldStructure
} from './collapse';
import {
  buildModel,
  buildView,
  CollapseState,
  ICollapsedGroup,
  IGraphModel,
  IGraphView,
  IPaths,
  MAX_VISIBLE_NODES,
  pathsFrom,
  viewSeeds
} from './graph';
import { bundle, ITrans } from './i18n';
import { listen } from './events';
import { findAndShow } from './keyboard';
import {
  chooseRankdir,
  ILayout,
  layoutGraph,
  LayoutEngine,
  RankDir
} from './layout';
import { buildTooltip, fillDetails, nodeTitle, placeTooltip } from './panels';
import { capText, drawGraph, IDrawing, nodeCentre, viewSizes } from './render';
import { drawModuleBox, moduleLayout } from './modules';
import { Replay, visitNumbers } from './replay';
import { replayHost, updateButtons, updateNotice } from './status';
import { IGraphPayload } from './schema';
import { IChrome, buildChrome } from './toolbar';
import { MAX_ZOOM, MIN_READABLE_ZOOM, MIN_ZOOM, Viewport } from './viewport';

export { fileStem, MAX_ZOOM, MIN_READABLE_ZOOM, MIN_ZOOM };

/** Options of {@link GraphView}. */
export interface IGraphViewOptions {
  /** Most nodes drawn at once. */
  budget?: number;
  /** Layout engine ('auto' picks dagre when cheap enough). */
  engine?: LayoutEngine;
  /** 'auto' (left to right if it fits the width, else top to bottom), or a fixed one. */
  rankdir?: RankDir | 'auto';
  /** Leave layout and drawing to a later {@link GraphView.draw} call (to split long work). */
  deferDraw?: boolean;
  /** JupyterLab's translator (Chinese UI and others). */
  translator?: IRenderMime.ITranslator | null;
}

/** Interactive computation-graph view rooted at {@link GraphView.node}. */
export class GraphView {
  /** Root element to insert into the page. */
  readonly node: HTMLElement;
  /** Timings of the last draw. */
  readonly timings = { layout: 0, draw: 0 };
  /** The translation bundle in use. */
  readonly trans: ITrans;

  constructor(
    doc: Document,
    payload: IGraphPayload,
    options: IGraphViewOptions = {}
  ) {
    this._doc = doc;
    this._budget = options.budget ?? MAX_VISIBLE_NODES;
    this._engine = options.engine ?? 'auto';
    this._rankdirChoice = options.rankdir ?? 'auto';
    this.trans = bundle(options.translator);
    this._model = buildModel(payload);
    this._backward = payload.direction === 'backward';
    this.node = doc.createElement('div');
    this.node.className = 'jp-AutogradGraph';
    const total = this._model.backwardOrder.length;
    const controls = payload.replay?.controls !== false;
    this._chrome = buildChrome(
      doc,
      this.node,
      this.trans,
      { has: total > 0, controls },
      a => runAction(this, a),
      s => this._replay.setSpeed(s)
    );
    this._viewport = new Viewport(this._chrome.canvas);
    // after backward the view opens on its result: every node run, numbered
    this._replay = new Replay(replayHost(this), payload.replay?.step ?? total);
    foldStructure(this._model, this._state);
    this._view = fitToBudget(this._model, this._state, this._budget);
    this.showDetails(-1);
    this._observer = listen(this);
    if (!options.deferDraw) {
      this.draw();
    }
  }

  /** Lay out and draw, once (the constructor does it unless `deferDraw` was set). */
  draw(): void {
    if (!this._drawing) {
      this._relayout();
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

  /** The current drawing. */
  get drawing(): IDrawing {
    return this._drawing as IDrawing;
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
    return this._replay.step;
  }

  /** The replay (speed, play, jump). */
  get replay(): Replay {
    return this._replay;
  }

  /** Zoom and pan state. */
  get viewport(): Viewport {
    return this._viewport;
  }

  /** The chrome's parts (toolbar, canvas, panels). */
  get chrome(): IChrome {
    return this._chrome;
  }

  /** The focused view node, or -1. */
  get focused(): number {
    return this._focused;
  }

  /** The collapsed groups drawn now. */
  get groups(): ICollapsedGroup[] {
    return this._state.groups;
  }

  /** Stop timers and drop listeners' targets. */
  dispose(): void {
    this._replay.stop();
    this._observer?.disconnect();
    this.node.remove();
  }

  /** Fit the drawing at a readable size (called once attached, and on resize until zoomed). */
  fit(): void {
    if (!this._layout) {
      return; // a resize before the first layout
    }
    const layout = this._layout;
    const seed = viewSeeds(this._model, this._view)[0];
    const anchor =
      seed !== undefined ? nodeCentre(layout, seed, this._backward) : null;
    if (this._rankdirChoice === 'auto' && this._chrome.canvas.clientWidth > 0) {
      const want = this._autoRankdir();
      if (want !== layout.rankdir) {
        this._relayout();
        return;
      }
    }
    this._viewport.fit(layout, anchor);
    this.syncDetailsHeight();
  }

  /** Re-fit after a size change unless the user zoomed or panned. */
  refit(): void {
    if (this._viewport.autoFit) {
      this.fit();
    }
  }

  /** Zoom by `factor` around a canvas point (default: the centre). */
  zoom(factor: number, cx?: number, cy?: number): void {
    this._viewport.zoom(factor, cx, cy);
  }

  /** Select a view node (-1 clears): details panel, paths to the root and to the leaves. */
  select(v: number): void {
    this._clearPaths();
    this._selected = v;
    const has = v >= 0 && v < this._view.nodes.length;
    this._chrome.canvas.classList.toggle('jp-mod-hasSelection', has);
    if (has) {
      const d = this._drawing as IDrawing;
      this._paths = pathsFrom(this._view, v);
      d.nodeEls[v].classList.add('jp-mod-selected');
      const p = this._paths;
      p.downstreamNodes.forEach(w =>
        d.nodeEls[w].classList.add('jp-mod-downstream')
      );
      p.upstreamNodes.forEach(w =>
        d.nodeEls[w].classList.add('jp-mod-upstream')
      );
      p.downstreamEdges.forEach(e =>
        d.edgeEls[e].classList.add('jp-mod-downstream')
      );
      p.upstreamEdges.forEach(e =>
        d.edgeEls[e].classList.add('jp-mod-upstream')
      );
    }
    this.showDetails(has ? v : -1);
    updateButtons(this);
  }

  /** Collapse what only feeds view node `v` into one node; returns false if nothing to fold. */
  collapseInputsOf(v: number): boolean {
    const group = collapseInputs(this._model, this._state, this._view, v);
    if (!group) {
      this.say(
        this.trans.__(
          'Nothing to collapse: every input of %1 also feeds another node.',
          nodeTitle(this._model, this._view.nodes[v])
        )
      );
      return false;
    }
    this._rebuild(buildView(this._model, this._state));
    this.select(this._view.byKey.get(group.key) ?? -1);
    this.say(
      this.trans.__(
        'Collapsed %1 nodes (%2).',
        group.members.length,
        capText(group.caption, 80)
      )
    );
    return true;
  }

  /** Collapse the expanded module `id` into one node. */
  collapseModule(id: string): boolean {
    const group = collapseModule(this._model, this._state, this._view, id);
    if (!group) {
      return false;
    }
    this._rebuild(buildView(this._model, this._state));
    this.say(
      this.trans.__(
        'Collapsed %1 (%2 nodes).',
        capText(group.caption, 80),
        group.members.length
      )
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
    this._rebuild(
      expandGroup(this._model, this._state, node.key, this._budget)
    );
    this.select(-1);
    this.say(this.trans.__('Expanded %1 nodes.', count));
    return true;
  }

  /** Fold every chain of single-input, single-output nodes. */
  collapseAllChains(): number {
    const made = collapseChains(this._model, this._state, this._view);
    if (made > 0) {
      this._rebuild(buildView(this._model, this._state));
      this.select(-1);
    }
    this.say(
      made > 0
        ? this.trans.__('Folded %1 chains.', made)
        : this.trans.__('No chains to fold.')
    );
    return made;
  }

  /** Expand every collapsed node, as far as the node budget allows. */
  expandEverything(): void {
    expandAll(this._state);
    this._rebuild(fitToBudget(this._model, this._state, this._budget));
    this.select(-1);
    this.say(this.trans.__('Everything the node budget allows is expanded.'));
  }

  /** Draw arrows input -> consumer (forward) or the way gradients flow (backward). */
  setBackward(backward: boolean): void {
    this._backward = backward;
    this._paint();
  }

  /** Lay out left to right or top to bottom. */
  setRankdir(rankdir: RankDir): void {
    this._rankdirChoice = rankdir;
    this._relayout();
  }

  /** Show the backward replay after `step` of the backward_order nodes have run. */
  setStep(step: number): void {
    this._replay.set(step);
  }

  /** Serialise the drawing as a standalone SVG document with resolved theme colours. */
  exportSvg(): string {
    return exportSvg(
      this._doc,
      (this._drawing as IDrawing).svg,
      this._chrome.canvas,
      this.layout
    );
  }

  /** Render the SVG export to a PNG blob. */
  exportPng(): Promise<Blob> {
    return exportPng(
      this._doc,
      this.exportSvg(),
      this.layout.width,
      this.layout.height
    );
  }

  /** Open the node search box (the `/` key). */
  openSearch(): void {
    const s = this._chrome.search;
    s.hidden = false;
    s.value = '';
    s.focus();
  }

  /** Find nodes matching `query`; select and show the first. Returns the matches. */
  find(query: string): number[] {
    return findAndShow(this, query);
  }

  private _autoRankdir(): RankDir {
    const { widths, heights } = this._viewSizes();
    const available =
      (this._chrome.canvas.clientWidth || 700) / MIN_READABLE_ZOOM;
    return chooseRankdir(
      {
        widths,
        heights,
        sources: this._view.edges.map(e => e.source),
        targets: this._view.edges.map(e => e.target)
      },
      available
    );
  }

  private _rebuild(view: IGraphView): void {
    this._view = view;
    this._sizes = null;
    this._relayout();
  }

  private _viewSizes(): ReturnType<typeof viewSizes> {
    if (!this._sizes || this._sizes.lines.length !== this._view.nodes.length) {
      this._sizes = viewSizes(this._model, this._view);
    }
    return this._sizes;
  }

  private _relayout(): void {
    const { widths, heights } = this._viewSizes();
    const rankdir =
      this._rankdirChoice === 'auto'
        ? this._autoRankdir()
        : this._rankdirChoice;
    const { clusters } = moduleLayout(this._model, this._state, this._view);
    this._layout = layoutGraph(
      {
        widths,
        heights,
        sources: this._view.edges.map(e => e.source),
        targets: this._view.edges.map(e => e.target)
      },
      this._engine,
      rankdir,
      clusters
    );
    this.timings.layout = this._layout.ms;
    this._paint();
  }

  private _paint(): void {
    const t0 = performance.now();
    const { lines } = this._viewSizes();
    const drawing = drawGraph(
      this._doc,
      this._model,
      this._view,
      this._layout as ILayout,
      lines,
      this._backward,
      { visits: visitNumbers(this._model, this._view) }
    );
    for (const box of moduleLayout(this._model, this._state, this._view)
      .boxes) {
      drawModuleBox(
        this._doc,
        drawing,
        this._layout as ILayout,
        box,
        this._backward
      );
    }
    if (this._drawing) {
      this._drawing.svg.replaceWith(drawing.svg);
    } else {
      this._chrome.canvas.insertBefore(drawing.svg, this._chrome.hint);
    }
    this._drawing = drawing;
    this._viewport.target = drawing.viewport;
    this._selected = -1;
    this._paths = null;
    this._focused = -1;
    this._chrome.canvas.classList.remove('jp-mod-hasSelection');
    this.timings.draw = performance.now() - t0;
    const d = this.node.dataset;
    const layout = this._layout as ILayout;
    d.layoutEngine = layout.engine;
    d.rankdir = layout.rankdir;
    d.layoutMs = this.timings.layout.toFixed(1);
    d.drawMs = this.timings.draw.toFixed(1);
    d.visibleNodes = String(this._view.nodes.length);
    d.visibleEdges = String(this._view.edges.length);
    if (this._viewport.autoHeight && this._chrome.canvas.clientWidth === 0) {
      // not attached yet: assume a readable scale; fit() refines it
      const h = this._viewport.heightFor(layout, 1);
      this._chrome.canvas.style.height = `${h}px`;
      this._viewport.setHeight = h;
    }
    updateNotice(this);
    this._replay.apply();
    updateButtons(this);
    if (this._viewport.autoFit) {
      this.fit();
    } else {
      const t = this._viewport.t;
      this._viewport.set(t.k, t.x, t.y);
    }
  }

  /** (for events.ts) */
  syncDetailsHeight(): void {
    const h = this._chrome.canvas.offsetHeight;
    if (h > 0) {
      this._chrome.details.style.height = `${h}px`;
    }
  }

  private _clearPaths(): void {
    const d = this._drawing;
    if (!d) {
      return;
    }
    for (const el of d.svg.querySelectorAll(
      '.jp-mod-selected, .jp-mod-downstream, .jp-mod-upstream'
    )) {
      el.classList.remove(
        'jp-mod-selected',
        'jp-mod-downstream',
        'jp-mod-upstream'
      );
    }
    this._paths = null;
  }

  /** Show view node `v`'s details (-1: the hint and counts). */
  showDetails(v: number): void {
    fillDetails(this._doc, this._chrome.details, this, v);
  }

  /** Say `text` in the status line. */
  say(text: string): void {
    this._chrome.status.textContent = text;
  }

  /** (for events.ts) */
  nodeAt(target: EventTarget | null): number {
    const el = (target as Element | null)?.closest?.(
      'g.jp-AutogradGraph-node[data-key]'
    );
    if (!el || !this._chrome.canvas.contains(el)) {
      return -1;
    }
    return this._view.byKey.get(el.getAttribute('data-key') ?? '') ?? -1;
  }

  /** (for events.ts) */
  showTooltip(v: number): void {
    const tip = this._chrome.tooltip;
    while (tip.firstChild) {
      tip.removeChild(tip.firstChild);
    }
    tip.appendChild(
      buildTooltip(this._doc, this._model, this._view.nodes[v], this.trans)
    );
    tip.hidden = false;
    placeTooltip(
      tip,
      this._chrome.canvas,
      this._drawing as IDrawing,
      v,
      this._paths,
      this.selected
    );
  }

  /** (for events.ts) */
  hideTooltip(): void {
    this._chrome.tooltip.hidden = true;
  }

  /** (for events.ts) */
  focusNode(v: number): void {
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
    // keep the focused node inside the canvas
    const c = nodeCentre(this.layout, v, this._backward);
    const t = this._viewport.t;
    const cx = c.x * t.k + t.x;
    const cy = c.y * t.k + t.y;
    const cw = this._chrome.canvas.clientWidth;
    const ch = this._chrome.canvas.clientHeight;
    if (cw > 0 && (cx < 0 || cy < 0 || cx > cw || cy > ch)) {
      this._viewport.pan(cw / 2 - cx, ch / 2 - cy);
    }
    this.showTooltip(v);
  }

  private _doc: Document;
  private _budget: number;
  private _engine: LayoutEngine;
  private _rankdirChoice: RankDir | 'auto';
  private _model: IGraphModel;
  private _state = new CollapseState();
  private _view: IGraphView;
  private _layout: ILayout | null = null;
  private _drawing: IDrawing | null = null;
  private _backward: boolean;
  private _selected = -1;
  private _focused = -1;
  private _paths: IPaths | null = null;
  private _chrome: IChrome;
  private _viewport: Viewport;
  private _replay: Replay;
  private _observer: ResizeObserver | null = null;
  private _sizes: ReturnType<typeof viewSizes> | null = null;
}
