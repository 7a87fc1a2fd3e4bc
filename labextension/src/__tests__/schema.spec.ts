import * as fs from 'fs';
import * as path from 'path';

import {
  checkPayload,
  ERROR_PREFIX,
  MIME_TYPE,
  validateAgainstSchema
} from '../schema';
import {
  chainPayload,
  clone,
  corpusPayload,
  FIXTURE_DIR,
  graphFixtures,
  mlpPayload,
  tutorial
} from './helpers';

const CANONICAL = path.join(
  __dirname,
  '..',
  '..',
  '..',
  'jupyter_autograd',
  'schema',
  'graph-v2.schema.json'
);

function reject(data: unknown): string {
  const r = checkPayload(data);
  expect(r.ok).toBe(false);
  return r.ok ? '' : r.message;
}

describe('schema guard', () => {
  it('uses the canonical schema file shared with Python', () => {
    const copy = fs.readFileSync(
      path.join(__dirname, '..', 'graph-v2.schema.json'),
      'utf8'
    );
    expect(copy).toBe(fs.readFileSync(CANONICAL, 'utf8'));
    expect(JSON.parse(copy).description).toContain(MIME_TYPE);
  });

  it.each(graphFixtures())(
    'accepts the Python fixture %s',
    (_name, payload) => {
      const r = checkPayload(payload);
      expect(r.ok ? 'ok' : r.message).toBe('ok');
    }
  );

  it('accepts generated graphs up to the 20 000-node schema limit', () => {
    expect(checkPayload(mlpPayload(2000)).ok).toBe(true);
    expect(checkPayload(chainPayload(20000)).ok).toBe(true);
    expect(checkPayload(corpusPayload()).ok).toBe(true);
  });

  it('counts maxLength in code points, as JSON Schema and Python do', () => {
    const p = tutorial();
    p.nodes[0].label = '😀'.repeat(2000);
    expect(checkPayload(p).ok).toBe(true);
    p.nodes[0].label = '😀'.repeat(2001);
    expect(reject(p)).toContain('payload.nodes[0].label is longer than 2000');
  });

  // Test plan F3: every malformed payload gets a readable reason, never an exception.
  const tut = tutorial();
  const withNodes = (f: (p: ReturnType<typeof tutorial>) => void) => {
    const p = clone(tut);
    f(p);
    return p;
  };
  const cases: Array<[string, unknown, string]> = [
    ['null', null, 'should be a JSON object, got null'],
    ['42', 42, 'should be a JSON object, got 42'],
    ['"str"', 'str', 'should be a JSON object, got a string'],
    ['[]', [], 'should be a JSON object, got an array'],
    ['{}', {}, 'missing the required property "version"'],
    [
      'nodes: "x"',
      { ...clone(tut), nodes: 'x' },
      'payload.nodes should be array'
    ],
    [
      'edge to n-1',
      withNodes(p => (p.edges[0].source = 'n-1')),
      'payload.edges[0].source "n-1" does not match'
    ],
    [
      'edge to 1e9',
      withNodes(p => (p.edges[0].target = 'n1000000000')),
      'does not match'
    ],
    [
      'edge to unknown',
      withNodes(p => (p.edges[0].target = 'n999999999')),
      'is not a node of the payload'
    ],
    [
      'self-loop',
      withNodes(p => (p.edges[0].target = p.edges[0].source)),
      'self-loop'
    ],
    ['duplicate ids', withNodes(p => (p.nodes[1].id = 'n0')), 'duplicate'],
    [
      'id __proto__',
      withNodes(p => (p.nodes[1].id = '__proto__')),
      'does not match'
    ],
    [
      'id constructor',
      withNodes(p => (p.nodes[1].id = 'constructor')),
      'does not match'
    ],
    [
      'version 999',
      { ...clone(tut), version: 999 },
      'unsupported schema version 999'
    ],
    [
      'version "1"',
      { ...clone(tut), version: '1' },
      'unsupported schema version "1"'
    ],
    [
      'NaN as string',
      { ...clone(tut), total_nodes: 'NaN' },
      'payload.total_nodes should be integer'
    ],
    [
      'Infinity as string',
      withNodes(p => ((p.nodes[7] as any).shape = ['Infinity'])),
      'payload.nodes[7].shape'
    ],
    [
      'bad kind',
      withNodes(p => ((p.nodes[0] as any).kind = 'widget')),
      'should be one of'
    ],
    [
      'root unknown',
      withNodes(p => (p.roots = ['n77'])),
      'payload.roots[0] n77 is not a node'
    ],
    [
      'truncated missing',
      withNodes(p => delete (p as any).truncated),
      'missing the required property "truncated"'
    ]
  ];

  it.each(cases)(
    'rejects %s with a readable message',
    (_name, data, expected) => {
      const before = Object.getOwnPropertyNames(Object.prototype).sort().join();
      const message = reject(data);
      expect(message).toContain(expected);
      expect(message.length).toBeLessThan(400);
      expect(Object.getOwnPropertyNames(Object.prototype).sort().join()).toBe(
        before
      );
      expect(({} as any).polluted).toBeUndefined();
    }
  );

  it('rejects a 10 MB string without echoing it', () => {
    const p = clone(tut);
    p.nodes[0].value = 'A'.repeat(10 * 1024 * 1024);
    const message = reject(p);
    expect(message).toBe(
      'payload.nodes[0].value is longer than 20000 characters'
    );
    expect(message.length).toBeLessThan(100);
  });

  it('rejects a 100 000-node chain by size, without deep recursion (G5)', () => {
    const message = reject(chainPayload(100000));
    expect(message).toContain('100000 items, more than the 20000 allowed');
  });

  it('never throws, even on hostile getters', () => {
    const evil = {};
    Object.defineProperty(evil, 'version', {
      enumerable: true,
      get() {
        throw new Error('boom');
      }
    });
    expect(reject(evil)).toContain('could not be checked');
  });

  it('has the prefix the UI shows', () => {
    expect(ERROR_PREFIX).toBe('Cannot render autograd graph: ');
  });

  it('supports the schema keywords graph-v2 uses', () => {
    const schema = {
      type: 'object',
      required: ['a'],
      properties: {
        a: { oneOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }] },
        b: {
          type: 'array',
          maxItems: 2,
          items: { type: 'string', pattern: '^x' }
        },
        c: { enum: ['p', 'q'] }
      },
      additionalProperties: false
    };
    expect(validateAgainstSchema({ a: 1 }, schema)).toBeNull();
    expect(validateAgainstSchema({ a: null, b: ['x1'] }, schema)).toBeNull();
    expect(validateAgainstSchema({ a: -1 }, schema)).toContain('at least 0');
    expect(validateAgainstSchema({ a: 1.5 }, schema)).toContain(
      'should be integer'
    );
    expect(
      validateAgainstSchema({ a: 1, b: ['x', 'x', 'x'] }, schema)
    ).toContain('3 items');
    expect(validateAgainstSchema({ a: 1, b: ['y'] }, schema)).toContain(
      'does not match'
    );
    expect(validateAgainstSchema({ a: 1, c: 'r' }, schema)).toContain('one of');
    expect(validateAgainstSchema({ a: 1, d: 0 }, schema)).toContain(
      'unexpected property'
    );
  });

  it('agrees with Python on the shared invalid-payload corpus', () => {
    const file = path.join(FIXTURE_DIR, 'labext_invalid_payloads.json');
    const corpus: Array<{ name: string; payload: unknown }> = JSON.parse(
      fs.readFileSync(file, 'utf8')
    );
    expect(corpus.length).toBeGreaterThan(10);
    for (const { name, payload } of corpus) {
      const r = checkPayload(payload);
      expect([name, r.ok]).toEqual([name, false]);
    }
  });
});
