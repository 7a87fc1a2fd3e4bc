import { buildModel, buildView, CollapseState } from '../graph';
import { layoutGraph } from '../layout';
import {
  capText,
  drawGraph,
  MAX_LABEL_CHARS,
  nodeLines,
  nodeSize,
  viewSizes
} from '../render';
import { checkPayload, IGraphPayload } from '../schema';
import { BASE_INTERVAL_MS } from '../replay';
import { GraphView, MIN_READABLE_ZOOM } from '../view';
import { GraphWidget } from '../widget';
import {
  corpusPayload,
  graphFixtures,
  LABEL_CORPUS,
  mlpPayload,
  tutorial
} from './helpers';

const DANGEROUS =
  'script, iframe, object, embed, foreignObject, a[href], [onerror], [onload], [onclick], [onmouseover], [data-commandlinker-command]';

function drawn(payload: IGraphPayload) {
  const model = buildModel(payload);
  const view = buildView(model, new CollapseState());
  const { lines, widths, heights } = viewSizes(model, view);
  const layout = layoutGraph({
    widths,
    heights,
    sources: view.edges.map(e => e.source),
    targets: view.edges.map(e => e.target)
  });
  return {
    model,
    view,
    layout,
    drawing: drawGraph(document, model, view, layout, lines, false)
  };
}

function mount(payload: IGraphPayload): GraphView {
  document.body.textContent = '';
  // left to right, so the assertions below do not depend on jsdom's zero-width canvas
  const v = new GraphView(document, payload, { rankdir: 'LR' });
  document.body.appendChild(v.node);
  return v;
}

function click(el: Element): void {
  el.dispatchEvent(new MouseEvent('click', { bubbles: true }));
}

function button(v: GraphView, action: string): HTMLButtonElement {
  return v.node.querySelector(
    `button[data-action="${action}"]`
  ) as HTMLButtonElement;
}

function nodeEl(v: GraphView, key: string): SVGGElement {
  return v.node.querySelector(
    `g.jp-AutogradGraph-node[data-key="${key}"]`
  ) as SVGGElement;
}

