/**
 * Pure functions from a view and its layout to DOM: the SVG drawing, the legend, tooltip and
 * detail contents. Everything from the payload is untrusted text and goes through
 * `textContent` or attribute values we choose; nothing is parsed as markup.
 */
import { IGraphModel, IGraphView, IViewNode } from './graph';
import { ILayout, IPoint } from './layout';
import { IGraphEdge, IGraphNode } from './schema';

/** SVG namespace. */
export const SVG_NS = 'http://www.w3.org/2000/svg';

/** Label lines drawn per node before an ellipsis. */
export const MAX_LABEL_LINES = 3;
/** Code points per drawn label line. */
export const MAX_LABEL_CHARS = 40;

/** Characters of a value/grad preview in the tooltip. */
export const TOOLTIP_PREVIEW_CHARS = 300;
/** Lines of a value/grad preview in the tooltip (the details panel shows all). */
export const TOOLTIP_LINES = 3;
/** Characters of a preview in the details panel. */
export const DETAIL_PREVIEW_CHARS = 4000;

const CHAR_WIDTH = 6.8;
const LINE_HEIGHT = 14;
const PAD_X = 10;
const PAD_Y = 7;
const MIN_WIDTH = 56;
const ELLIPSIS = '…';

let markerCounter = 0;

/** Cut a string to `max` code points, adding an ellipsis when cut. */
export function capText(text: string, max: number): string {
  if (text.length <= max) {
    return text;
  }
  const points = Array.from(
    text.length > 4 * max ? text.slice(0, 4 * max) : text
  );
  return points.length <= max
    ? points.join('')
    : points.slice(0, max).join('') + ELLIPSIS;
}

/** Keep the first `max` lines of a preview, marking the cut with an ellipsis line. */
export function capLines(text: string, max: number): string {
  const lines = text.split('\n');
  return lines.length <= max
    ? text
    : lines.slice(0, max).join('\n') + '\n' + ELLIPSIS;
}

/** Shape as torch prints it: (5, 3), (3,) or (). */
export function formatShape(shape: number[] | null | undefined): string {
  if (!shape) {
    return '';
  }
  return shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
}

/** Whether a payload node is a leaf tensor (or its AccumulateGrad) that requires grad. */
export function isLeafRequiringGrad(node: IGraphNode): boolean {
  return (
    node.kind === 'tensor' &&
    node.is_leaf === true &&
    node.requires_grad === true
  );
}

/** The lines drawn inside a view node, capped to {@link MAX_LABEL_LINES} x {@link MAX_LABEL_CHARS}. */
export function nodeLines(model: IGraphModel, node: IViewNode): string[] {
  let lines: string[];
  if (node.group && node.group.kind === 'repeat') {
    // "×100 MulBackward0 → TanhBackward0": the count, then one iteration's ops
    const [count, ...ops] = node.group.caption.split(' ');
    lines = [`${count} repeated`, ops.join(' ')];
  } else if (node.group && node.group.kind === 'module') {
    lines = [node.group.caption, `${node.group.members.length} nodes`];
  } else if (node.group) {
    lines = [`${node.group.members.length} nodes`, node.group.caption];
  } else {
    const p = model.nodes[node.index];
    const text = p.label !== '' ? p.label : p.op || p.name || p.id;
    lines = text.split('\n');
    if (
      p.kind === 'group' &&
      typeof p.count === 'number' &&
      !text.includes(`×${p.count}`)
    ) {
      lines.push(`×${p.count}`);
    }
  }
  const capped = lines
    .slice(0, MAX_LABEL_LINES)
    .map(l => capText(l, MAX_LABEL_CHARS));
  if (lines.length > MAX_LABEL_LINES) {
    capped[MAX_LABEL_LINES - 1] = capText(
      capped[MAX_LABEL_LINES - 1] + ELLIPSIS,
      MAX_LABEL_CHARS + 1
    );
  }
  return capped;
}

