import { buildModel, buildView, CollapseState } from '../graph';
import {
  computeRanks,
  dagreCost,
  DAGRE_MAX_COST,
  layeredLayout,
  layoutGraph
} from '../layout';
import { viewSizes } from '../render';
import { chainPayload, graphFixtures, mlpPayload, tutorial } from './helpers';

function inputOf(payload: ReturnType<typeof tutorial>) {
  const model = buildModel(payload);
  const view = buildView(model, new CollapseState());
  const { widths, heights } = viewSizes(model, view);
  return {
    model,
    view,
    input: {
      widths,
      heights,
      sources: view.edges.map(e => e.source),
      targets: view.edges.map(e => e.target)
    }
  };
}

function overlaps(l: ReturnType<typeof layeredLayout>): number {
  let count = 0;
  const n = l.x.length;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      if (
        Math.abs(l.x[i] - l.x[j]) * 2 < l.widths[i] + l.widths[j] - 0.5 &&
        Math.abs(l.y[i] - l.y[j]) * 2 < l.heights[i] + l.heights[j] - 0.5
      ) {
        count++;
      }
    }
  }
  return count;
}

describe('layout', () => {
  it('ranks inputs left of the nodes that consume them', () => {
    const { input, view } = inputOf(tutorial());
    const rank = computeRanks(view.nodes.length, input.sources, input.targets);
    input.sources.forEach((s, k) =>
      expect(rank[s]).toBeLessThan(rank[input.targets[k]])
    );
    // The root is in the last column.
    expect(rank[view.byKey.get('n0') as number]).toBe(
      Math.max(...Array.from(rank))
    );
  });

  it.each(graphFixtures())(
    'lays out %s left to right without overlaps',
    (_n, payload) => {
      const { input } = inputOf(payload);
      const l = layoutGraph(input);
      const cheap =
        dagreCost(input.widths.length, input.sources, input.targets) <=
        DAGRE_MAX_COST;
      expect(l.engine).toBe(cheap ? 'dagre' : 'layered');
      input.sources.forEach((s, k) =>
        expect(l.x[s]).toBeLessThan(l.x[input.targets[k]])
      );
      expect(overlaps(l)).toBe(0);
      for (let i = 0; i < l.x.length; i++) {
        expect(l.x[i] - l.widths[i] / 2).toBeGreaterThanOrEqual(0);
        expect(l.x[i] + l.widths[i] / 2).toBeLessThanOrEqual(l.width + 0.5);
        expect(l.y[i] + l.heights[i] / 2).toBeLessThanOrEqual(l.height + 0.5);
      }
      if (cheap) {
        expect(l.points.every(p => p !== null && p.length >= 2)).toBe(true);
      }
    }
  );

  it('layered layout: no overlaps, edges left to right', () => {
    const { input } = inputOf(mlpPayload(2000));
    const l = layeredLayout(input);
    expect(overlaps(l)).toBe(0);
    input.sources.forEach((s, k) =>
      expect(l.x[s]).toBeLessThan(l.x[input.targets[k]])
    );
    const big = inputOf(mlpPayload(20000)).input;
    layeredLayout(big);
  });

  it('picks the layered layout when dagre would be too slow', () => {
    const { input } = inputOf(chainPayload(20000));
    expect(
      dagreCost(input.widths.length, input.sources, input.targets)
    ).toBeGreaterThan(DAGRE_MAX_COST);
    const l = layoutGraph(input);
    expect(l.engine).toBe('layered');
  });

  it('survives cycles (not expected from Python, but not trusted either)', () => {
    const l = layeredLayout({
      widths: [60, 60, 60],
      heights: [30, 30, 30],
      sources: [0, 1, 2],
      targets: [1, 2, 0]
    });
    expect(Array.from(l.x).every(Number.isFinite)).toBe(true);
    const d = layoutGraph(
      {
        widths: [60, 60, 60],
        heights: [30, 30, 30],
        sources: [0, 1, 2],
        targets: [1, 2, 0]
      },
      'dagre'
    );
    expect(Array.from(d.y).every(Number.isFinite)).toBe(true);
  });
});
