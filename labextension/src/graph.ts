/**
 * Pure graph logic over a checked payload: adjacency, collapsed groups (chains, subgraphs and
 * size overflow), the visible view, path highlighting and backward replay. No DOM, no Lumino.
 *
 * Every traversal is iterative, so a 100 000-node chain cannot overflow the call stack.
 */
import {
  IGraphEdge,
  IGraphNode,
  IGraphPayload,
  IModule,
  ISavedTensor
} from './schema';

/** Most nodes drawn at once; beyond that the view collapses (test plan G3). */
export const MAX_VISIBLE_NODES = 2000;

/** Shortest run of single-input, single-output nodes that "Collapse chains" folds. */
export const MIN_CHAIN_LENGTH = 3;

/** Fewest nodes an expand reveals, even when the view is already at its budget. */
export const MIN_EXPAND_NODES = 50;

/** A repeated run of at least this many nodes opens folded (Python's view.FOLD_MIN_NODES). */
export const FOLD_MIN_NODES = 24;

/** Graphs with more nodes than this open with their innermost modules collapsed. */
export const MODULE_FOLD_NODES = 60;

/** Indexed form of a payload: nodes by index, edges as index pairs with adjacency lists. */
export interface IGraphModel {
  payload: IGraphPayload;
  nodes: IGraphNode[];
  index: Map<string, number>;
  edgeSource: Int32Array;
  edgeTarget: Int32Array;
  /** Edge indices leaving each node (data flow: towards the root). */
  outEdges: number[][];
  /** Edge indices entering each node (from its inputs). */
  inEdges: number[][];
  /** Node indices to start from: payload roots, then any other sink. */
  roots: number[];
  /** backward_order as node indices, unknown ids dropped. */
  backwardOrder: number[];
  /** Modules by id. */
  modules: Map<string, IModule>;
  /** Node indices of each module, its submodules' included. */
  moduleMembers: Map<string, number[]>;
  /** For a drawn saved tensor (show_saved), its function's node index; else -1. */
  savedOwner: Int32Array;
}

/** Why a synthetic group exists. */
export type GroupKind = 'chain' | 'subgraph' | 'overflow' | 'repeat' | 'module';

/** A renderer-side collapsed set of nodes, drawn as one node until expanded. */
export interface ICollapsedGroup {
  key: string;
  kind: GroupKind;
  /** Real node indices inside (including those of nested children). */
  members: number[];
  /** Groups absorbed by this one; re-activated when it is expanded. */
  children: ICollapsedGroup[];
  /** Short description, e.g. "inputs of AddBackward0". */
  caption: string;
  /** Repeat groups: how many iterations it stands for. */
  count?: number;
  /** The payload repeat or module it came from. */
  source?: string;
}

/** One drawn node: a payload node or an active collapsed group. */
export interface IViewNode {
  key: string;
  /** Payload node index, or -1 for a synthetic group. */
  index: number;
  group: ICollapsedGroup | null;
}

/** One drawn edge, merging every payload edge between the same two drawn nodes. */
export interface IViewEdge {
  source: number;
  target: number;
  /** Payload edge indices it stands for. */
  edges: number[];
  /** How many edges of the traced graph it stands for (bundled edges count more). */
  count: number;
}

/** The visible graph for a model and a collapse state. */
export interface IGraphView {
  nodes: IViewNode[];
  edges: IViewEdge[];
  byKey: Map<string, number>;
  /** Payload node index -> view node index. */
  viewOf: Int32Array;
  outEdges: number[][];
  inEdges: number[][];
}

/** Whether a saved entry is a tensor (drawn as a node), not a Python value like `alpha`. */
function isSavedTensor(s: ISavedTensor): boolean {
  return (
    (s.dtype !== undefined && s.dtype !== null) ||
    (typeof s.value === 'string' && s.value.startsWith('<freed'))
  );
}