describe('render', () => {
  it('draws the tutorial graph: 11 nodes, 10 edges, kinds in distinct shapes', () => {
    const { drawing } = drawn(tutorial());
    const svg = drawing.svg;
    expect(svg.querySelectorAll('g.jp-AutogradGraph-node')).toHaveLength(11);
    expect(svg.querySelectorAll('path.jp-AutogradGraph-edge')).toHaveLength(10);
    expect(svg.querySelectorAll('.jp-AutogradGraph-tensor')).toHaveLength(5);
    expect(svg.querySelectorAll('.jp-AutogradGraph-function')).toHaveLength(4);
    expect(
      svg.querySelectorAll('.jp-AutogradGraph-accumulate polygon')
    ).toHaveLength(2);
    expect(svg.querySelectorAll('.jp-mod-leafGrad')).toHaveLength(2);
    expect(
      svg.querySelectorAll('.jp-mod-leafGrad .jp-AutogradGraph-leafMark')
    ).toHaveLength(2);
    expect(svg.querySelectorAll('.jp-mod-root')).toHaveLength(1);
    const w = svg.querySelector('g[data-key="n7"]') as SVGGElement;
    expect(
      Array.from(w.querySelectorAll('tspan')).map(t => t.textContent)
    ).toEqual(['w', '(5, 3)']);
    const mm = svg.querySelector('g[data-key="n5"]') as SVGGElement;
    expect(mm.textContent).toBe('MmBackward0');
  });

  it('caps labels by lines and code points', () => {
    expect(capText('abc', 3)).toBe('abc');
    expect(capText('abcd', 3)).toBe('abc…');
    expect(capText('😀😀😀😀', 3)).toBe('😀😀😀…');
    const model = buildModel(corpusPayload());
    const view = buildView(model, new CollapseState());
    const long = nodeLines(model, view.nodes[LABEL_CORPUS.length - 1]);
    expect(long).toEqual(['x'.repeat(MAX_LABEL_CHARS) + '…']);
    const multi = { ...tutorial() };
    multi.nodes[0].label = 'a\nb\nc\nd\ne';
    const m2 = buildModel(multi);
    expect(nodeLines(m2, buildView(m2, new CollapseState()).nodes[0])).toEqual([
      'a',
      'b',
      'c…'
    ]);
    expect(nodeSize(['abc']).width).toBeLessThan(
      nodeSize(['abcdefghijklmnopqrstuvwxyz']).width
    );
  });

  // Test plan F1: labels are text, never markup.
  it('renders hostile labels as inert text everywhere', () => {
    const payload = corpusPayload();
    expect(checkPayload(payload).ok).toBe(true);
    const v = mount(payload);
    const root = v.node;
    expect(root.querySelectorAll(DANGEROUS)).toHaveLength(0);
    expect((window as any).__pwned).toBeUndefined();
    payload.nodes.forEach(n => {
      const g = nodeEl(v, n.id);
      const lines = Array.from(g.querySelectorAll('tspan')).map(
        t => t.textContent
      );
      const expected = n.label
        .split('\n')
        .slice(0, 3)
        .map(l => capText(l, MAX_LABEL_CHARS));
      expect(lines).toEqual(expected);
    });
    // Open every tooltip/details panel and click everything.
    for (const el of Array.from(
      root.querySelectorAll('g.jp-AutogradGraph-node, button')
    )) {
      el.dispatchEvent(new MouseEvent('pointerover', { bubbles: true }));
      click(el);
    }
    expect(root.querySelectorAll(DANGEROUS)).toHaveLength(0);
    expect((window as any).__pwned).toBeUndefined();
    // No id or name attribute carries label text.
    for (const el of Array.from(root.querySelectorAll('[id], [name]'))) {
      for (const attr of ['id', 'name']) {
        const value = el.getAttribute(attr) ?? '';
        expect(
          LABEL_CORPUS.some(s => s.length > 3 && value.includes(s.slice(0, 12)))
        ).toBe(false);
      }
    }
    // The details panel shows the raw text.
    click(nodeEl(v, 'n1'));
    const details = root.querySelector(
      '.jp-AutogradGraph-details'
    ) as HTMLElement;
    expect(details.textContent).toContain(LABEL_CORPUS[1]);
    // Exported SVG stays inert and well-formed even with NUL and lone surrogates.
    const xml = v.exportSvg();
    const doc = new DOMParser().parseFromString(xml, 'image/svg+xml');
    expect(doc.getElementsByTagName('parsererror')).toHaveLength(0);
    expect(doc.querySelectorAll(DANGEROUS)).toHaveLength(0);
  });
});

describe('Python fixtures', () => {
  it.each(graphFixtures())(
    'renders %s completely and inertly',
    (_name, payload) => {
      const v = mount(payload);
      const drawn = v.node.querySelectorAll(
        'g.jp-AutogradGraph-node[data-key]'
      ).length;
      expect(drawn).toBe(Math.min(payload.nodes.length, v.view.nodes.length));
      // every node is drawn, or inside a drawn block standing for a repeated run
      const inBlocks = v.view.nodes.reduce(
        (n, node) => n + (node.group ? node.group.members.length - 1 : 0),
        0
      );
      if (payload.nodes.length <= 2000) {
        expect(drawn + inBlocks).toBe(payload.nodes.length);
        expect(
          v.node.querySelectorAll('path.jp-AutogradGraph-edge')
        ).toHaveLength(v.view.edges.length);
      }
      expect(v.node.querySelectorAll(DANGEROUS)).toHaveLength(0);
      for (const node of payload.nodes.slice(0, 300)) {
        const g = nodeEl(v, node.id);
        if (g) {
          const lines = Array.from(g.querySelectorAll('tspan')).map(
            t => t.textContent
          );
          expect(lines.join('\n')).toBe(
            nodeLines(v.model, v.view.nodes[v.view.byKey.get(node.id)!]).join(
              '\n'
            )
          );
        }
      }
      expect((window as any).__pwned).toBeUndefined();
    }
  );
});

