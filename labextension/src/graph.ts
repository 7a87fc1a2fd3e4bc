/**
 * Pure graph logic over a checked payload: adjacency, collapsed groups (chains, subgraphs and
 * size overflow), the visible view, path highlighting and backward replay. No DOM, no Lumino.
 *
 * Every traversal is iterative, so a 100 000-node chain cannot overflow the call stack.
 */
import { IGraphNode, IGraphPayload, IModule, IRepeat } from './schema';

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

/** Build adjacency for a checked payload. */
export function buildModel(payload: IGraphPayload): IGraphModel {
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
    moduleMembers
  };
}

/** Whether a payload repeat opens folded: Python dropped iterations, or it is big. */
export function repeatFolds(r: IRepeat): boolean {
  let n = 0;
  for (const it of r.iterations) {
    n += it.length;
  }
  return r.iterations.length < r.count || n >= FOLD_MIN_NODES;
}

/** Modules without submodules (Linear, ReLU...), innermost first to collapse. */
export function leafModules(model: IGraphModel): IModule[] {
  const parents = new Set<string>();
  model.modules.forEach(m => {
    if (m.parent) {
      parents.add(m.parent);
    }
  });
  return Array.from(model.modules.values()).filter(m => !parents.has(m.id));
}

/**
 * The folds a graph opens with: big repeated runs as one "×k" block each and, above
 * {@link MODULE_FOLD_NODES}, every innermost module as one node. Groups stay disjoint.
 */
export function foldStructure(model: IGraphModel, state: CollapseState): void {
  const taken = new Uint8Array(model.nodes.length);
  const add = (
    members: number[],
    group: Omit<ICollapsedGroup, 'key' | 'members' | 'children'>
  ) => {
    const free = members.filter(i => !taken[i]);
    if (free.length < 2) {
      return;
    }
    free.forEach(i => (taken[i] = 1));
    state.groups.push({
      key: state.newKey(),
      members: free,
      children: [],
      ...group
    });
  };
  for (const r of model.payload.repeats ?? []) {
    if (repeatFolds(r)) {
      const members: number[] = [];
      for (const it of r.iterations) {
        for (const id of it) {
          const i = model.index.get(id);
          if (i !== undefined) {
            members.push(i);
          }
        }
      }
      add(members, {
        kind: 'repeat',
        caption: r.label,
        count: r.count,
        source: r.id
      });
    }
  }
  if (model.nodes.length > MODULE_FOLD_NODES) {
    for (const m of leafModules(model)) {
      add(model.moduleMembers.get(m.id) ?? [], {
        kind: 'module',
        caption: m.label,
        source: m.id
      });
    }
  }
}