/** Label of a saved tensor's node: `self` for `_saved_self`, and its shape. */
function savedLabel(s: ISavedTensor, drawnAs: IGraphNode | undefined): string {
  const short = s.name.replace(/^_saved_/, '') || s.name;
  const name = drawnAs?.name ? `${short} = ${drawnAs.name}` : short;
  const shape = s.shape
    ? s.shape.length === 1
      ? `(${s.shape[0]},)`
      : `(${s.shape.join(', ')})`
    : s.dtype
      ? ''
      : 'freed';
  return shape ? `${name}\n${shape}` : name;
}

/**
 * The payload with its saved tensors as nodes, when it asks for `show_saved` (as torchviz's
 * `show_saved`): one small node per saved tensor, joined to its function by a dotted edge.
 * Python values a function saves (`alpha`, `dim`) stay in the tooltip and details.
 */
export function withSavedNodes(payload: IGraphPayload): IGraphPayload {
  if (!payload.show_saved) {
    return payload;
  }
  const byId = new Map<string, IGraphNode>();
  payload.nodes.forEach(n => byId.set(n.id, n));
  const nodes: IGraphNode[] = [];
  const edges: IGraphEdge[] = [];
  for (const fn of payload.nodes) {
    (fn.saved ?? []).forEach((s, k) => {
      if (!isSavedTensor(s)) {
        return;
      }
      // payload ids are n<digits>, group keys g<digits>: s<fn>_<k> collides with neither
      const id = `s${fn.id.slice(1)}_${k}`;
      nodes.push({
        id,
        kind: 'tensor',
        label: savedLabel(s, s.tensor ? byId.get(s.tensor) : undefined),
        name: s.name,
        shape: s.shape ?? null,
        dtype: s.dtype ?? null,
        value: s.value ?? null,
        module: fn.module,
        saved_of: fn.id
      });
      edges.push({ source: id, target: fn.id, saved: true });
    });
  }
  if (nodes.length === 0) {
    return payload;
  }
  return {
    ...payload,
    nodes: payload.nodes.concat(nodes),
    edges: payload.edges.concat(edges)
  };
}

/** Build adjacency for a checked payload (with its saved tensors when it asks for them). */
export function buildModel(checked: IGraphPayload): IGraphModel {
  const payload = withSavedNodes(checked);
  const nodes = payload.nodes;
  const n = nodes.length;
  const index = new Map<string, number>();
  nodes.forEach((node, i) => index.set(node.id, i));
  const m = payload.edges.length;
  const edgeSource = new Int32Array(m);
  const edgeTarget = new Int32Array(m);
  const outEdges: number[][] = Array.from({ length: n }, () => []);
  const inEdges: number[][] = Array.from({ length: n }, () => []);
  payload.edges.forEach((e, k) => {
    const s = index.get(e.source) ?? -1;
    const t = index.get(e.target) ?? -1;
    edgeSource[k] = s;
    edgeTarget[k] = t;
    if (s >= 0 && t >= 0) {
      outEdges[s].push(k);
      inEdges[t].push(k);
    }
  });
  const roots: number[] = [];
  const seen = new Uint8Array(n);
  for (const id of payload.roots) {
    const i = index.get(id);
    if (i !== undefined && !seen[i]) {
      seen[i] = 1;
      roots.push(i);
    }
  }
  for (let i = 0; i < n; i++) {
    if (!seen[i] && outEdges[i].length === 0) {
      seen[i] = 1;
      roots.push(i);
    }
  }
  const backwardOrder: number[] = [];
  for (const id of payload.backward_order ?? []) {
    const i = index.get(id);
    if (i !== undefined) {
      backwardOrder.push(i);
    }
  }
  const savedOwner = new Int32Array(n).fill(-1);
  nodes.forEach((node, i) => {
    if (node.saved_of !== undefined) {
      savedOwner[i] = index.get(node.saved_of) ?? -1;
    }
  });
  const modules = new Map<string, IModule>();
  for (const m of payload.modules ?? []) {
    modules.set(m.id, m);
  }
  const moduleMembers = new Map<string, number[]>();
  nodes.forEach((node, i) => {
    let m = node.module;
    const seenHere = new Set<string>();
    while (m !== undefined && m !== null && !seenHere.has(m)) {
      seenHere.add(m);
      const list = moduleMembers.get(m);
      if (list) {
        list.push(i);
      } else {
        moduleMembers.set(m, [i]);
      }
      m = modules.get(m)?.parent ?? undefined;
    }
  });
  return {
    payload,
    nodes,
    index,
    edgeSource,
    edgeTarget,
    outEdges,
    inEdges,
    roots,
    backwardOrder,
    modules,
    moduleMembers,
    savedOwner
  };
}

