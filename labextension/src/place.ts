/**
 * Free-place search: where a box of a given size covers least of what must stay visible (node
 * boxes, labels already placed), then least of what should, then lies nearest where it belongs.
 * The tooltip and the edge labels (gradients during and after the backward replay, "×k" counts
 * of bundled edges) are placed with it.
 */
import { IPoint } from './layout';

/** A box as left, top, right, bottom. */
export interface IRect {
  l: number;
  t: number;
  r: number;
  b: number;
}

/** Area of the intersection of box (x, y, w, h) with `a`. */
function overlapArea(
  x: number,
  y: number,
  w: number,
  h: number,
  a: IRect
): number {
  const ow = Math.min(x + w, a.r) - Math.max(x, a.l);
  const oh = Math.min(y + h, a.b) - Math.max(y, a.t);
  return ow > 0 && oh > 0 ? ow * oh : 0;
}

/** What to place and where it may go. */
export interface IPlaceQuery {
  /** Size of the box. */
  w: number;
  h: number;
  /** Top-left corners tried first, in order: the first covering nothing is taken at once. */
  preferred: IPoint[];
  /** Then every top-left corner of this grid (the best of them is taken). */
  xs: number[];
  ys: number[];
  /** What must stay visible; the first counts `firstWeight` times (default 1). */
  avoid: IRect[];
  firstWeight?: number;
  /** What should stay visible where a place clears `avoid`. */
  others?: IRect[];
  /** Distance of top-left corner (x, y) from where the box belongs: ties go to the nearest. */
  distance(x: number, y: number): number;
  /** Where the box must lie (where it does not fit, its left or top edge is kept inside). */
  bounds?: IRect;
  /** Which top-left corners may be taken at all (default: every one). */
  accept?(x: number, y: number): boolean;
}

/** The chosen top-left corner and what it covers. */
export interface IPlace {
  x: number;
  y: number;
  /** Covered area of `avoid` (weighted), and of `others`. */
  cost: number;
  other: number;
}

/**
 * The place covering least of `avoid`, then least of `others`, then nearest: the first free
 * preferred corner, else the best of the grid.
 */
export function findPlace(q: IPlaceQuery): IPlace {
  const { w, h, bounds } = q;
  const first = q.firstWeight ?? 1;
  const others = q.others ?? [];
  const clamp = (v: number, lo: number, hi: number, size: number) =>
    Math.max(lo, Math.min(hi - size, v));
  const cx = (x: number) => (bounds ? clamp(x, bounds.l, bounds.r, w) : x);
  const cy = (y: number) => (bounds ? clamp(y, bounds.t, bounds.b, h) : y);
  const covered = (x: number, y: number, rs: IRect[], weight: number) => {
    let sum = 0;
    for (let i = 0; i < rs.length; i++) {
      const a = overlapArea(x, y, w, h, rs[i]);
      if (a > 0) {
        sum += i === 0 ? a * weight : a;
      }
    }
    return sum;
  };
  let best: IPlace = { x: 0, y: 0, cost: Infinity, other: Infinity };
  let dist = Infinity;
  const consider = (x0: number, y0: number) => {
    const x = cx(x0);
    const y = cy(y0);
    const c = covered(x, y, q.avoid, first);
    if (c > best.cost || (q.accept && !q.accept(x, y))) {
      return;
    }
    const o = covered(x, y, others, 1);
    if (c === best.cost && o > best.other) {
      return;
    }
    const d = q.distance(x, y);
    if (c < best.cost || o < best.other || d < dist) {
      best = { x, y, cost: c, other: o };
      dist = d;
    }
  };
  for (const p of q.preferred) {
    consider(p.x, p.y);
    if (best.cost === 0 && best.other === 0) {
      return best;
    }
  }
  for (const x of q.xs) {
    for (const y of q.ys) {
      consider(x, y);
    }
  }
  return best;
}

/** `from`, `to` and the values between them `step` apart. */
export function gridLine(from: number, to: number, step: number): number[] {
  const out = [from, to];
  for (let v = from + step; v < to; v += step) {
    out.push(v);
  }
  return out;
}

/** Whether two boxes intersect. */
export function intersects(a: IRect, b: IRect): boolean {
  return a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b;
}
