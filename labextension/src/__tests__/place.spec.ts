import { ASCENT, labelSize, LabelPlacer } from '../edgelabels';
import { findPlace, intersects, IRect } from '../place';

const GRAD = 'tensor([0.0794, 0.3331, 0.2149])';

function box(at: { x: number; y: number } | null, text: string): IRect {
  if (!at) {
    throw new Error('not placed');
  }
  const { w, h } = labelSize(text);
  return {
    l: at.x - w / 2,
    t: at.y - ASCENT,
    r: at.x + w / 2,
    b: at.y - ASCENT + h
  };
}

describe('findPlace', () => {
  it('takes the first free preferred place', () => {
    const p = findPlace({
      w: 10,
      h: 10,
      preferred: [
        { x: 0, y: 0 },
        { x: 50, y: 0 },
        { x: 100, y: 0 }
      ],
      xs: [],
      ys: [],
      avoid: [{ l: 0, t: 0, r: 20, b: 20 }],
      distance: () => 0
    });
    expect([p.x, p.y, p.cost]).toEqual([50, 0, 0]);
  });

  it('else the least covering grid place, then the nearest', () => {
    const p = findPlace({
      w: 10,
      h: 10,
      preferred: [],
      xs: [0, 10, 20, 30, 40],
      ys: [0],
      avoid: [{ l: 0, t: 0, r: 25, b: 10 }],
      distance: x => Math.abs(x - 0)
    });
    expect([p.x, p.cost]).toEqual([30, 0]);
  });
});

describe('LabelPlacer', () => {
  // Two gradients flowing into one node from two inputs side by side (the tutorial's
  // AddBackward0 at replay step 2): both edges meet at the target, 36 units below the inputs.
  const inputs: IRect[] = [
    { l: 0, t: 0, r: 170, b: 30 },
    { l: 190, t: 0, r: 340, b: 30 }
  ];
  const target: IRect = { l: 110, t: 66, r: 250, b: 96 };
  const left = [
    { x: 85, y: 30 },
    { x: 170, y: 66 }
  ];
  const right = [
    { x: 265, y: 30 },
    { x: 190, y: 66 }
  ];

  it('keeps sibling labels off each other and off the nodes', () => {
    const placer = new LabelPlacer(inputs.concat([target]), {
      l: 0,
      t: 0,
      r: 400,
      b: 200
    });
    const a = box(placer.place([GRAD], left, { x: 127, y: 43 }), GRAD);
    const b = box(placer.place([GRAD], right, { x: 227, y: 43 }), GRAD);
    expect(intersects(a, b)).toBe(false);
    for (const n of inputs.concat([target])) {
      expect(intersects(a, n)).toBe(false);
      expect(intersects(b, n)).toBe(false);
    }
    expect(placer.placed).toHaveLength(2);
  });

  it('keeps the usual spot where it is free', () => {
    const placer = new LabelPlacer([], { l: 0, t: 0, r: 400, b: 200 });
    expect(placer.place(['(3,)'], left, { x: 127, y: 43 })).toEqual({
      x: 127,
      y: 43,
      text: '(3,)'
    });
  });

  it('leaves out an optional label with no free place near its edge', () => {
    const full = [{ l: -1000, t: -1000, r: 1000, b: 1000 }];
    const placer = new LabelPlacer(full, {
      l: -1000,
      t: -1000,
      r: 1000,
      b: 1000
    });
    expect(placer.place([GRAD], left, { x: 127, y: 43 }, true)).toBeNull();
    expect(placer.placed).toHaveLength(0);
    expect(placer.place([GRAD], left, { x: 127, y: 43 })).not.toBeNull();
  });

  it('shortens a label too long for every free place near its edge', () => {
    // a 100 x 40 room: the whole gradient does not fit in it, its shape does
    const walls = [
      { l: -1000, t: -1000, r: 1000, b: 0 },
      { l: -1000, t: 40, r: 1000, b: 1000 },
      { l: -1000, t: 0, r: 0, b: 40 },
      { l: 100, t: 0, r: 1000, b: 40 }
    ];
    const placer = new LabelPlacer(walls, {
      l: -1000,
      t: -1000,
      r: 1000,
      b: 1000
    });
    const edge = [
      { x: 50, y: 0 },
      { x: 50, y: 40 }
    ];
    const at = placer.place([GRAD, '(3,)'], edge, { x: 50, y: 25 }, true);
    expect(at && at.text).toBe('(3,)');
    expect(walls.some(r => intersects(r, box(at, '(3,)')))).toBe(false);
  });

  it('stays inside the drawing where the label fits', () => {
    const placer = new LabelPlacer([], { l: 0, t: 0, r: 300, b: 100 });
    const at = placer.place(
      [GRAD],
      [
        { x: 0, y: 0 },
        { x: 0, y: 50 }
      ],
      {
        x: 0,
        y: 5
      }
    );
    const r = box(at, GRAD);
    expect(r.l).toBeGreaterThanOrEqual(0);
    expect(r.t).toBeGreaterThanOrEqual(0);
  });
});
