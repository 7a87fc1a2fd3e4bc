/**
 * The panels around the drawing: legend, tooltip and details contents. Everything from the
 * payload is untrusted text and goes through `textContent`; nothing is parsed as markup.
 */
import { IGraphModel, IPaths, IViewNode } from './graph';
import { ITrans } from './i18n';
import { findPlace, gridLine, IRect } from './place';
import {
  capLines,
  IDrawing,
  capText,
  DETAIL_PREVIEW_CHARS,
  drawShape,
  formatShape,
  svgEl,
  TOOLTIP_LINES,
  TOOLTIP_PREVIEW_CHARS
} from './render';
import { IGraphEdge, IGraphNode } from './schema';
import { GraphView } from './view';

/** Legend entries for node kinds: class of the swatch, English caption (a msgid). */
export const LEGEND: ReadonlyArray<[string, string]> = [
  ['jp-AutogradGraph-tensor', 'tensor'],
  ['jp-AutogradGraph-function', 'function (grad_fn)'],
  ['jp-AutogradGraph-accumulate', 'AccumulateGrad'],
  ['jp-AutogradGraph-collapsed', 'collapsed / repeated'],
  ['jp-AutogradGraph-tensor jp-mod-leafGrad', 'leaf, requires grad'],
  ['jp-AutogradGraph-tensor jp-mod-root', 'root'],
  ['jp-AutogradGraph-saved', 'saved for backward']
];

/** Legend entries for every edge style: classes of the swatch line, English caption. */
export const EDGE_LEGEND: ReadonlyArray<[string, string]> = [
  ['', 'data flow'],
  ['jp-mod-bundled', 'bundled (×k edges)'],
  ['jp-mod-downstream', 'path to the root'],
  ['jp-mod-upstream', 'path to the inputs'],
  ['jp-mod-flowing', 'gradient flowing now'],
  ['jp-mod-flowed', 'gradient passed'],
  ['jp-mod-saved', 'saved by the function']
];

function legendItem(
  doc: Document,
  swatch: SVGSVGElement,
  caption: string
): HTMLElement {
  const item = doc.createElement('span');
  item.className = 'jp-AutogradGraph-legendItem';
  item.appendChild(swatch);
  const label = doc.createElement('span');
  label.textContent = caption;
  item.appendChild(label);
  return item;
}

