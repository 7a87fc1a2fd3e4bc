/**
 * Test helpers: fixtures written by the Python tests (tests/fixtures/graph_*.json) and
 * generated payloads for size and robustness cases.
 */
import * as fs from 'fs';
import * as path from 'path';

import { IGraphEdge, IGraphNode, IGraphPayload } from '../schema';

/** Repository folder holding the shared JSON fixtures. */
export const FIXTURE_DIR = path.join(
  __dirname,
  '..',
  '..',
  '..',
  'tests',
  'fixtures'
);

/** Every graph fixture the Python side keeps in sync with graph.py (graph_*.json). */
export function graphFixtures(): Array<[string, IGraphPayload]> {
  return fs
    .readdirSync(FIXTURE_DIR)
    .filter(f => /^graph_.*\.json$/.test(f))
    .sort()
    .map(f => [
      f,
      JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, f), 'utf8'))
    ]);
}

/** The hand-written tutorial graph (11 nodes, 10 edges, 6 backward steps). */
export function tutorial(): IGraphPayload {
  return JSON.parse(
    fs.readFileSync(path.join(FIXTURE_DIR, 'graph_tutorial.json'), 'utf8')
  );
}

/** Deep copy, for mutation tests. */
export function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value));
}

function payload(
  nodes: IGraphNode[],
  edges: IGraphEdge[],
  roots: string[]
): IGraphPayload {
  return {
    version: 1,
    nodes,
    edges,
    roots,
    truncated: false,
    total_nodes: nodes.length,
    total_edges: edges.length
  };
}

/** A linear chain n0 -> n1 -> ... -> n{count-1} (root), alternating tensors and functions. */
export function chainPayload(count: number): IGraphPayload {
  const nodes: IGraphNode[] = [];
  const edges: IGraphEdge[] = [];
  for (let i = 0; i < count; i++) {
    const fn = i % 2 === 1;
    nodes.push({
      id: `n${i}`,
      kind: fn ? 'function' : 'tensor',
      label: fn ? 'MulBackward0' : `t${i}\n(3,)`,
      op: fn ? 'MulBackward0' : null,
      shape: fn ? null : [3]
    });
    if (i > 0) {
      edges.push({ source: `n${i - 1}`, target: `n${i}` });
    }
  }
  return payload(nodes, edges, [`n${count - 1}`]);
}

/**
 * An MLP-like autograd graph of about `count` nodes: per layer, weight and bias leaves with
 * AccumulateGrad, MmBackward0, AddBackward0 and ReluBackward0 with their output tensors.
 */
export function mlpPayload(count: number): IGraphPayload {
  const nodes: IGraphNode[] = [];
  const edges: IGraphEdge[] = [];
  const add = (
    kind: IGraphNode['kind'],
    label: string,
    extra: Partial<IGraphNode> = {}
  ) => {
    const id = `n${nodes.length}`;
    nodes.push({ id, kind, label, ...extra });
    return id;
  };
  let h = add('tensor', 'x\n(64, 32)', {
    name: 'x',
    shape: [64, 32],
    is_leaf: true,
    requires_grad: false
  });
  let layer = 0;
  while (nodes.length + 11 <= count) {
    const w = add('tensor', `w${layer}\n(32, 32)`, {
      name: `w${layer}`,
      is_leaf: true,
      requires_grad: true,
      shape: [32, 32]
    });
    const aw = add('accumulate', 'AccumulateGrad', { op: 'AccumulateGrad' });
    const b = add('tensor', `b${layer}\n(32,)`, {
      name: `b${layer}`,
      is_leaf: true,
      requires_grad: true,
      shape: [32]
    });
    const ab = add('accumulate', 'AccumulateGrad', { op: 'AccumulateGrad' });
    const mm = add('function', 'MmBackward0', { op: 'MmBackward0' });
    const t1 = add('tensor', '(64, 32)', { shape: [64, 32] });
    const ad = add('function', 'AddBackward0', { op: 'AddBackward0' });
    const t2 = add('tensor', '(64, 32)', { shape: [64, 32] });
    const re = add('function', 'ReluBackward0', { op: 'ReluBackward0' });
    const t3 = add('tensor', `h${layer}\n(64, 32)`, {
      name: `h${layer}`,
      shape: [64, 32]
    });
    edges.push(
      { source: w, target: aw },
      { source: b, target: ab },
      { source: h, target: mm },
      { source: aw, target: mm },
      { source: mm, target: t1 },
      { source: t1, target: ad },
      { source: ab, target: ad },
      { source: ad, target: t2 },
      { source: t2, target: re },
      { source: re, target: t3 }
    );
    h = t3;
    layer++;
  }
  const sum = add('function', 'SumBackward0', { op: 'SumBackward0' });
  const loss = add('tensor', 'loss\n()', {
    name: 'loss',
    shape: [],
    is_root: true
  });
  edges.push({ source: h, target: sum }, { source: sum, target: loss });
  return payload(nodes, edges, [loss]);
}

/** Strings that try to escape text context (test plan F1). */
export const LABEL_CORPUS: string[] = [
  '<script>alert(1)</script>',
  '<img src=x onerror="window.__pwned=1">',
  '</text><script>window.__pwned=1</script>',
  '<svg onload="window.__pwned=1">',
  ']]><foreignObject><iframe srcdoc="<script>parent.__pwned=1</script>"></iframe></foreignObject>',
  'javascript:alert(1)',
  '" onmouseover="window.__pwned=1"',
  "{{constructor.constructor('window.__pwned=1')()}}",
  '<button data-commandlinker-command="console:create">x</button>',
  '<a id="jp-main-dock-panel" name="x" href="javascript:alert(1)">a</a>',
  'abc\u202Edef',
  'nul\u0000byte',
  'lone\uD800surrogate',
  'x'.repeat(2000)
];

/** A valid payload whose text fields are the F1 corpus. */
export function corpusPayload(): IGraphPayload {
  const nodes: IGraphNode[] = [];
  const edges: IGraphEdge[] = [];
  LABEL_CORPUS.forEach((s, i) => {
    nodes.push({
      id: `n${i}`,
      kind: i % 2 ? 'function' : 'tensor',
      label: s,
      name: s,
      op: s,
      dtype: s.slice(0, 200),
      value: s,
      grad: s,
      saved: [{ name: s.slice(0, 200), value: s }],
      source: { line: 1, code: s }
    });
    if (i > 0) {
      edges.push({ source: `n${i - 1}`, target: `n${i}`, grad: s });
    }
  });
  const p = payload(nodes, edges, [`n${LABEL_CORPUS.length - 1}`]);
  p.title = LABEL_CORPUS[0];
  p.backward_order = nodes
    .filter(n => n.kind === 'function')
    .map(n => n.id)
    .reverse();
  return p;
}