function visualWidth(line: string): number {
  let w = 0;
  for (const ch of line) {
    // East Asian wide characters and emoji take about two columns.
    w += (ch.codePointAt(0) as number) >= 0x1100 ? 2 : 1;
  }
  return w;
}

/** Box size of a node drawn with `lines`, estimated without measuring text (fast, testable). */
export function nodeSize(lines: string[]): { width: number; height: number } {
  let cols = 0;
  for (const l of lines) {
    cols = Math.max(cols, visualWidth(l));
  }
  return {
    width: Math.max(MIN_WIDTH, Math.ceil(cols * CHAR_WIDTH + 2 * PAD_X)),
    height: lines.length * LINE_HEIGHT + 2 * PAD_Y
  };
}

/** CSS class naming the drawn kind of a view node. */
export function kindClass(model: IGraphModel, node: IViewNode): string {
  if (node.group) {
    return 'jp-AutogradGraph-collapsed';
  }
  return `jp-AutogradGraph-${model.nodes[node.index].kind}`;
}

function svgEl<K extends keyof SVGElementTagNameMap>(
  doc: Document,
  tag: K,
  attrs: { [name: string]: string | number } = {}
): SVGElementTagNameMap[K] {
  const el = doc.createElementNS(SVG_NS, tag) as SVGElementTagNameMap[K];
  for (const name of Object.keys(attrs)) {
    el.setAttribute(name, String(attrs[name]));
  }
  return el;
}

function round(v: number): number {
  return Math.round(v * 10) / 10;
}

/** Path data of view edge `k`: forward draws input -> consumer, backward mirrors and reverses. */
export function edgePath(
  layout: ILayout,
  source: number,
  target: number,
  points: IPoint[] | null,
  backward: boolean
): string {
  const W = layout.width;
  const fx = (x: number) => (backward ? W - x : x);
  if (points && points.length >= 2) {
    const pts = backward ? points.slice().reverse() : points;
    let d = `M${round(fx(pts[0].x))},${round(pts[0].y)}`;
    if (pts.length === 2) {
      return d + `L${round(fx(pts[1].x))},${round(pts[1].y)}`;
    }
    // Quadratic smoothing through the midpoints of the dagre polyline.
    for (let i = 1; i < pts.length - 1; i++) {
      const mx = (pts[i].x + pts[i + 1].x) / 2;
      const my = (pts[i].y + pts[i + 1].y) / 2;
      const end = i === pts.length - 2 ? pts[i + 1] : { x: mx, y: my };
      d += `Q${round(fx(pts[i].x))},${round(pts[i].y)} ${round(fx(end.x))},${round(end.y)}`;
    }
    return d;
  }
  let x1 = layout.x[source] + layout.widths[source] / 2;
  const y1 = layout.y[source];
  let x2 = layout.x[target] - layout.widths[target] / 2;
  const y2 = layout.y[target];
  x1 = fx(x1);
  x2 = fx(x2);
  const [ax, ay, bx, by] = backward ? [x2, y2, x1, y1] : [x1, y1, x2, y2];
  const dx = Math.max(20, Math.abs(bx - ax) / 2) * (bx >= ax ? 1 : -1);
  return (
    `M${round(ax)},${round(ay)}C${round(ax + dx)},${round(ay)} ` +
    `${round(bx - dx)},${round(by)} ${round(bx)},${round(by)}`
  );
}

/** Middle of view edge `k`, mirrored in backward direction. */
export function edgeMidpoint(
  layout: ILayout,
  k: number,
  source: number,
  target: number,
  backward: boolean
): IPoint {
  const pts = layout.points[k];
  let x: number;
  let y: number;
  if (pts && pts.length > 0) {
    const mid = pts[Math.floor(pts.length / 2)];
    x = mid.x;
    y = mid.y;
  } else {
    x = (layout.x[source] + layout.x[target]) / 2;
    y = (layout.y[source] + layout.y[target]) / 2;
  }
  return { x: backward ? layout.width - x : x, y };
}