/** The legend: a small SVG swatch and a caption per node kind and per edge style. */
export function drawLegend(doc: Document, trans: ITrans): HTMLElement {
  const legend = doc.createElement('div');
  legend.className = 'jp-AutogradGraph-legend';
  for (const [cls, caption] of LEGEND) {
    const svg = svgEl(doc, 'svg', {
      width: 30,
      height: 18,
      'aria-hidden': 'true'
    });
    const g = svgEl(doc, 'g', {
      class: `jp-AutogradGraph-node ${cls}`,
      transform: 'translate(2,4)'
    });
    drawShape(doc, g, cls.split(' ')[0], 22, 12);
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
    legend.appendChild(legendItem(doc, svg, trans.__(caption)));
  }
  for (const [cls, caption] of EDGE_LEGEND) {
    const svg = svgEl(doc, 'svg', {
      width: 30,
      height: 18,
      'aria-hidden': 'true'
    });
    svg.appendChild(
      svgEl(doc, 'path', {
        class: cls
          ? `jp-AutogradGraph-legendEdge jp-AutogradGraph-legendEdge-${cls.slice(7)}`
          : 'jp-AutogradGraph-legendEdge',
        d: 'M2,9L28,9'
      })
    );
    const item = legendItem(doc, svg, trans.__(caption));
    item.dataset.edgeStyle = cls || 'plain';
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
  const also = (node.names ?? []).slice(1).map(n => `${n.name} (${n.kind})`);
  if (also.length > 0) {
    add('also', also.join('\n'));
  }
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
    add('backward visit', String(node.backward_step + 1));
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
  if (
    node.group &&
    (node.group.kind === 'repeat' || node.group.kind === 'module')
  ) {
    return capText(node.group.caption, 120);
  }
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
  node: IViewNode,
  trans: ITrans
): HTMLElement {
  const box = doc.createElement('div');
  box.appendChild(heading(doc, nodeTitle(model, node)));
  if (node.group) {
    appendRows(doc, box, [
      ['contains', capText(node.group.caption, TOOLTIP_PREVIEW_CHARS)]
    ]);
    appendRows(doc, box, [['', trans.__('double-click or press E to expand')]]);
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
    box.appendChild(heading(doc, trans.__('saved tensors')));
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
  node: IViewNode,
  trans: ITrans
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
    box.appendChild(heading(doc, trans.__('saved tensors')));
    appendRows(doc, box, saved);
  }
  const incoming = model.inEdges[node.index].map(k => model.payload.edges[k]);
  const grads = edgeGradFacts(model, incoming, DETAIL_PREVIEW_CHARS);
  if (grads.length > 0) {
    box.appendChild(heading(doc, trans.__('gradients to inputs')));
    appendRows(doc, box, grads);
  }
  if (p.source) {
    box.appendChild(heading(doc, trans.__('source')));
    const where = p.source.file
      ? `${capText(p.source.file, 200)}:${p.source.line}`
      : trans.__('line %1', p.source.line);
    appendRows(doc, box, [
      [where, capText(p.source.code, DETAIL_PREVIEW_CHARS)]
    ]);
  }
  return box;
}

/** The smallest a tooltip is shrunk to, to keep the highlighted path uncovered (px). */
const TIP_MIN_W = 140;
const TIP_MIN_H = 64;

/**
 * Place the tooltip beside node `v` (right, left, below or above its box, the first that fits
 * in the canvas, else anywhere on the canvas), covering no node (no label) where such a place
 * fits it; else off the node itself, the selected node and the highlighted path, covering the
 * fewest other nodes; where no such place fits it, shrunk to fit one (text clipped); where none
 * fits even then, the place covering least.
 */
export function placeTooltip(
  tip: HTMLElement,
  canvas: HTMLElement,
  drawing: IDrawing,
  v: number,
  paths: IPaths | null,
  selected = -1
): void {
  const box = canvas.getBoundingClientRect();
  const rel = (r: DOMRect) => ({
    l: r.left - box.left,
    t: r.top - box.top,
    r: r.right - box.left,
    b: r.bottom - box.top
  });
  const n = rel(drawing.nodeEls[v].getBoundingClientRect());
  // the hovered node, the selected one and its highlighted path stay visible
  const avoid = [n];
  const seen = new Set<number>([v]);
  const keep = (w: number) => {
    if (w >= 0 && w < drawing.nodeEls.length && !seen.has(w)) {
      seen.add(w);
      avoid.push(rel(drawing.nodeEls[w].getBoundingClientRect()));
    }
  };
  keep(selected);
  if (paths) {
    paths.downstreamNodes.forEach(keep);
    paths.upstreamNodes.forEach(keep);
  }
  const cw = canvas.clientWidth;
  const ch = canvas.clientHeight;
  // every other node on screen: its label is covered only where no place clears them all
  // (a tooltip over an unrelated node hid the tutorial's `y` behind AddBackward0's tooltip)
  const others: IRect[] = [];
  drawing.nodeEls.forEach((el, w) => {
    if (!seen.has(w)) {
      const o = rel(el.getBoundingClientRect());
      if (o.r > 0 && o.b > 0 && o.l < cw && o.t < ch) {
        others.push(o);
      }
    }
  });
  tip.style.maxWidth = '';
  tip.style.maxHeight = `${Math.max(60, Math.min(300, ch - 8))}px`;
  const tw0 = tip.offsetWidth;
  const th0 = tip.offsetHeight;
  const gap = 10;
  /** The best place for a tooltip of `tw` x `th`: beside the node first (right, left, below,
   * above), else anywhere on the canvas; least covered, then nearest the node. */
  const search = (tw: number, th: number) =>
    findPlace({
      w: tw,
      h: th,
      preferred: [
        { x: n.r + gap, y: n.t },
        { x: n.l - gap - tw, y: n.t },
        { x: n.l, y: n.b + gap },
        { x: n.l, y: n.t - gap - th }
      ],
      xs: gridLine(2, cw - tw - 2, 24),
      ys: gridLine(2, ch - th - 2, 24),
      // what must stay visible; the hovered node counts most
      avoid,
      firstWeight: 4,
      others,
      distance: (x, y) => Math.abs(x - n.l) + Math.abs(y - n.t),
      bounds: { l: 2, t: 2, r: cw - 2, b: ch - 2 }
    });
  // A tooltip too big for every free place is shrunk (its text clipped: the details panel shows
  // it all) to the largest size that fits one, down to a readable minimum; only where none fits
  // even then does it take the place covering least.
  let found = search(tw0, th0);
  let size = { w: tw0, h: th0 };
  if (found.cost > 0) {
    const sizes: { w: number; h: number }[] = [];
    for (const fw of [1, 0.8, 0.65, 0.5, 0.4]) {
      for (const fh of [1, 0.75, 0.55, 0.4]) {
        const w = Math.min(tw0, Math.max(TIP_MIN_W, Math.floor(tw0 * fw)));
        const h = Math.min(th0, Math.max(TIP_MIN_H, Math.floor(th0 * fh)));
        if ((w < tw0 || h < th0) && !sizes.some(s => s.w === w && s.h === h)) {
          sizes.push({ w, h });
        }
      }
    }
    sizes.sort((a, b) => b.w * b.h - a.w * a.h);
    for (const s of sizes) {
      const f = search(s.w, s.h);
      if (f.cost < found.cost) {
        found = f;
        size = s;
      }
      if (f.cost === 0) {
        break;
      }
    }
  }
  if (size.w < tw0) {
    tip.style.maxWidth = `${size.w}px`;
  }
  if (size.h < th0) {
    tip.style.maxHeight = `${size.h}px`;
  }
  tip.classList.toggle('jp-mod-clipped', size.w < tw0 || size.h < th0);
  tip.style.left = `${found.x}px`;
  tip.style.top = `${found.y}px`;
}

/** Fill the details panel `box` for view node `v` of `view` (-1: the hint and counts). */
export function fillDetails(
  doc: Document,
  box: HTMLElement,
  view: GraphView,
  v: number
): void {
  while (box.firstChild) {
    box.removeChild(box.firstChild);
  }
  if (v < 0 || v >= view.view.nodes.length) {
    const hint = doc.createElement('div');
    hint.className = 'jp-AutogradGraph-hint';
    hint.textContent = view.trans.__('Click a node to see its details.');
    box.appendChild(hint);
    const p = view.model.payload;
    const summary = doc.createElement('div');
    summary.className = 'jp-AutogradGraph-hint';
    const counts = view.trans.__(
      '%1 nodes, %2 edges.',
      p.nodes.length,
      p.edges.length
    );
    summary.textContent = `${p.title ? capText(p.title, 200) + ': ' : ''}${counts}`;
    box.appendChild(summary);
    return;
  }
  box.appendChild(
    buildDetails(doc, view.model, view.view.nodes[v], view.trans)
  );
  const k = view.replay.stepOf(v);
  if (k > 0 && view.chrome.buttons.has('play')) {
    const jump = doc.createElement('button');
    jump.type = 'button';
    jump.className = 'jp-AutogradGraph-button';
    jump.dataset.action = 'jump';
    jump.textContent = view.trans.__('Jump to its backward step (%1)', k);
    jump.addEventListener('click', () => view.replay.jumpTo(v));
    box.appendChild(jump);
  }
}
