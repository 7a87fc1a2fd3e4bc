/**
 * Pure functions from a view and its layout to DOM: the SVG drawing, the legend, tooltip and
 * detail contents. Everything from the payload is untrusted text and goes through
 * `textContent` or attribute values we choose; nothing is parsed as markup.
 */
import { IGraphModel, IGraphView, isSavedEdge, IViewNode } from './graph';
import {
  drawingBounds,
  edgeCurve,
  edgePoints,
  LabelPlacer
} from './edgelabels';
import { drawnPoint, ILayout, IPoint, nodeCentre } from './layout';
import { IRect } from './place';
import { IGraphNode } from './schema';

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

/** Font size in px at zoom 1 of node labels (and of every other text of the view, base.css):
 * the view never draws them smaller than 11 px. */
export const LABEL_FONT_PX = 12;
const CHAR_WIDTH = 7.3;
const LINE_HEIGHT = 16;
const PAD_X = 10;
const PAD_Y = 7;
const MIN_WIDTH = 56;
const ELLIPSIS = '…';
/** Radius of a visit badge: two 12 px digits fit its circle. */
const BADGE_R = 10;

/** Half the width of a visit badge of `digits` digits (12 px, about 7.5 px a digit). */
function badgeHalf(digits: number): number {
  return digits <= 2 ? BADGE_R : 3.75 * digits + 4;
}

// where a layout point is drawn, kept here too for the modules that import them from here
export { drawnPoint, nodeCentre };

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
  const p = model.nodes[node.index];
  return p.saved_of !== undefined
    ? 'jp-AutogradGraph-saved'
    : `jp-AutogradGraph-${p.kind}`;
}

