/**
 * Where edge labels go: gradient values and shapes during and after the backward replay, and the
 * "×k" counts of bundled edges. Each is placed beside its own edge with the free-place search of
 * {@link findPlace}, covering no node box (its label, visit badge, leaf mark), no module title
 * and no label placed before it, where such a place lies near the edge; two sibling gradients
 * flowing into one node were drawn on top of each other at the edges' shared midpoint.
 *
 * Coordinates are the drawing's (layout units, as drawn in the current direction); sizes are
 * estimated from the text (monospace cells), never measured, so placing forces no layout.
 */
import { drawnPoint, ILayout, IPoint } from './layout';
import { findPlace, gridLine, IPlace, IRect, intersects } from './place';

/** Font size of edge and count labels (base.css), in drawing units. */
export const EDGE_LABEL_PX = 12;
/** Advance of one monospace cell, in em: DejaVu Sans Mono and Menlo 0.60, Consolas 0.55. */
const CELL_EM = 0.62;
/** Extent of the text box above and below the baseline, with its 1.5 px halo. */
export const ASCENT = 12;
const DESCENT = 3;
/** Space kept between a label and an edge it sits beside. */
const GAP = 3;
/** Farthest a label may lie from its edge and still count as beside it. */
const NEAR = 6;

/** Monospace columns of `text`: East Asian wide characters and emoji take two. */
function columns(text: string): number {
  let n = 0;
  for (const ch of text) {
    n += (ch.codePointAt(0) as number) >= 0x1100 ? 2 : 1;
  }
  return n;
}

/** Estimated box size of a label of `text`. */
export function labelSize(text: string): { w: number; h: number } {
  return {
    w: Math.ceil(columns(text) * CELL_EM * EDGE_LABEL_PX) + 4,
    h: ASCENT + DESCENT
  };
}

/** The point `f` (0..1) of the way along a polyline, by length. */
function along(points: IPoint[], f: number): IPoint {
  let total = 0;
  for (let i = 1; i < points.length; i++) {
    total += Math.hypot(
      points[i].x - points[i - 1].x,
      points[i].y - points[i - 1].y
    );
  }
  let left = total * f;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1];
    const b = points[i];
    const len = Math.hypot(b.x - a.x, b.y - a.y);
    if (len > 0 && left <= len) {
      const t = left / len;
      return { x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t };
    }
    left -= len;
  }
  return points[points.length - 1];
}

/** Points along a polyline, about every 6 units (at most 80). */
function samples(points: IPoint[]): IPoint[] {
  const out: IPoint[] = [points[0]];
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1];
    const b = points[i];
    const n = Math.min(
      Math.ceil(80 / points.length),
      Math.max(1, Math.ceil(Math.hypot(b.x - a.x, b.y - a.y) / 6))
    );
    for (let k = 1; k <= n; k++) {
      out.push({
        x: a.x + ((b.x - a.x) * k) / n,
        y: a.y + ((b.y - a.y) * k) / n
      });
    }
  }
  return out;
}

/** Bounding box of points. */
function extent(points: IPoint[]): IRect {
  const xs = points.map(p => p.x);
  const ys = points.map(p => p.y);
  return {
    l: Math.min(...xs),
    t: Math.min(...ys),
    r: Math.max(...xs),
    b: Math.max(...ys)
  };
}

/** Distance from the box (x, y, w, h) to the nearest of `line`'s points. */
function boxDistance(
  line: IPoint[],
  x: number,
  y: number,
  w: number,
  h: number
): number {
  let best = Infinity;
  for (const p of line) {
    const dx = Math.max(x - p.x, 0, p.x - x - w);
    const dy = Math.max(y - p.y, 0, p.y - y - h);
    best = Math.min(best, dx * dx + dy * dy);
  }
  return Math.sqrt(best);
}