/** Which groups are collapsed; mutated by the collapse/expand operations below. */
export class CollapseState {
  /** Top-level collapsed groups (disjoint). */
  groups: ICollapsedGroup[] = [];

  /** Fresh key for a synthetic group; never matches a payload id (those are n<digits>). */
  newKey(): string {
    return `g${this._next++}`;
  }

  private _next = 0;
}

/** Compute the visible graph: payload nodes outside active groups, plus one node per group. */
export function buildView(
  model: IGraphModel,
  state: CollapseState
): IGraphView {
  const n = model.nodes.length;
  const groupOf = new Int32Array(n).fill(-1);
  state.groups.forEach((g, gi) => {
    for (const i of g.members) {
      groupOf[i] = gi;
    }
  });
  // a saved tensor folds with its function
  for (let i = 0; i < n; i++) {
    const f = model.savedOwner[i];
    if (f >= 0 && groupOf[i] < 0) {
      groupOf[i] = groupOf[f];
    }
  }
  const nodes: IViewNode[] = [];
  const byKey = new Map<string, number>();
  const viewOf = new Int32Array(n).fill(-1);
  const groupView = new Int32Array(state.groups.length).fill(-1);
  for (let i = 0; i < n; i++) {
    const gi = groupOf[i];
    if (gi < 0) {
      viewOf[i] = nodes.length;
      byKey.set(model.nodes[i].id, nodes.length);
      nodes.push({ key: model.nodes[i].id, index: i, group: null });
    } else {
      if (groupView[gi] < 0) {
        const g = state.groups[gi];
        groupView[gi] = nodes.length;
        byKey.set(g.key, nodes.length);
        nodes.push({ key: g.key, index: -1, group: g });
      }
      viewOf[i] = groupView[gi];
    }
  }
  const edges: IViewEdge[] = [];
  const edgeKey = new Map<number, number>();
  const vn = nodes.length;
  for (let k = 0; k < model.edgeSource.length; k++) {
    const s = viewOf[model.edgeSource[k]];
    const t = viewOf[model.edgeTarget[k]];
    if (s < 0 || t < 0 || s === t) {
      continue;
    }
    const key = s * vn + t;
    const existing = edgeKey.get(key);
    const count = model.payload.edges[k].count ?? 1;
    if (existing === undefined) {
      edgeKey.set(key, edges.length);
      edges.push({ source: s, target: t, edges: [k], count });
    } else {
      edges[existing].edges.push(k);
      edges[existing].count += count;
    }
  }
  const outEdges: number[][] = Array.from({ length: vn }, () => []);
  const inEdges: number[][] = Array.from({ length: vn }, () => []);
  edges.forEach((e, k) => {
    outEdges[e.source].push(k);
    inEdges[e.target].push(k);
  });
  return { nodes, edges, byKey, viewOf, outEdges, inEdges };
}

/** Nodes and edges reachable from a view node, towards the root and towards its inputs. */
export interface IPaths {
  downstreamNodes: Set<number>;
  downstreamEdges: Set<number>;
  upstreamNodes: Set<number>;
  upstreamEdges: Set<number>;
}