/** Collapse module `id` (drawn expanded) into one node; null if nothing of it is drawn. */
export function collapseModule(
  model: IGraphModel,
  state: CollapseState,
  view: IGraphView,
  id: string
): ICollapsedGroup | null {
  const members = new Set(model.moduleMembers.get(id) ?? []);
  const picked: number[] = [];
  view.nodes.forEach((node, v) => {
    const inside = node.group
      ? node.group.members.every(i => members.has(i))
      : members.has(node.index);
    if (inside) {
      picked.push(v);
    }
  });
  if (picked.length === 0) {
    return null;
  }
  const m = model.modules.get(id) as IModule;
  const group = absorb(state, view, picked, 'module', m.label);
  group.source = id;
  return group;
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

function reach(
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

function absorb(
  state: CollapseState,
  view: IGraphView,
  picked: number[],
  kind: GroupKind,
  caption: string
): ICollapsedGroup {
  const members: number[] = [];
  const children: ICollapsedGroup[] = [];
  for (const v of picked) {
    const node = view.nodes[v];
    if (node.group) {
      children.push(node.group);
      for (const i of node.group.members) {
        members.push(i);
      }
    } else {
      members.push(node.index);
    }
  }
  const absorbed = new Set(children);
  state.groups = state.groups.filter(g => !absorbed.has(g));
  const group: ICollapsedGroup = {
    key: state.newKey(),
    kind,
    members,
    children,
    caption
  };
  state.groups.push(group);
  return group;
}

/** Display name of a view node, for captions. */
export function viewNodeName(model: IGraphModel, node: IViewNode): string {
  if (node.group) {
    return `${node.group.members.length} collapsed nodes`;
  }
  const p = model.nodes[node.index];
  return (p.name || p.op || p.label || p.id).split('\n')[0].slice(0, 60);
}

/**
 * Collapse everything that only feeds the view node `v`: its upstream nodes minus those that
 * also feed something else still drawn.
 *
 * @returns the new group, or null when nothing is exclusively upstream of `v`.
 */
export function collapseInputs(
  model: IGraphModel,
  state: CollapseState,
  view: IGraphView,
  v: number
): ICollapsedGroup | null {
  const up = reach(view, v, view.inEdges, e => view.edges[e].source).nodes;
  // Drop nodes with an edge to something outside up+{v}, then everything that fed only them.
  const queue: number[] = [];
  for (const u of up) {
    for (const e of view.outEdges[u]) {
      const t = view.edges[e].target;
      if (t !== v && !up.has(t)) {
        queue.push(u);
        break;
      }
    }
  }
  while (queue.length > 0) {
    const u = queue.pop() as number;
    if (!up.delete(u)) {
      continue;
    }
    for (const e of view.inEdges[u]) {
      const s = view.edges[e].source;
      if (up.has(s)) {
        queue.push(s);
      }
    }
  }
  if (up.size === 0) {
    return null;
  }
  const picked = Array.from(up).sort((a, b) => a - b);
  return absorb(
    state,
    view,
    picked,
    'subgraph',
    `inputs of ${viewNodeName(model, view.nodes[v])}`
  );
}

/**
 * Fold every run of at least `minLength` drawn nodes that each have one input and one output.
 *
 * @returns the number of groups made.
 */
export function collapseChains(
  model: IGraphModel,
  state: CollapseState,
  view: IGraphView,
  minLength = MIN_CHAIN_LENGTH
): number {
  const n = view.nodes.length;
  const inner = (v: number) =>
    view.inEdges[v].length === 1 && view.outEdges[v].length === 1;
  const done = new Uint8Array(n);
  let made = 0;
  for (let v = 0; v < n; v++) {
    if (done[v] || !inner(v)) {
      continue;
    }
    // Walk to the upstream end of the run, then collect it downstream.
    let head = v;
    for (;;) {
      const s = view.edges[view.inEdges[head][0]].source;
      if (!inner(s) || s === v) {
        break;
      }
      head = s;
    }
    const run: number[] = [];
    let cur = head;
    while (inner(cur) && !done[cur]) {
      done[cur] = 1;
      run.push(cur);
      cur = view.edges[view.outEdges[cur][0]].target;
    }
    if (run.length >= minLength) {
      const first = viewNodeName(model, view.nodes[run[0]]);
      const last = viewNodeName(model, view.nodes[run[run.length - 1]]);
      absorb(state, view, run, 'chain', `chain ${first} … ${last}`);
      made++;
    }
  }
  return made;
}

/**
 * Keep at most `budget` drawn nodes among `scope`: breadth-first from `seeds` towards the inputs,
 * the first nodes stay; the rest fold into one overflow group per kept node they hang from.
 *
 * @returns the number of groups made.
 */
export function collapseOverflow(
  model: IGraphModel,
  state: CollapseState,
  view: IGraphView,
  scope: Uint8Array,
  seeds: number[],
  budget: number
): number {
  const n = view.nodes.length;
  let scopeCount = 0;
  for (let v = 0; v < n; v++) {
    scopeCount += scope[v];
  }
  if (scopeCount <= budget) {
    return 0;
  }
  const parent = new Int32Array(n).fill(-1);
  const rank = new Int32Array(n).fill(-1);
  const order: number[] = [];
  const visit = (start: number) => {
    if (!scope[start] || rank[start] >= 0) {
      return;
    }
    rank[start] = order.length;
    order.push(start);
    for (let head = order.length - 1; head < order.length; head++) {
      const v = order[head];
      for (const e of view.inEdges[v]) {
        const s = view.edges[e].source;
        if (scope[s] && rank[s] < 0) {
          rank[s] = order.length;
          parent[s] = v;
          order.push(s);
        }
      }
    }
  };
  seeds.forEach(visit);
  for (let v = 0; v < n; v++) {
    visit(v);
  }
  const owner = new Int32Array(n).fill(-1);
  let keep = Math.max(1, budget - 1);
  let owners = new Map<number, number[]>();
  for (let attempt = 0; attempt < 20; attempt++) {
    owners = new Map();
    for (let i = keep; i < order.length; i++) {
      const v = order[i];
      const p = parent[v];
      // Owner: the kept node this one hangs from; -2 collects unconnected leftovers.
      owner[v] = p < 0 ? -2 : rank[p] < keep ? p : owner[p];
      const list = owners.get(owner[v]);
      if (list) {
        list.push(v);
      } else {
        owners.set(owner[v], [v]);
      }
    }
    if (keep + owners.size <= budget || keep === 1) {
      break;
    }
    keep = Math.max(1, budget - owners.size);
  }
  for (const [o, list] of owners) {
    const caption =
      o === -2
        ? 'more nodes'
        : `more inputs of ${viewNodeName(model, view.nodes[o])}`;
    absorb(state, view, list, 'overflow', caption);
  }
  return owners.size;
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

/**
 * Fit a whole payload into the node budget: fold chains first, then breadth-first overflow.
 *
 * @returns the view to draw.
 */
export function fitToBudget(
  model: IGraphModel,
  state: CollapseState,
  budget = MAX_VISIBLE_NODES
): IGraphView {
  let view = buildView(model, state);
  if (view.nodes.length <= budget) {
    return view;
  }
  collapseChains(model, state, view);
  view = buildView(model, state);
  if (view.nodes.length > budget) {
    const scope = new Uint8Array(view.nodes.length).fill(1);
    collapseOverflow(model, state, view, scope, viewSeeds(model, view), budget);
    view = buildView(model, state);
  }
  return view;
}

/**
 * Expand a group: re-activate the groups it absorbed and draw its other members. When that
 * would exceed the budget, the revealed part is folded again, keeping what is nearest to the
 * nodes the group fed.
 *
 * @returns the new view.
 */
export function expandGroup(
  model: IGraphModel,
  state: CollapseState,
  key: string,
  budget = MAX_VISIBLE_NODES
): IGraphView {
  const group = state.groups.find(g => g.key === key);
  if (!group) {
    return buildView(model, state);
  }
  state.groups = state.groups.filter(g => g !== group).concat(group.children);
  let view = buildView(model, state);
  if (view.nodes.length <= budget) {
    return view;
  }
  const inGroup = new Uint8Array(model.nodes.length);
  for (const i of group.members) {
    inGroup[i] = 1;
  }
  const scope = new Uint8Array(view.nodes.length);
  let scopeCount = 0;
  view.nodes.forEach((node, v) => {
    const first = node.group ? node.group.members[0] : node.index;
    scope[v] = inGroup[first];
    scopeCount += scope[v];
  });
  const seeds: number[] = [];
  for (let v = 0; v < view.nodes.length; v++) {
    if (scope[v] && view.outEdges[v].some(e => !scope[view.edges[e].target])) {
      seeds.push(v);
    }
  }
  const room = Math.max(
    MIN_EXPAND_NODES,
    budget - (view.nodes.length - scopeCount)
  );
  if (collapseOverflow(model, state, view, scope, seeds, room) > 0) {
    view = buildView(model, state);
  }
  return view;
}

/** Expand every renderer-side group (the caller decides whether the size allows it). */
export function expandAll(state: CollapseState): void {
  state.groups = [];
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

/** View edges that carry the gradient out of view node `v` when its backward runs. */
function gradientEdges(
  model: IGraphModel,
  view: IGraphView,
  v: number
): number[] {
  // The gradient goes from v to its inputs; through a drawn tensor it continues to its producer.
  const out: number[] = [];
  for (const e of view.inEdges[v]) {
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