/** Distance from `p` to a polyline. */
function toPolyline(points: IPoint[], p: IPoint): number {
  let best = Infinity;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1];
    const dx = points[i].x - a.x;
    const dy = points[i].y - a.y;
    const len2 = dx * dx + dy * dy;
    const t =
      len2 > 0
        ? Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2))
        : 0;
    best = Math.min(best, Math.hypot(p.x - a.x - t * dx, p.y - a.y - t * dy));
  }
  return best;
}

/** Places the labels of one drawing, one after another, each clear of those before it. */
export class LabelPlacer {
  /**
   * @param obstacles what no label may cover (node boxes, module titles, fixed labels)
   * @param bounds the drawing's extent: labels stay inside it where they fit
   */
  constructor(obstacles: IRect[], bounds: IRect) {
    this._obstacles = obstacles;
    this._bounds = bounds;
  }

  /** Boxes of the labels placed so far. */
  readonly placed: IRect[] = [];

  /**
   * Place a label for the edge drawn through `points` (at least two), preferring `anchor` (text
   * centre and baseline). `texts` are its wordings, longest first. Beside its own edge comes
   * first, in the longest wording that finds a free place there (a shortened gradient beside its
   * edge reads better than a whole one by another edge); else the free place nearest the edge.
   * Where none is free, an `optional` label is not placed (null); another takes the place
   * covering least.
   */
  place(
    texts: string[],
    points: IPoint[],
    anchor: IPoint,
    optional = false
  ): { x: number; y: number; text: string } | null {
    const line = samples(points);
    let best = null;
    // reach 0: touching the edge; 1 and 3: the edge's neighbourhood, then a wider one
    const tiers: [string, number][] = texts.map(t => [t, 0]);
    tiers.push([texts[0], 1], [texts[0], 3]);
    for (const [text, reach] of tiers) {
      const f = this._search(text, points, line, anchor, reach);
      if (!best || f.cost < best.cost) {
        best = f;
      }
      if (best.cost === 0) {
        break;
      }
    }
    if (!best || (optional && best.cost > 0)) {
      return null;
    }
    const { x, y, w, h, text } = best;
    this.placed.push({ l: x, t: y, r: x + w, b: y + h });
    return { x: x + w / 2, y: y + ASCENT, text };
  }

  /** The best top-left corner for `text`: touching the edge (`reach` 0), else within `reach`
   * times the neighbourhood of its middle. */
  private _search(
    text: string,
    points: IPoint[],
    line: IPoint[],
    anchor: IPoint,
    reach: number
  ): IPlace & { w: number; h: number; text: string } {
    const { w, h } = labelSize(text);
    const mid = along(points, 0.5);
    // top-left corners: the usual spot first, then centred on the edge and beside it
    const preferred: IPoint[] = [{ x: anchor.x - w / 2, y: anchor.y - ASCENT }];
    for (const f of reach === 0 ? [0.5, 0.35, 0.65, 0.2, 0.8] : []) {
      const p = along(points, f);
      preferred.push(
        { x: p.x - w / 2, y: p.y - h / 2 },
        { x: p.x + GAP, y: p.y - h / 2 },
        { x: p.x - GAP - w, y: p.y - h / 2 },
        { x: p.x - w / 2, y: p.y - GAP - h },
        { x: p.x - w / 2, y: p.y + GAP }
      );
    }
    // near the edge and its middle; ties go to the nearest
    const distance = (x: number, y: number) => {
      const c = { x: x + w / 2, y: y + h / 2 };
      return (
        toPolyline(points, c) + 0.35 * Math.hypot(c.x - mid.x, c.y - mid.y)
      );
    };
    // a grid of at most about 80 x 60 corners (long edges get a coarser one)
    const grid = (from: number, to: number, step: number, most: number) =>
      gridLine(from, to, Math.max(step, (to - from) / most));
    let xs: number[];
    let ys: number[];
    if (reach === 0) {
      const e = extent(line);
      xs = grid(e.l - w - NEAR, e.r + NEAR, 4, 80);
      ys = grid(e.t - h - NEAR, e.b + NEAR, 3, 60);
    } else {
      const rx = (w + 48) * reach;
      const ry = (h + 48) * reach;
      xs = grid(mid.x - w / 2 - rx, mid.x - w / 2 + rx, 6 * reach, 80);
      ys = grid(mid.y - h / 2 - ry, mid.y - h / 2 + ry, 3 * reach, 60);
    }
    const region = { l: Infinity, t: Infinity, r: -Infinity, b: -Infinity };
    for (const p of preferred.concat([
      { x: xs[0], y: ys[0] },
      { x: xs[1], y: ys[1] }
    ])) {
      region.l = Math.min(region.l, p.x);
      region.t = Math.min(region.t, p.y);
      region.r = Math.max(region.r, p.x + w);
      region.b = Math.max(region.b, p.y + h);
    }
    const avoid = this._obstacles
      .filter(r => intersects(r, region))
      .concat(this.placed.filter(r => intersects(r, region)));
    const found = findPlace({
      w,
      h,
      preferred,
      xs,
      ys,
      avoid,
      distance,
      bounds: this._bounds,
      accept:
        reach === 0
          ? (x, y) => boxDistance(line, x, y, w, h) <= NEAR
          : undefined
    });
    return { ...found, w, h, text };
  }