describe('interactive view', () => {
  it('selects a node, shows details and highlights its paths', () => {
    const v = mount(tutorial());
    click(nodeEl(v, 'n3'));
    expect(v.node.querySelectorAll('.jp-mod-selected')).toHaveLength(1);
    expect(v.node.querySelectorAll('g.jp-mod-downstream')).toHaveLength(3);
    expect(v.node.querySelectorAll('g.jp-mod-upstream')).toHaveLength(6);
    expect(v.node.querySelectorAll('path.jp-mod-downstream')).toHaveLength(3);
    expect(v.node.querySelectorAll('path.jp-mod-upstream')).toHaveLength(6);
    const details = v.node.querySelector(
      '.jp-AutogradGraph-details'
    ) as HTMLElement;
    expect(details.textContent).toContain('AddBackward0');
    expect(details.textContent).toContain('_saved_alpha');
    expect(details.textContent).toContain('z = torch.matmul(x, w)+b');
    // Background click clears.
    click(v.node.querySelector('svg.jp-AutogradGraph-svg') as SVGSVGElement);
    expect(v.node.querySelectorAll('.jp-mod-selected')).toHaveLength(0);
  });

  it('shows a tooltip with value, grad, dtype and saved tensors', () => {
    const v = mount(tutorial());
    nodeEl(v, 'n7').dispatchEvent(
      new MouseEvent('pointerover', { bubbles: true })
    );
    const tip = v.node.querySelector(
      '.jp-AutogradGraph-tooltip'
    ) as HTMLElement;
    expect(tip.hidden).toBe(false);
    expect(tip.textContent).toContain('dtype');
    expect(tip.textContent).toContain('float32');
    expect(tip.textContent).toContain('requires_grad=True');
    expect(tip.textContent).toContain('tensor([[0.3178');
    nodeEl(v, 'n1').dispatchEvent(
      new MouseEvent('pointerover', { bubbles: true })
    );
    expect(tip.textContent).toContain('saved tensors');
    expect(tip.textContent).toContain('_saved_target');
  });

  it('collapses inputs and expands them with the toolbar', () => {
    const v = mount(tutorial());
    expect(button(v, 'collapse').disabled).toBe(true);
    click(nodeEl(v, 'n3'));
    click(button(v, 'collapse'));
    expect(
      v.node.querySelectorAll('g.jp-AutogradGraph-node[data-key]')
    ).toHaveLength(6);
    expect(v.node.querySelectorAll('path.jp-AutogradGraph-edge')).toHaveLength(
      5
    );
    const group = v.node.querySelector(
      'g.jp-AutogradGraph-collapsed[data-key]'
    ) as SVGGElement;
    const drawnText = Array.from(group.querySelectorAll('tspan'))
      .map(t => t.textContent)
      .join('');
    expect(drawnText).toBe('6 nodesinputs of AddBackward0');
    expect(group.classList.contains('jp-mod-selected')).toBe(true);
    click(button(v, 'expand'));
    expect(
      v.node.querySelectorAll('g.jp-AutogradGraph-node[data-key]')
    ).toHaveLength(11);
    // Double-click on a collapsed node expands it too.
    click(nodeEl(v, 'n3'));
    click(button(v, 'collapse'));
    v.node
      .querySelector('g.jp-AutogradGraph-collapsed[data-key]')!
      .dispatchEvent(new MouseEvent('dblclick', { bubbles: true }));
    expect(
      v.node.querySelectorAll('g.jp-AutogradGraph-node[data-key]')
    ).toHaveLength(11);
  });

  it('toggles forward and backward direction', () => {
    const v = mount(tutorial());
    const before = nodeEl(v, 'n0').getAttribute('transform');
    click(button(v, 'direction'));
    expect(v.backward).toBe(true);
    expect(button(v, 'direction').getAttribute('aria-pressed')).toBe('true');
    const after = nodeEl(v, 'n0').getAttribute('transform');
    expect(after).not.toBe(before);
    // The root moves from the right edge to the left edge.
    const x = (t: string | null) =>
      parseFloat((t ?? '').slice('translate('.length));
    expect(x(after)).toBeLessThan(x(before));
  });

  it('opens on the result of backward and steps through it', () => {
    const p = tutorial();
    p.edges.find(e => e.source === 'n2')!.grad =
      'tensor([0.3178, 0.3126, 0.0038])';
    const v = mount(p);
    const label = v.node.querySelector(
      '.jp-AutogradGraph-stepLabel'
    ) as HTMLElement;
    const status = v.node.querySelector(
      '.jp-AutogradGraph-status'
    ) as HTMLElement;
    // after backward: every node it ran is done and numbered, nothing in flight
    expect(label.textContent).toBe('6/6');
    expect(v.node.querySelectorAll('g.jp-mod-done')).toHaveLength(6);
    expect(v.node.querySelectorAll('g.jp-mod-active')).toHaveLength(0);
    const badges = Array.from(
      v.node.querySelectorAll('g.jp-mod-done .jp-AutogradGraph-badge text')
    ).map(t => Number(t.textContent));
    expect(badges.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    click(button(v, 'step-first'));
    expect(label.textContent).toBe('0/6');
    expect(
      v.node.querySelectorAll('.jp-mod-active, .jp-mod-done, .jp-mod-flowing')
    ).toHaveLength(0);
    click(button(v, 'step-next'));
    expect(label.textContent).toBe('1/6');
    expect(status.textContent).toBe(
      'Backward step 1 of 6: BinaryCrossEntropyWithLogitsBackward0'
    );
    expect(v.node.querySelectorAll('g.jp-mod-active')).toHaveLength(1);
    expect(v.node.querySelectorAll('path.jp-mod-flowing')).toHaveLength(3);
    expect(
      v.node.querySelector('.jp-AutogradGraph-edgeLabel.jp-mod-flowing')!
        .textContent
    ).toBe('tensor([0.3178, 0.3126, 0.0038])');
    click(button(v, 'step-next'));
    expect(label.textContent).toBe('2/6');
    expect(v.node.querySelectorAll('g.jp-mod-done')).toHaveLength(1);
    expect(v.node.querySelectorAll('path.jp-mod-flowed')).toHaveLength(3);
    click(button(v, 'step-last'));
    expect(label.textContent).toBe('6/6');
    expect(button(v, 'step-next').disabled).toBe(true);
  });

  it('jumps to a node and plays at the chosen speed', () => {
    jest.useFakeTimers();
    try {
      const v = mount(tutorial());
      click(nodeEl(v, 'n3'));
      const jump = v.node.querySelector(
        'button[data-action="jump"]'
      ) as HTMLButtonElement;
      expect(jump.textContent).toBe('Jump to its backward step (2)');
      click(jump);
      expect(v.step).toBe(2);
      click(button(v, 'play'));
      expect(button(v, 'play').textContent).toBe('Pause');
      jest.advanceTimersByTime(BASE_INTERVAL_MS * 2 + 10);
      expect(v.step).toBe(4);
      const speed = v.node.querySelector(
        '.jp-AutogradGraph-speed'
      ) as HTMLSelectElement;
      speed.value = '4';
      speed.dispatchEvent(new Event('change'));
      jest.advanceTimersByTime(BASE_INTERVAL_MS / 4 + 10);
      expect(v.step).toBe(5);
      jest.advanceTimersByTime(BASE_INTERVAL_MS * 10);
      expect(v.step).toBe(6);
      expect(button(v, 'play').textContent).toBe('Play');
    } finally {
      jest.useRealTimers();
    }
  });

  it('zooms with the wheel and the buttons, never fitting below 11 px text', () => {
    const v = mount(tutorial());
    const viewport = v.node.querySelector(
      '.jp-AutogradGraph-viewport'
    ) as SVGGElement;
    const canvas = v.node.querySelector(
      '.jp-AutogradGraph-canvas'
    ) as HTMLElement;
    const scale = () =>
      parseFloat(
        /scale\(([\d.]+)\)/.exec(
          viewport.getAttribute('transform') ?? ''
        )?.[1] ?? '1'
      );
    const k0 = scale();
    const plain = new WheelEvent('wheel', {
      deltaY: -100,
      bubbles: true,
      cancelable: true
    });
    canvas.dispatchEvent(plain);
    expect(plain.defaultPrevented).toBe(true);
    expect(scale()).toBeGreaterThan(k0);
    click(button(v, 'zoom-out'));
    click(button(v, 'zoom-out'));
    expect(scale()).toBeLessThan(k0 * 1.2);
    expect(v.node.textContent).toContain('wheel: zoom');
    // a fit on a narrow canvas keeps the text readable: the drawing pans instead
    Object.defineProperty(canvas, 'clientWidth', { value: 200 });
    click(button(v, 'fit'));
    expect(scale()).toBeGreaterThanOrEqual(MIN_READABLE_ZOOM);
  });

  it('finds a node with /', () => {
    const v = mount(tutorial());
    const canvas = v.node.querySelector(
      '.jp-AutogradGraph-canvas'
    ) as HTMLElement;
    canvas.dispatchEvent(
      new KeyboardEvent('keydown', { key: '/', bubbles: true })
    );
    const search = v.node.querySelector(
      '.jp-AutogradGraph-search'
    ) as HTMLInputElement;
    expect(search.hidden).toBe(false);
    search.value = 'addback';
    search.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    expect(v.selected).toBe(v.view.byKey.get('n3'));
  });

  it('draws saved tensors as small nodes on dotted edges when the payload asks (--saved)', () => {
    const payload = graphFixtures().find(
      ([f]) => f === 'graph_tutorial_backward.json'
    )![1];
    const plain = mount(payload);
    expect(
      plain.node.querySelectorAll(
        '.jp-AutogradGraph-svg .jp-AutogradGraph-saved'
      )
    ).toHaveLength(0);
    payload.show_saved = true;
    const v = mount(payload);
    const saved = Array.from(
      v.node.querySelectorAll('.jp-AutogradGraph-svg .jp-AutogradGraph-saved')
    );
    // the tensors BCE and mm saved (mm keeps only x, for w's gradient, as torch); alpha, dim
    // and sizes are Python values, not nodes
    expect(saved.map(el => el.getAttribute('aria-label')).sort()).toEqual([
      'self (1, 5)',
      'self = z (3,)',
      'target = y (3,)'
    ]);
    const dotted = v.node.querySelectorAll(
      '.jp-AutogradGraph-svg .jp-AutogradGraph-edge.jp-mod-saved'
    );
    expect(dotted).toHaveLength(3);
    const targets = Array.from(dotted).map(e => e.getAttribute('data-target'));
    expect(targets.sort()).toEqual(['n2', 'n2', 'n8']);
    // no gradient flows to a saved tensor at any step of the replay
    for (let step = 0; step <= 6; step++) {
      v.setStep(step);
      dotted.forEach(e => {
        expect(e.classList.contains('jp-mod-flowing')).toBe(false);
        expect(e.classList.contains('jp-mod-flowed')).toBe(false);
      });
    }
  });

  it('names every edge style in the legend', () => {
    const v = mount(tutorial());
    const styles = Array.from(
      v.node.querySelectorAll('.jp-AutogradGraph-legendItem[data-edge-style]')
    ).map(el => (el as HTMLElement).dataset.edgeStyle);
    expect(styles).toEqual([
      'plain',
      'jp-mod-bundled',
      'jp-mod-downstream',
      'jp-mod-upstream',
      'jp-mod-flowing',
      'jp-mod-flowed',
      'jp-mod-saved'
    ]);
  });

  it('says when Python truncated the graph, and lists the members of its groups', () => {
    const p = tutorial();
    p.truncated = true;
    p.total_nodes = 100000;
    p.nodes[4] = {
      id: 'n4',
      kind: 'group',
      label: 'MulBackward0 ×500',
      count: 500,
      members: ['MulBackward0', 'AddBackward0']
    };
    const v = mount(p);
    const notice = v.node.querySelector(
      '.jp-AutogradGraph-notice'
    ) as HTMLElement;
    expect(notice.hidden).toBe(false);
    expect(notice.textContent).toContain('Showing 11 of 100000 nodes');
    const g = nodeEl(v, 'n4');
    expect(g.classList.contains('jp-AutogradGraph-group')).toBe(true);
    expect(g.querySelectorAll('.jp-AutogradGraph-shape-back')).toHaveLength(1);
    click(g);
    const details = v.node.querySelector(
      '.jp-AutogradGraph-details'
    ) as HTMLElement;
    expect(details.textContent).toContain('collapsed nodes500');
    expect(details.textContent).toContain('MulBackward0\nAddBackward0');
  });

  it('has no stepper when backward has not run', () => {
    const p = tutorial();
    delete p.backward_order;
    const v = mount(p);
    expect(button(v, 'step-next')).toBeNull();
  });

  it('is keyboard reachable', () => {
    const v = mount(tutorial());
    const canvas = v.node.querySelector(
      '.jp-AutogradGraph-canvas'
    ) as HTMLElement;
    expect(canvas.tabIndex).toBe(0);
    const key = (k: string) =>
      canvas.dispatchEvent(
        new KeyboardEvent('keydown', { key: k, bubbles: true })
      );
    key('ArrowLeft');
    expect(document.activeElement).toBe(nodeEl(v, 'n0'));
    key('ArrowLeft');
    expect(document.activeElement).toBe(nodeEl(v, 'n1'));
    key('Enter');
    expect(v.selected).toBe(v.view.byKey.get('n1'));
    key('c');
    expect(
      v.node.querySelectorAll('g.jp-AutogradGraph-node[data-key]')
    ).toHaveLength(3);
    key('e');
    expect(
      v.node.querySelectorAll('g.jp-AutogradGraph-node[data-key]')
    ).toHaveLength(11);
    key('[');
    expect(v.step).toBe(5);
    key('Escape');
    expect(v.selected).toBe(-1);
    for (const b of Array.from(v.node.querySelectorAll('button'))) {
      expect(b.getAttribute('aria-label')).toBeTruthy();
    }
  });

  it('exports a standalone SVG with every node', () => {
    const v = mount(tutorial());
    const xml = v.exportSvg();
    expect(xml.startsWith('<?xml')).toBe(true);
    const doc = new DOMParser().parseFromString(xml, 'image/svg+xml');
    expect(doc.getElementsByTagName('parsererror')).toHaveLength(0);
    expect(doc.querySelectorAll('g.jp-AutogradGraph-node')).toHaveLength(11);
    expect(doc.documentElement.getAttribute('viewBox')).toMatch(
      /^0 0 \d+ \d+$/
    );
  });

  it('draws 2 000 nodes and collapses 20 000', () => {
    const v = mount(mlpPayload(2000));
    expect(
      v.node.querySelectorAll('g.jp-AutogradGraph-node[data-key]')
    ).toHaveLength(1993);
    const big = mount(mlpPayload(20000));
    expect(big.view.nodes.length).toBeLessThanOrEqual(2000);
    expect(
      big.node.querySelectorAll('g.jp-AutogradGraph-collapsed[data-key]').length
    ).toBeGreaterThan(0);
  });
});

describe('widget', () => {
  const model = (data: unknown) =>
    ({
      data: { 'application/vnd.jupyter-autograd.graph+json': data },
      trusted: false,
      metadata: {}
    }) as any;

  it.each([null, 42, 'str', [], {}, { version: 999 }])(
    'shows an alert for %p',
    async data => {
      const w = new GraphWidget({
        mimeType: 'application/vnd.jupyter-autograd.graph+json'
      } as any);
      await expect(w.renderModel(model(data))).resolves.toBeUndefined();
      const alert = w.node.querySelector('[role="alert"]') as HTMLElement;
      expect(
        alert.textContent!.startsWith('Cannot render autograd graph:')
      ).toBe(true);
    }
  );

  it('renders a valid payload the same whether trusted or not', async () => {
    const a = new GraphWidget({
      mimeType: 'application/vnd.jupyter-autograd.graph+json'
    } as any);
    const b = new GraphWidget({
      mimeType: 'application/vnd.jupyter-autograd.graph+json'
    } as any);
    await a.renderModel(model(tutorial()));
    await b.renderModel({ ...model(tutorial()), trusted: true });
    const count = (w: GraphWidget) =>
      w.node.querySelectorAll('g.jp-AutogradGraph-node[data-key]').length;
    expect(count(a)).toBe(11);
    expect(count(b)).toBe(11);
  });
});
