/**
 * nn.Modules as boxes: which modules are drawn expanded, the clusters the layout keeps
 * together, and the box around each one (its title collapses it on click).
 */
import { CollapseState, IGraphModel, IGraphView } from './graph';
import { ICluster, ILayout } from './layout';
import { labelSize } from './edgelabels';
import { capText, drawnPoint, IDrawing, round, svgEl } from './render';

/** An expanded module drawn as a box around its view nodes. */
export interface IModuleBox {
  /** Payload module id. */
  id: string;
  label: string;
  /** View nodes inside (submodules' included). */
  members: number[];
  /** Nesting depth (0 = outermost). */
  depth: number;
  /** Cluster id given to the layout, when it placed the box. */
  cluster: number;
}

const BOX_PAD = 10;
/** Room for the title (12 px) above a module's nodes. */
const BOX_TITLE = 17;

/**
 * The drawn rectangle of a module box: the layout's cluster, else around its members, with
 * room for the title added at the drawn top (mirroring flips the layout's rank axis, so room
 * reserved in layout coordinates would land at the box's far end, under its first node).
 */
export function moduleRect(
  layout: ILayout,
  box: IModuleBox,
  backward: boolean
): { x: number; y: number; width: number; height: number } {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  const c = layout.clusterBoxes?.get(box.cluster);
  if (c) {
    x0 = c.x - c.width / 2;
    x1 = c.x + c.width / 2;
    y0 = c.y - c.height / 2;
    y1 = c.y + c.height / 2;
  } else {
    for (const v of box.members) {
      x0 = Math.min(x0, layout.x[v] - layout.widths[v] / 2);
      x1 = Math.max(x1, layout.x[v] + layout.widths[v] / 2);
      y0 = Math.min(y0, layout.y[v] - layout.heights[v] / 2);
      y1 = Math.max(y1, layout.y[v] + layout.heights[v] / 2);
    }
    const pad = (BOX_PAD * (3 - Math.min(2, box.depth))) / 2;
    x0 -= pad;
    x1 += pad;
    y0 -= pad;
    y1 += pad;
  }
  const a = drawnPoint(layout, { x: x0, y: y0 }, backward);
  const b = drawnPoint(layout, { x: x1, y: y1 }, backward);
  return {
    x: Math.min(a.x, b.x),
    y: Math.min(a.y, b.y) - BOX_TITLE,
    width: Math.abs(b.x - a.x),
    height: Math.abs(b.y - a.y) + BOX_TITLE
  };
}

/** Draw a module's box and title into `drawing` (its title joins what edge labels avoid). */
export function drawModuleBox(
  doc: Document,
  drawing: IDrawing,
  layout: ILayout,
  box: IModuleBox,
  backward: boolean
): SVGGElement {
  const r = moduleRect(layout, box, backward);
  const g = svgEl(doc, 'g', {
    class: 'jp-AutogradGraph-module',
    'data-module': box.id,
    role: 'button',
    'aria-label': box.label
  });
  g.appendChild(
    svgEl(doc, 'rect', {
      class: 'jp-AutogradGraph-moduleBox',
      x: round(r.x),
      y: round(r.y),
      width: round(r.width),
      height: round(r.height),
      rx: 6
    })
  );
  const title = svgEl(doc, 'text', {
    class: 'jp-AutogradGraph-moduleTitle',
    x: round(r.x + 6),
    y: round(r.y + 13)
  });
  title.textContent = `▾ ${capText(box.label, 60)}`;
  g.appendChild(title);
  drawing.boxes.appendChild(g);
  const size = labelSize(title.textContent);
  drawing.obstacles.push({
    l: r.x + 5,
    t: r.y + 1,
    r: r.x + 6 + size.w,
    b: r.y + BOX_TITLE
  });
  return g;
}

/**
 * The expanded modules of a view, as boxes to draw and as layout clusters (outermost first);
 * each drawn node sits in the innermost expanded module it belongs to.
 */
export function moduleLayout(
  model: IGraphModel,
  state: CollapseState,
  view: IGraphView
): { boxes: IModuleBox[]; clusters: ICluster[] } {
  const boxes: IModuleBox[] = [];
  const clusters: ICluster[] = [];
  if (model.modules.size === 0) {
    return { boxes, clusters };
  }
  const collapsed = new Set(
    state.groups.filter(g => g.kind === 'module').map(g => g.source)
  );
  const clusterOf = new Map<string, number>();
  const depth = (id: string): number => {
    let d = 0;
    let m = model.modules.get(id)?.parent;
    while (m) {
      d++;
      m = model.modules.get(m)?.parent;
    }
    return d;
  };
  const ids = Array.from(model.modules.keys()).sort(
    (a, b) => depth(a) - depth(b)
  );
  for (const id of ids) {
    const m = model.modules.get(id)!;
    let hidden = collapsed.has(id);
    for (let p = m.parent; p && !hidden; p = model.modules.get(p)?.parent) {
      hidden = collapsed.has(p);
    }
    const members = new Set<number>();
    for (const i of model.moduleMembers.get(id) ?? []) {
      members.add(view.viewOf[i]);
    }
    members.delete(-1);
    if (hidden || members.size === 0) {
      continue;
    }
    const c = clusters.length;
    clusterOf.set(id, c);
    clusters.push({
      id: c,
      parent: m.parent ? (clusterOf.get(m.parent) ?? null) : null,
      nodes: []
    });
    boxes.push({
      id,
      label: m.label,
      members: Array.from(members),
      depth: depth(id),
      cluster: c
    });
  }
  // each drawn node sits in the innermost expanded module it belongs to
  view.nodes.forEach((node, v) => {
    const i = node.index >= 0 ? node.index : (node.group?.members[0] ?? -1);
    let m = i >= 0 ? model.nodes[i].module : undefined;
    if (node.group?.kind === 'module' && node.group.source) {
      m = model.modules.get(node.group.source)?.parent ?? undefined;
    }
    while (m && !clusterOf.has(m)) {
      m = model.modules.get(m)?.parent ?? undefined;
    }
    if (m) {
      clusters[clusterOf.get(m) as number].nodes.push(v);
    }
  });
  return { boxes, clusters };
}
