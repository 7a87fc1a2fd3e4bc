/**
 * Collapsing and expanding: renderer-side groups (chains, the inputs of a node, overflow past
 * the node budget) and the folds a graph opens with (big repeated runs, modules of big graphs).
 */
import {
  buildView,
  CollapseState,
  FOLD_MIN_NODES,
  GroupKind,
  ICollapsedGroup,
  IGraphModel,
  IGraphView,
  IViewNode,
  MAX_VISIBLE_NODES,
  MIN_CHAIN_LENGTH,
  MIN_EXPAND_NODES,
  MODULE_FOLD_NODES,
  reach,
  viewSeeds
} from './graph';
import { IModule, IRepeat } from './schema';

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

export function absorb(
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