export function reach(
  view: IGraphView,
  start: number,
  adjacency: number[][],
  other: (e: number) => number
): { nodes: Set<number>; edges: Set<number> } {
  const nodes = new Set<number>();
  const edges = new Set<number>();
  const stack = [start];
  while (stack.length > 0) {
    const v = stack.pop() as number;
    for (const e of adjacency[v]) {
      edges.add(e);
      const w = other(e);
      if (!nodes.has(w) && w !== start) {
        nodes.add(w);
        stack.push(w);
      }
    }
  }
  return { nodes, edges };
}

/** Paths from a node to the root (downstream) and to the leaves it depends on (upstream). */
export function pathsFrom(view: IGraphView, start: number): IPaths {
  const down = reach(view, start, view.outEdges, e => view.edges[e].target);
  const up = reach(view, start, view.inEdges, e => view.edges[e].source);
  return {
    downstreamNodes: down.nodes,
    downstreamEdges: down.edges,
    upstreamNodes: up.nodes,
    upstreamEdges: up.edges
  };
}

/** Sinks and payload roots of the view, for breadth-first starts. */
export function viewSeeds(model: IGraphModel, view: IGraphView): number[] {
  const seeds: number[] = [];
  const seen = new Set<number>();
  for (const r of model.roots) {
    const v = view.viewOf[r];
    if (v >= 0 && !seen.has(v)) {
      seen.add(v);
      seeds.push(v);
    }
  }
  for (let v = 0; v < view.nodes.length; v++) {
    if (view.outEdges[v].length === 0 && !seen.has(v)) {
      seen.add(v);
      seeds.push(v);
    }
  }
  return seeds;
}

/** What the backward replay shows after `step` nodes of backward_order have run. */
export interface IBackwardFrame {
  /** View node executing at this step, or -1 before the first step. */
  active: number;
  /** View nodes that have already run (including the active one). */
  done: Set<number>;
  /** View edges the gradient flows along at this step. */
  flowing: Set<number>;
  /** View edges a gradient flowed along in earlier steps. */
  flowed: Set<number>;
}

/** Whether a view edge only joins saved tensors to their functions. */
export function isSavedEdge(
  model: IGraphModel,
  view: IGraphView,
  e: number
): boolean {
  return view.edges[e].edges.every(k => model.payload.edges[k].saved === true);
}

/** View edges that carry the gradient out of view node `v` when its backward runs. */
function gradientEdges(
  model: IGraphModel,
  view: IGraphView,
  v: number
): number[] {
  // The gradient goes from v to its inputs; through a drawn tensor it continues to its producer.
  const out: number[] = [];
  for (const e of view.inEdges[v]) {
    if (isSavedEdge(model, view, e)) {
      continue; // no gradient flows to a saved tensor
    }
    out.push(e);
    const s = view.edges[e].source;
    const node = view.nodes[s];
    if (node.index >= 0 && model.nodes[node.index].kind === 'tensor') {
      for (const e2 of view.inEdges[s]) {
        out.push(e2);
      }
    }
  }
  return out;
}

/** State of the backward replay after `step` of `model.backwardOrder.length` steps. */
export function backwardFrame(
  model: IGraphModel,
  view: IGraphView,
  step: number
): IBackwardFrame {
  const order = model.backwardOrder;
  const last = Math.max(0, Math.min(step, order.length));
  const done = new Set<number>();
  const flowing = new Set<number>();
  const flowed = new Set<number>();
  let active = -1;
  for (let k = 0; k < last; k++) {
    const v = view.viewOf[order[k]];
    if (v < 0) {
      continue;
    }
    done.add(v);
    const edges = gradientEdges(model, view, v);
    if (k === last - 1) {
      active = v;
      edges.forEach(e => flowing.add(e));
    } else {
      edges.forEach(e => flowed.add(e));
    }
  }
  flowing.forEach(e => flowed.delete(e));
  return { active, done, flowing, flowed };
}
