/**
 * Layered layout of the visible graph, left to right (inputs left, root right) for shallow
 * graphs, top to bottom for deep ones, so text never has to shrink to fit a long chain.
 *
 * dagre gives the best drawings but its cost grows with the number of layers long edges cross;
 * above a measured budget a linear-time layered layout is used instead.
 */
import * as dagre from '@dagrejs/dagre';

/** dagre work units (nodes plus rank-crossing dummies) above which the layered layout is used:
 * dagre takes about 0.4 s at 800 units in headless Chromium on a 2-core machine, ~1 s at 2 000. */
export const DAGRE_MAX_COST = 800;

/** Gap between columns, in px. */
export const RANK_SEP = 36;
/** Gap between nodes of a column, in px. */
export const NODE_SEP = 14;
const MARGIN = 16;

/** Input of the layout: a size per node and edges as (source, target) index pairs. */
export interface ILayoutInput {
  widths: number[];
  heights: number[];
  sources: number[];
  targets: number[];
}

/** A point in layout coordinates. */
export interface IPoint {
  x: number;
  y: number;
}

/** Direction of the ranks: left to right or top to bottom. */
export type RankDir = 'LR' | 'TB';

/** Result: node centres, edge polylines and the drawing size. */
export interface ILayout {
  engine: 'dagre' | 'layered';
  rankdir: RankDir;
  x: Float64Array;
  y: Float64Array;
  widths: number[];
  heights: number[];
  /** Per edge: polyline points from source to target (dagre), or null for a direct curve. */
  points: (IPoint[] | null)[];
  width: number;
  height: number;
  /** Milliseconds the layout took. */
  ms: number;
  /** Cluster boxes (centre and size) by cluster id, where the engine placed clusters. */
  clusterBoxes?: Map<
    number,
    { x: number; y: number; width: number; height: number }
  >;
}

/** Layout engine choice: 'auto' picks dagre when its estimated cost fits the budget. */
export type LayoutEngine = 'auto' | 'dagre' | 'layered';

function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}

/**
 * Column of every node: longest path to a sink, counted from the right, so each input sits in
 * the column just left of its first consumer. Cycles (not expected) are broken arbitrarily.
 */
export function computeRanks(
  n: number,
  sources: number[],
  targets: number[]
): Int32Array {
  const out = new Int32Array(n);
  const preds: number[][] = Array.from({ length: n }, () => []);
  for (let k = 0; k < sources.length; k++) {
    out[sources[k]]++;
    preds[targets[k]].push(sources[k]);
  }
  const depth = new Int32Array(n);
  const done = new Uint8Array(n);
  const queue: number[] = [];
  for (let i = 0; i < n; i++) {
    if (out[i] === 0) {
      queue.push(i);
    }
  }
  let head = 0;
  let scan = 0;
  for (;;) {
    while (head < queue.length) {
      const v = queue[head++];
      done[v] = 1;
      for (const p of preds[v]) {
        if (depth[v] + 1 > depth[p]) {
          depth[p] = depth[v] + 1;
        }
        if (--out[p] === 0) {
          queue.push(p);
        }
      }
    }
    // Anything left sits on a cycle: release one node and carry on.
    while (scan < n && (done[scan] || out[scan] <= 0)) {
      scan++;
    }
    if (scan >= n) {
      break;
    }
    out[scan] = 0;
    queue.push(scan);
  }
  let maxDepth = 0;
  for (let i = 0; i < n; i++) {
    maxDepth = Math.max(maxDepth, depth[i]);
  }
  const rank = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    rank[i] = maxDepth - depth[i];
  }
  return rank;
}