  private _obstacles: IRect[];
  private _bounds: IRect;
}

/**
 * The direct curve of an edge without dagre points, as drawn: from the source's far side to the
 * target's near side, along the ranks (start, two control points, end).
 */
export function edgeCurve(
  layout: ILayout,
  source: number,
  target: number,
  backward: boolean
): IPoint[] {
  const m = (p: IPoint) => drawnPoint(layout, p, backward);
  const tb = layout.rankdir === 'TB';
  const a = m(
    tb
      ? {
          x: layout.x[source],
          y: layout.y[source] + layout.heights[source] / 2
        }
      : { x: layout.x[source] + layout.widths[source] / 2, y: layout.y[source] }
  );
  const b = m(
    tb
      ? {
          x: layout.x[target],
          y: layout.y[target] - layout.heights[target] / 2
        }
      : { x: layout.x[target] - layout.widths[target] / 2, y: layout.y[target] }
  );
  const [p, q] = backward ? [b, a] : [a, b];
  if (tb) {
    const dy = Math.max(20, Math.abs(q.y - p.y) / 2) * (q.y >= p.y ? 1 : -1);
    return [p, { x: p.x, y: p.y + dy }, { x: q.x, y: q.y - dy }, q];
  }
  const dx = Math.max(20, Math.abs(q.x - p.x) / 2) * (q.x >= p.x ? 1 : -1);
  return [p, { x: p.x + dx, y: p.y }, { x: q.x - dx, y: q.y }, q];
}

/** View edge `k` as drawn, as a polyline (a direct curve sampled), for placing its labels. */
export function edgePoints(
  layout: ILayout,
  k: number,
  source: number,
  target: number,
  backward: boolean
): IPoint[] {
  const pts = layout.points[k];
  if (pts && pts.length >= 2) {
    return pts.map(p => drawnPoint(layout, p, backward));
  }
  const [p, c1, c2, q] = edgeCurve(layout, source, target, backward);
  const out: IPoint[] = [];
  for (let i = 0; i <= 8; i++) {
    const t = i / 8;
    const u = 1 - t;
    const [k0, k1, k2, k3] = [
      u * u * u,
      3 * u * u * t,
      3 * u * t * t,
      t * t * t
    ];
    out.push({
      x: k0 * p.x + k1 * c1.x + k2 * c2.x + k3 * q.x,
      y: k0 * p.y + k1 * c1.y + k2 * c2.y + k3 * q.y
    });
  }
  return out;
}

/** The drawing's extent: edge labels stay inside it (and so in the fit view and exports). */
export function drawingBounds(layout: ILayout): IRect {
  return { l: 0, t: 0, r: layout.width, b: layout.height };
}