/** Top-left translation of node `v` in the current direction. */
export function nodeTransform(
  layout: ILayout,
  v: number,
  backward: boolean
): string {
  const cx = backward ? layout.width - layout.x[v] : layout.x[v];
  return `translate(${round(cx - layout.widths[v] / 2)},${round(layout.y[v] - layout.heights[v] / 2)})`;
}

function drawShape(
  doc: Document,
  g: SVGGElement,
  cls: string,
  w: number,
  h: number
): void {
  const shapeClass = 'jp-AutogradGraph-shape';
  if (cls === 'jp-AutogradGraph-accumulate') {
    const k = Math.min(9, w / 4);
    g.appendChild(
      svgEl(doc, 'polygon', {
        class: shapeClass,
        points: `${k},0 ${w - k},0 ${w},${h / 2} ${w - k},${h} ${k},${h} 0,${h / 2}`
      })
    );
  } else if (
    cls === 'jp-AutogradGraph-group' ||
    cls === 'jp-AutogradGraph-collapsed'
  ) {
    g.appendChild(
      svgEl(doc, 'rect', {
        class: `${shapeClass}-back`,
        x: 4,
        y: -4,
        width: w,
        height: h,
        rx: 4
      })
    );
    g.appendChild(
      svgEl(doc, 'rect', { class: shapeClass, width: w, height: h, rx: 4 })
    );
  } else {
    const rx = cls === 'jp-AutogradGraph-tensor' ? Math.min(12, h / 2) : 1;
    g.appendChild(
      svgEl(doc, 'rect', { class: shapeClass, width: w, height: h, rx })
    );
  }
}

/** The drawn SVG and handles to its parts, by view index. */
export interface IDrawing {
  svg: SVGSVGElement;
  viewport: SVGGElement;
  edgeLabels: SVGGElement;
  nodeEls: SVGGElement[];
  /** "×k" labels of bundled edges (data-edge: the view edge index). */
  countLabels: SVGTextElement[];
  edgeEls: SVGPathElement[];
}

/** Node sizes for a view, in view order. */
export function viewSizes(
  model: IGraphModel,
  view: IGraphView
): { lines: string[][]; widths: number[]; heights: number[] } {
  const lines = view.nodes.map(node => nodeLines(model, node));
  const sizes = lines.map(nodeSize);
  return {
    lines,
    widths: sizes.map(s => s.width),
    heights: sizes.map(s => s.height)
  };
}

/**
 * Draw the view as SVG. Nodes are `g.jp-AutogradGraph-node` with `data-key` (a payload id
 * `n<digits>` or a group key `g<digits>`); edges are `path.jp-AutogradGraph-edge`.
 */