/** Longest path from any source to each node (iterative; cycles broken arbitrarily). */
function longestFromSources(
  n: number,
  preds: number[][],
  succs: number[][]
): Int32Array {
  const indeg = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    indeg[i] = preds[i].length;
  }
  const depth = new Int32Array(n);
  const done = new Uint8Array(n);
  const queue: number[] = [];
  for (let i = 0; i < n; i++) {
    if (indeg[i] === 0) {
      queue.push(i);
    }
  }
  let head = 0;
  let scan = 0;
  for (;;) {
    while (head < queue.length) {
      const v = queue[head++];
      done[v] = 1;
      for (const w of succs[v]) {
        depth[w] = Math.max(depth[w], depth[v] + 1);
        if (--indeg[w] === 0) {
          queue.push(w);
        }
      }
    }
    while (scan < n && (done[scan] || indeg[scan] <= 0)) {
      scan++;
    }
    if (scan >= n) {
      break;
    }
    indeg[scan] = 0;
    queue.push(scan);
  }
  return depth;
}

/** dagre's work estimate: nodes plus one dummy per extra column an edge spans. */
export function dagreCost(
  n: number,
  sources: number[],
  targets: number[]
): number {
  const rank = computeRanks(n, sources, targets);
  let cost = n;
  for (let k = 0; k < sources.length; k++) {
    cost += Math.max(0, Math.abs(rank[targets[k]] - rank[sources[k]]) - 1);
  }
  return cost;
}

function dagreLayout(
  input: ILayoutInput,
  rankdir: RankDir,
  clusters?: ICluster[]
): ILayout {
  const t0 = now();
  const n = input.widths.length;
  const compound = !!clusters && clusters.length > 0;
  const g = new dagre.graphlib.Graph({ multigraph: false, compound });
  g.setGraph({
    rankdir,
    nodesep: NODE_SEP,
    ranksep: RANK_SEP,
    marginx: MARGIN,
    marginy: MARGIN
  });
  g.setDefaultEdgeLabel(() => ({}));
  for (let i = 0; i < n; i++) {
    g.setNode(String(i), { width: input.widths[i], height: input.heights[i] });
  }
  for (let k = 0; k < input.sources.length; k++) {
    g.setEdge(String(input.sources[k]), String(input.targets[k]));
  }
  if (compound) {
    // modules as dagre clusters, so each module's nodes are laid out together
    for (const c of clusters as ICluster[]) {
      g.setNode(`c${c.id}`, {});
      if (c.parent !== null) {
        g.setParent(`c${c.id}`, `c${c.parent}`);
      }
    }
    for (const c of clusters as ICluster[]) {
      for (const v of c.nodes) {
        g.setParent(String(v), `c${c.id}`);
      }
    }
  }
  dagre.layout(g);
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const node = g.node(String(i));
    x[i] = node.x ?? 0;
    y[i] = node.y ?? 0;
  }
  const points = input.sources.map((s, k) => {
    const e = g.edge(String(s), String(input.targets[k]));
    return e && e.points
      ? e.points.map((p: IPoint) => ({ x: p.x, y: p.y }))
      : null;
  });
  const graph = g.graph();
  let clusterBoxes;
  if (compound) {
    clusterBoxes = new Map();
    for (const c of clusters as ICluster[]) {
      const b = g.node(`c${c.id}`);
      if (b && b.width !== undefined) {
        clusterBoxes.set(c.id, {
          x: b.x as number,
          y: b.y as number,
          width: b.width as number,
          height: b.height as number
        });
      }
    }
  }
  return {
    engine: 'dagre',
    rankdir,
    clusterBoxes,
    x,
    y,
    widths: input.widths,
    heights: input.heights,
    points,
    width: graph.width ?? 0,
    height: graph.height ?? 0,
    ms: now() - t0
  };
}

/**
 * Linear-time layered layout: longest-path columns, barycentre ordering sweeps, then vertical
 * placement pulled towards neighbours. Edges are drawn as direct curves.
 */
