/**
 * Keyboard use of the canvas and node search: arrows move between nodes, Enter selects, E/C
 * expand and collapse, +/-/0 zoom and fit, [ and ] step the replay, / finds a node by name.
 */
import { IGraphModel, IGraphView } from './graph';
import { ILayout } from './layout';
import { capText } from './render';
import { GraphView } from './view';

/** What the keys act on. */
export interface IKeyHost {
  readonly model: IGraphModel;
  readonly view: IGraphView;
  readonly layout: ILayout | null;
  readonly backward: boolean;
  /** The focused node, else the selected one, else -1. */
  current(): number;
  /** The node to start from when nothing is focused. */
  firstNode(): number;
  focusNode(v: number): void;
  toggleSelect(v: number): void;
  clear(): void;
  expand(v: number): void;
  collapse(v: number): void;
  zoom(factor: number): void;
  fit(): void;
  step(delta: number): void;
  openSearch(): void;
}

/** View nodes whose name, op, label or id contains `query` (case-insensitive), best first. */
export function findNodes(
  model: IGraphModel,
  view: IGraphView,
  query: string
): number[] {
  const q = query.trim().toLowerCase();
  if (!q) {
    return [];
  }
  const exact: number[] = [];
  const partial: number[] = [];
  view.nodes.forEach((node, v) => {
    const texts = node.group
      ? [node.group.caption]
      : [
          model.nodes[node.index].name ?? '',
          model.nodes[node.index].op ?? '',
          model.nodes[node.index].label,
          model.nodes[node.index].id,
          ...(model.nodes[node.index].names ?? []).map(n => n.name)
        ];
    const lower = texts.map(t => t.toLowerCase());
    if (lower.some(t => t === q)) {
      exact.push(v);
    } else if (lower.some(t => t.includes(q))) {
      partial.push(v);
    }
  });
  return exact.concat(partial);
}

/** The neighbour of `v` in the direction of `key`, or -1. */
export function neighbour(host: IKeyHost, v: number, key: string): number {
  const layout = host.layout as ILayout;
  const view = host.view;
  const tb = layout.rankdir === 'TB';
  // along the ranks the arrows follow edges; across them, nodes of the same rank
  const along = tb ? ['ArrowUp', 'ArrowDown'] : ['ArrowLeft', 'ArrowRight'];
  let candidates: number[];
  if (along.includes(key)) {
    const forward = (key === along[1]) !== host.backward;
    candidates = forward
      ? view.outEdges[v].map(e => view.edges[e].target)
      : view.inEdges[v].map(e => view.edges[e].source);
  } else {
    const after = key === 'ArrowDown' || key === 'ArrowRight';
    candidates = [];
    const a = tb ? layout.y : layout.x;
    const b = tb ? layout.x : layout.y;
    for (let w = 0; w < view.nodes.length; w++) {
      if (w !== v && Math.abs(a[w] - a[v]) < 1 && b[w] > b[v] === after) {
        candidates.push(w);
      }
    }
  }
  let best = -1;
  let bestDist = Infinity;
  for (const w of candidates) {
    const dist =
      Math.abs(layout.y[w] - layout.y[v]) + Math.abs(layout.x[w] - layout.x[v]);
    if (dist < bestDist) {
      bestDist = dist;
      best = w;
    }
  }
  return best;
}

/** Handle a key on the canvas; returns whether it was one of ours. */
export function onKey(host: IKeyHost, event: KeyboardEvent): boolean {
  const v = host.current();
  switch (event.key) {
    case 'ArrowLeft':
    case 'ArrowRight':
    case 'ArrowUp':
    case 'ArrowDown': {
      if (v < 0) {
        host.focusNode(host.firstNode());
      } else {
        const w = neighbour(host, v, event.key);
        if (w >= 0) {
          host.focusNode(w);
        }
      }
      return true;
    }
    case 'Enter':
    case ' ':
      if (v >= 0) {
        host.toggleSelect(v);
      }
      return true;
    case 'e':
    case 'E':
      if (v >= 0) {
        host.expand(v);
      }
      return true;
    case 'c':
    case 'C':
      if (v >= 0) {
        host.collapse(v);
      }
      return true;
    case 'Escape':
      host.clear();
      return true;
    case '+':
    case '=':
      host.zoom(1.25);
      return true;
    case '-':
      host.zoom(0.8);
      return true;
    case '0':
      host.fit();
      return true;
    case '[':
      host.step(-1);
      return true;
    case ']':
      host.step(1);
      return true;
    case '/':
      host.openSearch();
      return true;
    default:
      return false;
  }
}

/** Find nodes matching `query` in `view`; select and show the first. Returns the matches. */
export function findAndShow(view: GraphView, query: string): number[] {
  const found = findNodes(view.model, view.view, query);
  const q = capText(query, 40);
  if (found.length > 0) {
    view.focusNode(found[0]);
    view.select(found[0]);
    view.say(view.trans.__('%1 nodes match "%2".', found.length, q));
  } else {
    view.say(view.trans.__('No node matches "%1".', q));
  }
  return found;
}
