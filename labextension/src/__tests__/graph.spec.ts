import {
  collapseChains,
  collapseInputs,
  expandAll,
  expandGroup,
  fitToBudget
} from '../collapse';
import {
  backwardFrame,
  buildModel,
  buildView,
  CollapseState,
  MAX_VISIBLE_NODES,
  pathsFrom
} from '../graph';
import { chainPayload, mlpPayload, tutorial } from './helpers';

function keys(view: ReturnType<typeof buildView>, set: Set<number>): string[] {
  return Array.from(set)
    .map(v => view.nodes[v].key)
    .sort();
}

describe('graph model and view', () => {
  it('indexes the tutorial graph', () => {
    const model = buildModel(tutorial());
    expect(model.nodes).toHaveLength(11);
    expect(model.edgeSource).toHaveLength(10);
    expect(model.roots[0]).toBe(model.index.get('n0'));
    expect(model.backwardOrder.map(i => model.nodes[i].id)).toEqual([
      'n1',
      'n3',
      'n4',
      'n5',
      'n6',
      'n9'
    ]);
    const view = buildView(model, new CollapseState());
    expect(view.nodes).toHaveLength(11);
    expect(view.edges).toHaveLength(10);
  });

  it('highlights paths to the root and to the leaves a node depends on', () => {
    const model = buildModel(tutorial());
    const view = buildView(model, new CollapseState());
    const p = pathsFrom(view, view.byKey.get('n3') as number);
    expect(keys(view, p.downstreamNodes)).toEqual(['n0', 'n1', 'n2']);
    expect(keys(view, p.upstreamNodes)).toEqual([
      'n10',
      'n4',
      'n5',
      'n6',
      'n7',
      'n9'
    ]);
    expect(p.downstreamEdges.size).toBe(3);
    expect(p.upstreamEdges.size).toBe(6);
  });

  it('collapses the inputs of a node and expands them again', () => {
    const model = buildModel(tutorial());
    const state = new CollapseState();
    let view = buildView(model, state);
    const g = collapseInputs(
      model,
      state,
      view,
      view.byKey.get('n3') as number
    );
    expect(g).not.toBeNull();
    expect(g!.members.map(i => model.nodes[i].id).sort()).toEqual([
      'n10',
      'n4',
      'n5',
      'n6',
      'n7',
      'n9'
    ]);
    expect(g!.caption).toBe('inputs of AddBackward0');
    view = buildView(model, state);
    expect(view.nodes).toHaveLength(6);
    expect(view.edges).toHaveLength(5);
    view = expandGroup(model, state, g!.key);
    expect(view.nodes).toHaveLength(11);
    expect(view.edges).toHaveLength(10);
  });

  it('keeps inputs shared with other nodes when collapsing', () => {
    const model = buildModel(tutorial());
    const state = new CollapseState();
    const view = buildView(model, state);
    // Everything upstream of the loss function n1 feeds only it: all but n0 fold.
    const g = collapseInputs(
      model,
      state,
      view,
      view.byKey.get('n1') as number
    );
    expect(g!.members).toHaveLength(9);
    // A leaf has nothing upstream.
    expect(
      collapseInputs(
        model,
        new CollapseState(),
        view,
        view.byKey.get('n7') as number
      )
    ).toBeNull();
  });

  it('nests groups: collapsing over a group absorbs it, expanding restores it', () => {
    const model = buildModel(tutorial());
    const state = new CollapseState();
    let view = buildView(model, state);
    const inner = collapseInputs(
      model,
      state,
      view,
      view.byKey.get('n5') as number
    )!;
    view = buildView(model, state);
    const outer = collapseInputs(
      model,
      state,
      view,
      view.byKey.get('n3') as number
    )!;
    expect(outer.children).toEqual([inner]);
    expect(state.groups).toEqual([outer]);
    view = expandGroup(model, state, outer.key);
    expect(state.groups).toEqual([inner]);
    expect(view.byKey.has(inner.key)).toBe(true);
    expandAll(state);
    expect(buildView(model, state).nodes).toHaveLength(11);
  });

  it('folds chains of single-input single-output nodes', () => {
    const model = buildModel(chainPayload(12));
    const state = new CollapseState();
    const made = collapseChains(model, state, buildView(model, state));
    expect(made).toBe(1);
    const view = buildView(model, state);
    // Source and root stay, the 10 inner nodes become one.
    expect(view.nodes).toHaveLength(3);
    expect(view.edges).toHaveLength(2);
  });

  it('leaves graphs within the budget alone', () => {
    const model = buildModel(mlpPayload(2000));
    const view = fitToBudget(model, new CollapseState());
    expect(view.nodes).toHaveLength(model.nodes.length);
  });

  it('collapses a 20 000-node graph to at most 2 000 drawn nodes (G3)', () => {
    const model = buildModel(mlpPayload(20000));
    const state = new CollapseState();
    let view = fitToBudget(model, state);
    expect(view.nodes.length).toBeLessThanOrEqual(MAX_VISIBLE_NODES);
    expect(view.nodes.length).toBeGreaterThan(MAX_VISIBLE_NODES / 2);
    // The root stays visible; every payload node is either drawn or inside a group.
    expect(view.nodes[view.viewOf[model.roots[0]]].index).toBe(model.roots[0]);
    expect(Array.from(view.viewOf).every(v => v >= 0)).toBe(true);
    const groups = view.nodes.filter(n => n.group);
    expect(groups.length).toBeGreaterThan(0);
    // Expanding one group stays within the budget.
    view = expandGroup(model, state, groups[0].key);
    expect(view.nodes.length).toBeLessThanOrEqual(MAX_VISIBLE_NODES + 60);
  });

  it('handles a 100 000-node chain iteratively (G5)', () => {
    const model = buildModel(chainPayload(100000));
    const state = new CollapseState();
    let view = fitToBudget(model, state);
    expect(view.nodes).toHaveLength(3);
    const g = view.nodes.find(n => n.group)!;
    view = expandGroup(model, state, g.key);
    expect(view.nodes.length).toBeLessThanOrEqual(MAX_VISIBLE_NODES);
    const p = pathsFrom(view, view.byKey.get('n0') as number);
    expect(p.downstreamNodes.size).toBe(view.nodes.length - 1);
  });

  it('replays backward steps with the gradient on the right edges', () => {
    const model = buildModel(tutorial());
    const view = buildView(model, new CollapseState());
    const edgeKeys = (set: Set<number>) =>
      Array.from(set)
        .map(
          e =>
            `${view.nodes[view.edges[e].source].key}->${view.nodes[view.edges[e].target].key}`
        )
        .sort();
    const f0 = backwardFrame(model, view, 0);
    expect(f0.active).toBe(-1);
    expect(f0.done.size).toBe(0);
    const f1 = backwardFrame(model, view, 1);
    expect(view.nodes[f1.active].key).toBe('n1');
    // BCE sends gradients to z (and on through z to AddBackward0) and to y.
    expect(edgeKeys(f1.flowing)).toEqual(['n2->n1', 'n3->n2', 'n8->n1']);
    const f2 = backwardFrame(model, view, 2);
    expect(view.nodes[f2.active].key).toBe('n3');
    expect(edgeKeys(f2.flowing)).toEqual(['n4->n3', 'n9->n3']);
    expect(edgeKeys(f2.flowed)).toEqual(['n2->n1', 'n3->n2', 'n8->n1']);
    const last = backwardFrame(model, view, 99);
    expect(last.done.size).toBe(6);
    expect(view.nodes[last.active].key).toBe('n9');
  });
});