export function layeredLayout(input: ILayoutInput): ILayout {
  const t0 = now();
  const n = input.widths.length;
  const { sources, targets, widths, heights } = input;
  const rank = computeRanks(n, sources, targets);
  let columns = 0;
  for (let i = 0; i < n; i++) {
    columns = Math.max(columns, rank[i] + 1);
  }
  const preds: number[][] = Array.from({ length: n }, () => []);
  const succs: number[][] = Array.from({ length: n }, () => []);
  for (let k = 0; k < sources.length; k++) {
    succs[sources[k]].push(targets[k]);
    preds[targets[k]].push(sources[k]);
  }
  // Initial order: depth-first from the sinks through the inputs, so subtrees stay together.
  const layers: number[][] = Array.from({ length: columns }, () => []);
  const seen = new Uint8Array(n);
  const stack: number[] = [];
  const starts: number[] = [];
  for (let i = 0; i < n; i++) {
    if (succs[i].length === 0) {
      starts.push(i);
    }
  }
  for (let i = 0; i < n; i++) {
    starts.push(i);
  }
  for (const s of starts) {
    if (seen[s]) {
      continue;
    }
    stack.push(s);
    while (stack.length > 0) {
      const v = stack.pop() as number;
      if (seen[v]) {
        continue;
      }
      seen[v] = 1;
      layers[rank[v]].push(v);
      for (let j = preds[v].length - 1; j >= 0; j--) {
        if (!seen[preds[v][j]]) {
          stack.push(preds[v][j]);
        }
      }
    }
  }
  const y = new Float64Array(n);
  const pack = (layer: number[]) => {
    let cur = 0;
    for (const v of layer) {
      y[v] = cur + heights[v] / 2;
      cur += heights[v] + NODE_SEP;
    }
  };
  layers.forEach(pack);
  const bary = new Float64Array(n);
  const sweep = (fromRight: boolean, neighbours: number[][]) => {
    for (let c = 0; c < columns; c++) {
      const layer = layers[fromRight ? columns - 1 - c : c];
      for (const v of layer) {
        let sum = 0;
        let cnt = 0;
        for (const w of neighbours[v]) {
          sum += y[w];
          cnt++;
        }
        bary[v] = cnt > 0 ? sum / cnt : y[v];
      }
      layer.sort((a, b) => bary[a] - bary[b]);
      place(layer);
    }
  };
  // Place a column in order, each node as near its wish (bary) as the spacing allows.
  // Place a column in order: its best-connected node exactly at its wish (so the main chain
  // stays straight), the others as near theirs as the spacing allows, packing outwards.
  // The spine is where the longest input path runs; ties go to the better connected node.
  const spine = longestFromSources(n, preds, succs);
  const better = (a: number, b: number) =>
    spine[a] !== spine[b]
      ? spine[a] > spine[b]
      : preds[a].length + succs[a].length > preds[b].length + succs[b].length;
  const place = (layer: number[]) => {
    if (layer.length === 0) {
      return;
    }
    let anchor = 0;
    for (let j = 1; j < layer.length; j++) {
      if (better(layer[j], layer[anchor])) {
        anchor = j;
      }
    }
    y[layer[anchor]] = bary[layer[anchor]];
    let bottom = y[layer[anchor]] + heights[layer[anchor]] / 2;
    for (let j = anchor + 1; j < layer.length; j++) {
      const v = layer[j];
      y[v] = Math.max(bary[v], bottom + NODE_SEP + heights[v] / 2);
      bottom = y[v] + heights[v] / 2;
    }
    let top = y[layer[anchor]] - heights[layer[anchor]] / 2;
    for (let j = anchor - 1; j >= 0; j--) {
      const v = layer[j];
      y[v] = Math.min(bary[v], top - NODE_SEP - heights[v] / 2);
      top = y[v] - heights[v] / 2;
    }
  };
  for (let it = 0; it < 2; it++) {
    sweep(true, succs);
    sweep(false, preds);
  }
  sweep(true, succs);
  // Columns: x from accumulated column widths.
  const colWidth = new Float64Array(columns);
  for (let i = 0; i < n; i++) {
    colWidth[rank[i]] = Math.max(colWidth[rank[i]], widths[i]);
  }
  const colX = new Float64Array(columns);
  let cx = MARGIN;
  for (let c = 0; c < columns; c++) {
    colX[c] = cx + colWidth[c] / 2;
    cx += colWidth[c] + RANK_SEP;
  }
  const x = new Float64Array(n);
  let minY = Infinity;
  let maxY = -Infinity;
  for (let i = 0; i < n; i++) {
    x[i] = colX[rank[i]];
    minY = Math.min(minY, y[i] - heights[i] / 2);
    maxY = Math.max(maxY, y[i] + heights[i] / 2);
  }
  if (n === 0) {
    minY = 0;
    maxY = 0;
  }
  for (let i = 0; i < n; i++) {
    y[i] += MARGIN - minY;
  }
  return {
    engine: 'layered',
    rankdir: 'LR',
    x,
    y,
    widths,
    heights,
    points: sources.map(() => null),
    width: Math.max(cx - RANK_SEP + MARGIN, 2 * MARGIN),
    height: maxY - minY + 2 * MARGIN,
    ms: now() - t0
  };
}