export function svgEl<K extends keyof SVGElementTagNameMap>(
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

export function round(v: number): number {
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
  const m = (p: IPoint) => drawnPoint(layout, p, backward);
  if (points && points.length >= 2) {
    const pts = (backward ? points.slice().reverse() : points).map(m);
    let d = `M${round(pts[0].x)},${round(pts[0].y)}`;
    if (pts.length === 2) {
      return d + `L${round(pts[1].x)},${round(pts[1].y)}`;
    }
    // Quadratic smoothing through the midpoints of the dagre polyline.
    for (let i = 1; i < pts.length - 1; i++) {
      const mx = (pts[i].x + pts[i + 1].x) / 2;
      const my = (pts[i].y + pts[i + 1].y) / 2;
      const end = i === pts.length - 2 ? pts[i + 1] : { x: mx, y: my };
      d += `Q${round(pts[i].x)},${round(pts[i].y)} ${round(end.x)},${round(end.y)}`;
    }
    return d;
  }
  const [p, c1, c2, q] = edgeCurve(layout, source, target, backward);
  return (
    `M${round(p.x)},${round(p.y)}C${round(c1.x)},${round(c1.y)} ` +
    `${round(c2.x)},${round(c2.y)} ${round(q.x)},${round(q.y)}`
  );
}

/** Middle of view edge `k` as drawn. */
export function edgeMidpoint(
  layout: ILayout,
  k: number,
  source: number,
  target: number,
  backward: boolean
): IPoint {
  const pts = layout.points[k];
  const mid =
    pts && pts.length > 0
      ? pts[Math.floor(pts.length / 2)]
      : {
          x: (layout.x[source] + layout.x[target]) / 2,
          y: (layout.y[source] + layout.y[target]) / 2
        };
  return drawnPoint(layout, mid, backward);
}

/** Top-left translation of node `v` in the current direction. */
export function nodeTransform(
  layout: ILayout,
  v: number,
  backward: boolean
): string {
  const c = nodeCentre(layout, v, backward);
  return `translate(${round(c.x - layout.widths[v] / 2)},${round(c.y - layout.heights[v] / 2)})`;
}

export function drawShape(
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
    const rx =
      cls === 'jp-AutogradGraph-tensor' || cls === 'jp-AutogradGraph-saved'
        ? Math.min(12, h / 2)
        : 1;
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
  /** The group module boxes are drawn into (behind the edges). */
  boxes: SVGGElement;
  edgeEls: SVGPathElement[];
  /** What edge labels must not cover: node boxes (with leaf marks), count labels and module
   * titles, in drawing coordinates. */
  obstacles: IRect[];
  /** Box of each view node's visit badge (shown once backward has run the node), or null. */
  badges: (IRect | null)[];
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
  backward: boolean,
  decor: IDecor = { visits: new Map() }
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
  const boxesG = svgEl(doc, 'g', { class: 'jp-AutogradGraph-modules' });
  viewport.appendChild(boxesG);
  viewport.appendChild(edgesG);
  viewport.appendChild(countG);
  viewport.appendChild(nodesG);
  viewport.appendChild(edgeLabels);

  const countLabels: SVGTextElement[] = [];
  const { obstacles, badges } = nodeObstacles(
    model,
    view,
    layout,
    backward,
    decor
  );
  // a count label stays all along: clear of every badge, shown or not yet
  const placer = new LabelPlacer(
    obstacles.concat(badges.filter((b): b is IRect => b !== null)),
    drawingBounds(layout)
  );
  const edgeEls = view.edges.map((e, k) => {
    const path = svgEl(doc, 'path', {
      class: isSavedEdge(model, view, k)
        ? 'jp-AutogradGraph-edge jp-mod-saved'
        : e.count > 1
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
      const text = `×${e.count}`;
      const at = placer.place(
        [text],
        edgePoints(layout, k, e.source, e.target, backward),
        { x: mid.x, y: mid.y - 3 }
      ) as IPoint;
      const label = svgEl(doc, 'text', {
        class: 'jp-AutogradGraph-countLabel',
        x: round(at.x),
        y: round(at.y),
        'data-edge': k
      });
      label.textContent = text;
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
    const visit = decor.visits.get(v);
    if (visit !== undefined) {
      // the backward visit number, shown once backward has run the node
      const badge = svgEl(doc, 'g', { class: 'jp-AutogradGraph-badge' });
      const digits = String(visit).length;
      badge.appendChild(
        digits <= 2
          ? svgEl(doc, 'circle', { cx: 0, cy: 0, r: BADGE_R })
          : svgEl(doc, 'rect', {
              x: -badgeHalf(digits),
              y: -BADGE_R,
              width: 2 * badgeHalf(digits),
              height: 2 * BADGE_R,
              rx: BADGE_R
            })
      );
      const t = svgEl(doc, 'text', { x: 0, y: 4.4 });
      t.textContent = String(visit);
      badge.appendChild(t);
      g.appendChild(badge);
    }
    nodesG.appendChild(g);
    return g;
  });
  countLabels.forEach(l => countG.appendChild(l));
  return {
    svg,
    viewport,
    edgeLabels,
    nodeEls,
    edgeEls,
    countLabels,
    boxes: boxesG,
    obstacles: obstacles.concat(placer.placed),
    badges
  };
}

/** Boxes of the drawn nodes (with leaf marks and stacked backs) and of their visit badges. */
function nodeObstacles(
  model: IGraphModel,
  view: IGraphView,
  layout: ILayout,
  backward: boolean,
  decor: IDecor
): { obstacles: IRect[]; badges: (IRect | null)[] } {
  const out: IRect[] = [];
  const badges: (IRect | null)[] = [];
  view.nodes.forEach((node, v) => {
    const c = nodeCentre(layout, v, backward);
    const l = c.x - layout.widths[v] / 2;
    const t = c.y - layout.heights[v] / 2;
    const r = l + layout.widths[v];
    const cls = kindClass(model, node);
    // the back of a collapsed or group node shows 4 px up and right
    const stacked =
      cls === 'jp-AutogradGraph-group' || cls === 'jp-AutogradGraph-collapsed'
        ? 4
        : 0;
    out.push({
      l: l - 1,
      t: t - 1 - stacked,
      r: r + 1 + stacked,
      b: t + layout.heights[v] + 1
    });
    const visit = decor.visits.get(v);
    const half = badgeHalf(String(visit).length);
    badges.push(
      visit === undefined
        ? null
        : { l: l - half, t: t - BADGE_R, r: l + half, b: t + BADGE_R }
    );
    const p = node.index >= 0 ? model.nodes[node.index] : null;
    if (p && isLeafRequiringGrad(p)) {
      out.push({ l: r - 5, t: t - 5, r: r + 5, b: t + 5 });
    }
  });
  return { obstacles: out, badges };
}

/** What is drawn besides nodes and edges: visit numbers by view node. */
export interface IDecor {
  /** 1-based backward visit number of view nodes backward ran. */
  visits: Map<number, number>;
}