export function drawGraph(
  doc: Document,
  model: IGraphModel,
  view: IGraphView,
  layout: ILayout,
  lines: string[][],
  backward: boolean
): IDrawing {
  const svg = svgEl(doc, 'svg', {
    class: 'jp-AutogradGraph-svg',
    focusable: 'false'
  });
  const markerId = `jp-AutogradGraph-arrow-${++markerCounter}`;
  const defs = svgEl(doc, 'defs');
  const marker = svgEl(doc, 'marker', {
    id: markerId,
    viewBox: '0 0 10 10',
    refX: 9,
    refY: 5,
    markerWidth: 7,
    markerHeight: 7,
    orient: 'auto'
  });
  marker.appendChild(
    svgEl(doc, 'path', {
      d: 'M0,0L10,5L0,10z',
      class: 'jp-AutogradGraph-arrow',
      fill: 'context-stroke'
    })
  );
  defs.appendChild(marker);
  svg.appendChild(defs);
  const viewport = svgEl(doc, 'g', { class: 'jp-AutogradGraph-viewport' });
  svg.appendChild(viewport);
  const edgesG = svgEl(doc, 'g', { class: 'jp-AutogradGraph-edges' });
  const edgeLabels = svgEl(doc, 'g', { class: 'jp-AutogradGraph-edgeLabels' });
  const nodesG = svgEl(doc, 'g', { class: 'jp-AutogradGraph-nodes' });
  const countG = svgEl(doc, 'g', { class: 'jp-AutogradGraph-countLabels' });
  viewport.appendChild(edgesG);
  viewport.appendChild(countG);
  viewport.appendChild(nodesG);
  viewport.appendChild(edgeLabels);

  const countLabels: SVGTextElement[] = [];
  const edgeEls = view.edges.map((e, k) => {
    const path = svgEl(doc, 'path', {
      class:
        e.count > 1
          ? 'jp-AutogradGraph-edge jp-mod-bundled'
          : 'jp-AutogradGraph-edge',
      d: edgePath(layout, e.source, e.target, layout.points[k], backward),
      'marker-end': `url(#${markerId})`,
      'data-source': view.nodes[e.source].key,
      'data-target': view.nodes[e.target].key
    });
    edgesG.appendChild(path);
    if (e.count > 1) {
      // a bundled edge: one drawn line for the edges of every iteration of a run
      const mid = edgeMidpoint(layout, k, e.source, e.target, backward);
      const label = svgEl(doc, 'text', {
        class: 'jp-AutogradGraph-countLabel',
        x: round(mid.x),
        y: round(mid.y - 3),
        'data-edge': k
      });
      label.textContent = `×${e.count}`;
      countLabels.push(label);
    }
    return path;
  });

  const nodeEls = view.nodes.map((node, v) => {
    const cls = kindClass(model, node);
    const classes = ['jp-AutogradGraph-node', cls];
    const p = node.index >= 0 ? model.nodes[node.index] : null;
    if (p && isLeafRequiringGrad(p)) {
      classes.push('jp-mod-leafGrad');
    }
    if (p && p.is_root) {
      classes.push('jp-mod-root');
    }
    const w = layout.widths[v];
    const h = layout.heights[v];
    const g = svgEl(doc, 'g', {
      class: classes.join(' '),
      transform: nodeTransform(layout, v, backward),
      'data-key': node.key,
      role: 'button',
      'aria-label': lines[v].join(' ')
    });
    drawShape(doc, g, cls, w, h);
    if (p && isLeafRequiringGrad(p)) {
      g.appendChild(
        svgEl(doc, 'circle', {
          class: 'jp-AutogradGraph-leafMark',
          cx: w,
          cy: 0,
          r: 5
        })
      );
    }
    const text = svgEl(doc, 'text', {
      class: 'jp-AutogradGraph-label',
      x: w / 2
    });
    lines[v].forEach((line, i) => {
      const tspan = svgEl(doc, 'tspan', {
        x: w / 2,
        y: PAD_Y + LINE_HEIGHT * (i + 0.78)
      });
      if (i === 0) {
        tspan.setAttribute('class', 'jp-AutogradGraph-label-main');
      }
      tspan.textContent = line;
      text.appendChild(tspan);
    });
    g.appendChild(text);
    nodesG.appendChild(g);
    return g;
  });
  countLabels.forEach(l => countG.appendChild(l));
  return { svg, viewport, edgeLabels, nodeEls, edgeEls, countLabels };
}

/** Legend entries: class of the swatch, label. */
export const LEGEND: ReadonlyArray<[string, string]> = [
  ['jp-AutogradGraph-tensor', 'tensor'],
  ['jp-AutogradGraph-function', 'function (grad_fn)'],
  ['jp-AutogradGraph-accumulate', 'AccumulateGrad'],
  ['jp-AutogradGraph-collapsed', 'collapsed'],
  ['jp-AutogradGraph-tensor jp-mod-leafGrad', 'leaf, requires grad'],
  ['jp-AutogradGraph-tensor jp-mod-root', 'root']
];