/** A group of nodes laid out together (a module), with its parent cluster's id or null. */
export interface ICluster {
  id: number;
  parent: number | null;
  /** Node indices directly in this cluster (not in a child cluster). */
  nodes: number[];
}

/** The layered layout top to bottom: laid out left to right on swapped axes, then turned. */
function layeredTB(input: ILayoutInput): ILayout {
  const turned = layeredLayout({
    widths: input.heights,
    heights: input.widths,
    sources: input.sources,
    targets: input.targets
  });
  return {
    ...turned,
    rankdir: 'TB',
    x: turned.y,
    y: turned.x,
    widths: input.widths,
    heights: input.heights,
    width: turned.height,
    height: turned.width
  };
}

/**
 * Left to right when the ranks fit side by side in `available` pixels at full size, else top
 * to bottom (a deep graph scrolls down instead of shrinking).
 */
export function chooseRankdir(input: ILayoutInput, available: number): RankDir {
  const n = input.widths.length;
  const rank = computeRanks(n, input.sources, input.targets);
  const colWidth = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    colWidth.set(
      rank[i],
      Math.max(colWidth.get(rank[i]) ?? 0, input.widths[i])
    );
  }
  let width = 2 * MARGIN - RANK_SEP;
  colWidth.forEach(w => (width += w + RANK_SEP));
  return width <= available ? 'LR' : 'TB';
}

/** Lay out a graph with the chosen engine ('auto': dagre when {@link dagreCost} allows). */
export function layoutGraph(
  input: ILayoutInput,
  engine: LayoutEngine = 'auto',
  rankdir: RankDir = 'LR',
  clusters?: ICluster[]
): ILayout {
  const n = input.widths.length;
  const useDagre =
    engine === 'dagre' ||
    (engine === 'auto' &&
      dagreCost(n, input.sources, input.targets) <= DAGRE_MAX_COST);
  if (useDagre) {
    return dagreLayout(input, rankdir, clusters);
  }
  return rankdir === 'TB' ? layeredTB(input) : layeredLayout(input);
}

/** A layout point as drawn: mirrored along the rank axis in backward direction. */
export function drawnPoint(
  layout: ILayout,
  p: IPoint,
  backward: boolean
): IPoint {
  if (!backward) {
    return p;
  }
  return layout.rankdir === 'TB'
    ? { x: p.x, y: layout.height - p.y }
    : { x: layout.width - p.x, y: p.y };
}

/** Centre of node `v` as drawn. */
export function nodeCentre(
  layout: ILayout,
  v: number,
  backward: boolean
): IPoint {
  return drawnPoint(layout, { x: layout.x[v], y: layout.y[v] }, backward);
}