/** The legend: one small SVG swatch and a caption per node kind. */
export function drawLegend(doc: Document): HTMLElement {
  const legend = doc.createElement('div');
  legend.className = 'jp-AutogradGraph-legend';
  for (const [cls, caption] of LEGEND) {
    const item = doc.createElement('span');
    item.className = 'jp-AutogradGraph-legendItem';
    const svg = svgEl(doc, 'svg', {
      width: 30,
      height: 18,
      'aria-hidden': 'true'
    });
    const g = svgEl(doc, 'g', {
      class: `jp-AutogradGraph-node ${cls}`,
      transform: 'translate(2,4)'
    });
    const main = cls.split(' ')[0];
    drawShape(doc, g, main, 22, 12);
    if (cls.includes('jp-mod-leafGrad')) {
      g.appendChild(
        svgEl(doc, 'circle', {
          class: 'jp-AutogradGraph-leafMark',
          cx: 22,
          cy: 0,
          r: 3.5
        })
      );
    }
    svg.appendChild(g);
    item.appendChild(svg);
    const label = doc.createElement('span');
    label.textContent = caption;
    item.appendChild(label);
    legend.appendChild(item);
  }
  return legend;
}

/** Rows describing a payload node: [field, value] pairs, values capped to `max` code points. */
export function nodeFacts(
  node: IGraphNode,
  max: number
): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  const add = (k: string, v: string | null | undefined) => {
    if (v !== null && v !== undefined && v !== '') {
      rows.push([k, capText(v, max)]);
    }
  };
  add('kind', node.kind);
  add('name', node.name);
  add('op', node.op);
  if (node.shape) {
    add('shape', formatShape(node.shape));
  }
  add('dtype', node.dtype);
  if (node.requires_grad !== undefined) {
    add('requires_grad', String(node.requires_grad));
  }
  if (node.is_leaf !== undefined) {
    add('is_leaf', String(node.is_leaf));
  }
  if (node.retains_grad) {
    add('retains_grad', 'true');
  }
  if (typeof node.count === 'number') {
    add('collapsed nodes', String(node.count));
  }
  if (typeof node.backward_step === 'number') {
    add('backward step', String(node.backward_step));
  }
  add('value', node.value);
  add('grad', node.grad);
  return rows;
}

/** Saved-tensor rows: name, then shape/dtype/value summary. */
export function savedFacts(
  node: IGraphNode,
  max: number
): Array<[string, string]> {
  return (node.saved ?? []).map(s => {
    const parts = [formatShape(s.shape), s.dtype ?? '', s.value ?? ''].filter(
      t => t !== ''
    );
    return [capText(s.name, 200), capText(parts.join(' '), max)];
  });
}

function appendRows(
  doc: Document,
  parent: HTMLElement,
  rows: Array<[string, string]>
): void {
  for (const [k, v] of rows) {
    const row = doc.createElement('div');
    row.className = 'jp-AutogradGraph-row';
    const key = doc.createElement('span');
    key.className = 'jp-AutogradGraph-key';
    key.textContent = k;
    key.hidden = k === '';
    const val = doc.createElement(v.includes('\n') ? 'pre' : 'span');
    val.className = 'jp-AutogradGraph-value';
    val.textContent = v;
    row.appendChild(key);
    row.appendChild(val);
    parent.appendChild(row);
  }
}

function heading(doc: Document, text: string, tag = 'div'): HTMLElement {
  const h = doc.createElement(tag);
  h.className = 'jp-AutogradGraph-heading';
  h.textContent = text;
  return h;
}

/** Title line of a view node: its first label line and kind. */
export function nodeTitle(model: IGraphModel, node: IViewNode): string {
  if (node.group) {
    return `${node.group.members.length} collapsed nodes (${node.group.kind})`;
  }
  const p = model.nodes[node.index];
  return capText(p.label.split('\n')[0] || p.op || p.name || p.id, 120);
}

/** Tooltip content: value preview, grad, dtype, saved tensors. */
export function buildTooltip(
  doc: Document,
  model: IGraphModel,
  node: IViewNode
): HTMLElement {
  const box = doc.createElement('div');
  box.appendChild(heading(doc, nodeTitle(model, node)));
  if (node.group) {
    appendRows(doc, box, [
      ['contains', capText(node.group.caption, TOOLTIP_PREVIEW_CHARS)]
    ]);
    appendRows(doc, box, [['hint', 'double-click or press E to expand']]);
    return box;
  }
  const p = model.nodes[node.index];
  const rows: Array<[string, string]> = [];
  const summary = [
    p.kind === 'function' || p.kind === 'accumulate' ? p.op || p.kind : p.kind,
    p.shape ? `shape ${formatShape(p.shape)}` : '',
    p.dtype ? `dtype ${capText(p.dtype, 40)}` : '',
    p.requires_grad ? 'requires_grad' : '',
    p.is_leaf ? 'leaf' : '',
    p.retains_grad ? 'retains_grad' : ''
  ].filter(t => t !== '');
  rows.push(['', summary.join(' · ')]);
  if (p.name) {
    rows.push(['name', capText(p.name, TOOLTIP_PREVIEW_CHARS)]);
  }
  if (p.value) {
    rows.push([
      'value',
      capLines(capText(p.value, TOOLTIP_PREVIEW_CHARS), TOOLTIP_LINES)
    ]);
  }
  if (p.grad) {
    rows.push([
      'grad',
      capLines(capText(p.grad, TOOLTIP_PREVIEW_CHARS), TOOLTIP_LINES)
    ]);
  }
  appendRows(doc, box, rows);
  const saved = savedFacts(p, TOOLTIP_PREVIEW_CHARS);
  if (saved.length > 0) {
    box.appendChild(heading(doc, 'saved tensors'));
    appendRows(doc, box, saved.slice(0, 8));
  }
  return box;
}

/** Gradient rows for the payload edges entering a node (what flowed into each input). */
export function edgeGradFacts(
  model: IGraphModel,
  edges: IGraphEdge[],
  max: number
): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  for (const e of edges) {
    if (e.grad) {
      const src = model.nodes[model.index.get(e.source) as number];
      const name = (
        src.name ||
        src.op ||
        src.label.split('\n')[0] ||
        src.id
      ).slice(0, 60);
      rows.push([`grad → ${name}`, capText(e.grad, max)]);
    }
  }
  return rows;
}

/** Details panel content for a view node (full previews, saved tensors, source, members). */
export function buildDetails(
  doc: Document,
  model: IGraphModel,
  node: IViewNode
): HTMLElement {
  const box = doc.createElement('div');
  box.appendChild(heading(doc, nodeTitle(model, node)));
  if (node.group) {
    const ops = node.group.members
      .slice(0, 50)
      .map(i =>
        capText(model.nodes[i].op || model.nodes[i].label.split('\n')[0], 60)
      );
    const more =
      node.group.members.length > 50
        ? `\n… and ${node.group.members.length - 50} more`
        : '';
    appendRows(doc, box, [
      ['contains', capText(node.group.caption, DETAIL_PREVIEW_CHARS)],
      ['members', ops.join('\n') + more]
    ]);
    return box;
  }
  const p = model.nodes[node.index];
  appendRows(doc, box, [['id', p.id]]);
  appendRows(doc, box, nodeFacts(p, DETAIL_PREVIEW_CHARS));
  if (p.kind === 'group' && p.members && p.members.length > 0) {
    appendRows(doc, box, [
      [
        'members',
        p.members
          .slice(0, 200)
          .map(m => capText(m, 200))
          .join('\n')
      ]
    ]);
  }
  const saved = savedFacts(p, DETAIL_PREVIEW_CHARS);
  if (saved.length > 0) {
    box.appendChild(heading(doc, 'saved tensors'));
    appendRows(doc, box, saved);
  }
  const incoming = model.inEdges[node.index].map(k => model.payload.edges[k]);
  const grads = edgeGradFacts(model, incoming, DETAIL_PREVIEW_CHARS);
  if (grads.length > 0) {
    box.appendChild(heading(doc, 'gradients to inputs'));
    appendRows(doc, box, grads);
  }
  if (p.source) {
    box.appendChild(heading(doc, 'source'));
    const where = p.source.file
      ? `${capText(p.source.file, 200)}:${p.source.line}`
      : `line ${p.source.line}`;
    appendRows(doc, box, [
      [where, capText(p.source.code, DETAIL_PREVIEW_CHARS)]
    ]);
  }
  return box;
}
