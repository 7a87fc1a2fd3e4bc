/**
 * Payload interfaces mirroring `graph-v2.schema.json` and the guard that checks an untrusted
 * MIME payload against that schema (the same file the Python tests validate against).
 */
import GRAPH_SCHEMA from './graph-v2.schema.json';

/** MIME type of the computation-graph payload. */
export const MIME_TYPE = 'application/vnd.jupyter-autograd.graph+json';

/** Schema version this renderer writes against; version 1 payloads (a subset) draw too. */
export const SCHEMA_VERSION = 2;

/** Every schema version this renderer draws. */
export const SCHEMA_VERSIONS: ReadonlyArray<number> = [1, 2];

/** Prefix of every message shown instead of a graph. */
export const ERROR_PREFIX = 'Cannot render autograd graph: ';

/** A tensor saved by a function node for its backward. */
export interface ISavedTensor {
  name: string;
  shape?: number[] | null;
  dtype?: string | null;
  value?: string;
  tensor?: string;
}

/** Where in the user's cell a node was created. */
export interface ISource {
  line: number;
  code: string;
  file?: string;
}

/** Kinds of node in the schema. */
export type NodeKind = 'tensor' | 'function' | 'accumulate' | 'group';

/** One node of the payload. */
export interface IGraphNode {
  id: string;
  kind: NodeKind;
  label: string;
  name?: string | null;
  op?: string | null;
  shape?: number[] | null;
  dtype?: string | null;
  requires_grad?: boolean;
  is_leaf?: boolean;
  retains_grad?: boolean;
  is_root?: boolean;
  value?: string | null;
  grad?: string | null;
  saved?: ISavedTensor[];
  source?: ISource | null;
  count?: number;
  members?: string[];
  backward_step?: number | null;
  /** Every name of a tensor, best first (v2). */
  names?: INodeName[];
  /** Innermost module this node belongs to (v2). */
  module?: string;
  /**
   * Renderer-side only (never in a payload): the function node id whose saved tensor this
   * node draws when the payload asks for `show_saved`.
   */
  saved_of?: string;
}

/** One name of a tensor: a variable, a list item, a parameter or buffer path. */
export interface INodeName {
  name: string;
  kind: 'variable' | 'item' | 'parameter' | 'buffer';
}

/** A run of structurally identical iterations (v2). */
export interface IRepeat {
  id: string;
  kind?: 'loop' | 'siblings';
  count: number;
  label: string;
  /** Node ids of each listed iteration (fewer than count when Python truncated). */
  iterations: string[][];
}

/** An nn.Module whose forward made nodes (v2). */
export interface IModule {
  id: string;
  path?: string;
  type?: string;
  label: string;
  parent?: string | null;
}

/** How the backward replay opens (v2). */
export interface IReplay {
  step: number;
  controls?: boolean;
}

/** One edge, in data-flow direction (input -> consumer). */
export interface IGraphEdge {
  source: string;
  target: string;
  input?: number;
  output?: number;
  grad?: string | null;
  /** How many edges this one stands for (v2). */
  count?: number;
  /** Shape of the gradient that flowed along it (v2). */
  grad_shape?: number[];
  /** Renderer-side only: a dotted edge from a saved tensor to its function (no data flows). */
  saved?: boolean;
}

/** The whole payload of {@link MIME_TYPE}. */
export interface IGraphPayload {
  version: 1 | 2;
  direction?: 'forward' | 'backward';
  title?: string;
  nodes: IGraphNode[];
  edges: IGraphEdge[];
  roots: string[];
  backward_order?: string[];
  truncated: boolean;
  total_nodes: number;
  total_edges?: number;
  repeats?: IRepeat[];
  modules?: IModule[];
  show_saved?: boolean;
  replay?: IReplay;
}

/** Outcome of {@link checkPayload}: the payload, or a readable reason. */
export type CheckResult =
  { ok: true; payload: IGraphPayload } | { ok: false; message: string };

type JsonSchema = { [key: string]: unknown };

const MAX_PATH_CHARS = 120;

/** Type name of a JSON value as JSON Schema spells it. */
function jsonType(value: unknown): string {
  if (value === null) {
    return 'null';
  }
  if (Array.isArray(value)) {
    return 'array';
  }
  if (typeof value === 'number') {
    return Number.isInteger(value) ? 'integer' : 'number';
  }
  return typeof value;
}

/** Whether `text` has more than `max` Unicode code points (JSON Schema's maxLength unit). */
function longerThan(text: string, max: number): boolean {
  // A code point is one or two UTF-16 units, so only the range in between needs counting.
  if (text.length <= max) {
    return false;
  }
  if (text.length > 2 * max) {
    return true;
  }
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
      }
    }
    if (++n > max) {
      return true;
    }
  }
  return false;
}

function resolveRef(root: JsonSchema, ref: string): JsonSchema {
  if (!ref.startsWith('#/')) {
    throw new Error(`unsupported $ref ${ref}`);
  }
  let cur: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    cur = (cur as JsonSchema)[part];
  }
  return cur as JsonSchema;
}

function describe(value: unknown): string {
  const t = jsonType(value);
  if (t === 'string') {
    return `a string`;
  }
  if (t === 'number' || t === 'integer' || t === 'boolean') {
    return String(value);
  }
  return t === 'object' ? 'an object' : t === 'array' ? 'an array' : t;
}

function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** A failed check; `path` collects segments innermost first while the error travels up. */
class SchemaError {
  constructor(
    readonly reason: string,
    readonly path: string[] = []
  ) {}
}

type Check = (value: unknown) => SchemaError | null;

const COMPILED = new WeakMap<object, Check>();

/**
 * Turn a schema into a tree of plain closures (no code generation), once per schema object, so
 * a 20 000-node payload is checked in a few tens of milliseconds.
 */
function compile(schema: JsonSchema, root: JsonSchema): Check {
  const hit = COMPILED.get(schema);
  if (hit) {
    return hit;
  }
  const checks: Check[] = [];
  const self: Check = value => {
    for (const check of checks) {
      const err = check(value);
      if (err) {
        return err;
      }
    }
    return null;
  };
  // Registered before compiling children, so recursive $refs terminate.
  COMPILED.set(schema, self);

  if (typeof schema.$ref === 'string') {
    const target = resolveRef(root, schema.$ref);
    checks.push(value => compile(target, root)(value));
  }
  if (schema.type !== undefined) {
    const names = (
      Array.isArray(schema.type) ? schema.type : [schema.type]
    ) as string[];
    const want = names.join(' or ');
    const allowsNumber = names.includes('number');
    checks.push(value => {
      const t = jsonType(value);
      return names.includes(t) || (allowsNumber && t === 'integer')
        ? null
        : new SchemaError(`should be ${want}, got ${describe(value)}`);
    });
  }
  if (hasOwn(schema, 'const')) {
    const expected = schema.const;
    checks.push(value =>
      value === expected
        ? null
        : new SchemaError(
            `should be ${JSON.stringify(expected)}, got ${describe(value)}`
          )
    );
  }
  if (Array.isArray(schema.enum)) {
    const allowed = schema.enum as unknown[];
    const text = allowed.map(v => JSON.stringify(v)).join(', ');
    checks.push(value =>
      allowed.includes(value)
        ? null
        : new SchemaError(`should be one of ${text}`)
    );
  }
  if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) {
    const exactlyOne = Array.isArray(schema.oneOf);
    const branches = ((schema.oneOf ?? schema.anyOf) as JsonSchema[]).map(b =>
      compile(b, root)
    );
    checks.push(value => {
      let passing = 0;
      let first: SchemaError | null = null;
      for (const b of branches) {
        const err = b(value);
        if (err) {
          first = first ?? err;
        } else {
          passing++;
        }
      }
      if (passing === 0) {
        return first;
      }
      return exactlyOne && passing > 1
        ? new SchemaError('matches more than one allowed form')
        : null;
    });
  }
  if (typeof schema.maxLength === 'number') {
    const max = schema.maxLength;
    checks.push(value =>
      typeof value === 'string' && longerThan(value, max)
        ? new SchemaError(`is longer than ${max} characters`)
        : null
    );
  }
  if (typeof schema.minLength === 'number') {
    const min = schema.minLength;
    checks.push(value =>
      typeof value === 'string' && !longerThan(value, min - 1)
        ? new SchemaError(`is shorter than ${min} characters`)
        : null
    );
  }
  if (typeof schema.pattern === 'string') {
    const pattern = schema.pattern;
    const re = new RegExp(pattern, 'u');
    checks.push(value => {
      if (typeof value !== 'string' || re.test(value)) {
        return null;
      }
      const preview =
        value.length > 24
          ? `${JSON.stringify(value.slice(0, 24))}…`
          : JSON.stringify(value);
      return new SchemaError(`${preview} does not match ${pattern}`);
    });
  }
  if (typeof schema.minimum === 'number') {
    const min = schema.minimum;
    checks.push(value =>
      typeof value === 'number' && value < min
        ? new SchemaError(`should be at least ${min}, got ${value}`)
        : null
    );
  }
  if (typeof schema.maximum === 'number') {
    const max = schema.maximum;
    checks.push(value =>
      typeof value === 'number' && value > max
        ? new SchemaError(`should be at most ${max}, got ${value}`)
        : null
    );
  }
  if (typeof schema.maxItems === 'number') {
    const max = schema.maxItems;
    checks.push(value =>
      Array.isArray(value) && value.length > max
        ? new SchemaError(
            `has ${value.length} items, more than the ${max} allowed`
          )
        : null
    );
  }
  if (typeof schema.minItems === 'number') {
    const min = schema.minItems;
    checks.push(value =>
      Array.isArray(value) && value.length < min
        ? new SchemaError(`has fewer than ${min} items`)
        : null
    );
  }
  if (
    schema.items &&
    typeof schema.items === 'object' &&
    !Array.isArray(schema.items)
  ) {
    const item = compile(schema.items as JsonSchema, root);
    checks.push(value => {
      if (!Array.isArray(value)) {
        return null;
      }
      for (let i = 0; i < value.length; i++) {
        const err = item(value[i]);
        if (err) {
          err.path.push(`[${i}]`);
          return err;
        }
      }
      return null;
    });
  }
  const isObject = (value: unknown): value is { [key: string]: unknown } =>
    value !== null && typeof value === 'object' && !Array.isArray(value);
  if (Array.isArray(schema.required)) {
    const required = schema.required as string[];
    checks.push(value => {
      if (!isObject(value)) {
        return null;
      }
      for (const key of required) {
        if (!hasOwn(value, key)) {
          return new SchemaError(`is missing the required property "${key}"`);
        }
      }
      return null;
    });
  }
  const props = (schema.properties ?? {}) as { [key: string]: JsonSchema };
  const entries: Array<[string, Check]> = Object.keys(props).map(k => [
    k,
    compile(props[k], root)
  ]);
  if (entries.length > 0) {
    checks.push(value => {
      if (!isObject(value)) {
        return null;
      }
      for (const [key, check] of entries) {
        if (hasOwn(value, key)) {
          const err = check(value[key]);
          if (err) {
            err.path.push(`.${key}`);
            return err;
          }
        }
      }
      return null;
    });
  }
  if (schema.additionalProperties === false) {
    checks.push(value => {
      if (!isObject(value)) {
        return null;
      }
      for (const key of Object.keys(value)) {
        if (!hasOwn(props, key)) {
          return new SchemaError(
            `has an unexpected property ${JSON.stringify(key.slice(0, 40))}`
          );
        }
      }
      return null;
    });
  }
  return self;
}

/**
 * Validate a JSON value against the subset of JSON Schema (2020-12) that graph-v2 uses:
 * type, const, enum, required, properties, additionalProperties, items, min/maxItems,
 * minimum/maximum, min/maxLength, pattern, oneOf, anyOf and local $ref.
 *
 * @returns null when valid, else the first error as "path reason".
 */
export function validateAgainstSchema(
  value: unknown,
  schema: JsonSchema,
  root: JsonSchema = schema,
  path = 'payload'
): string | null {
  const err = compile(schema, root)(value);
  return err ? `${path}${err.path.reverse().join('')} ${err.reason}` : null;
}

function capPath(message: string): string {
  return message.length > MAX_PATH_CHARS * 3
    ? `${message.slice(0, MAX_PATH_CHARS * 3)}…`
    : message;
}

/**
 * Check an untrusted MIME payload: version first (for a precise message), then the JSON Schema,
 * then what a schema cannot say (unique ids, edges between known nodes, no self-loops).
 *
 * Never throws; never echoes long payload strings into the message.
 */
export function checkPayload(data: unknown): CheckResult {
  const fail = (message: string): CheckResult => ({
    ok: false,
    message: capPath(message)
  });
  try {
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      return fail(`the payload should be a JSON object, got ${describe(data)}`);
    }
    const obj = data as { [key: string]: unknown };
    if (
      hasOwn(obj, 'version') &&
      !SCHEMA_VERSIONS.includes(obj.version as number)
    ) {
      const got =
        typeof obj.version === 'number' || typeof obj.version === 'string'
          ? JSON.stringify(obj.version).slice(0, 40)
          : describe(obj.version);
      return fail(
        `unsupported schema version ${got}; this renderer understands versions ${SCHEMA_VERSIONS.join(' and ')}. ` +
          'Install matching versions of the jupyter-autograd Python package and extension.'
      );
    }
    const err = validateAgainstSchema(data, GRAPH_SCHEMA as JsonSchema);
    if (err) {
      return fail(err);
    }
    const payload = data as IGraphPayload;
    const ids = new Set<string>();
    for (let i = 0; i < payload.nodes.length; i++) {
      const id = payload.nodes[i].id;
      if (ids.has(id)) {
        return fail(`payload.nodes[${i}].id ${id} is a duplicate`);
      }
      ids.add(id);
    }
    for (let i = 0; i < payload.edges.length; i++) {
      const e = payload.edges[i];
      if (!ids.has(e.source)) {
        return fail(
          `payload.edges[${i}].source ${e.source} is not a node of the payload`
        );
      }
      if (!ids.has(e.target)) {
        return fail(
          `payload.edges[${i}].target ${e.target} is not a node of the payload`
        );
      }
      if (e.source === e.target) {
        return fail(`payload.edges[${i}] is a self-loop on ${e.source}`);
      }
    }
    for (let i = 0; i < payload.roots.length; i++) {
      if (!ids.has(payload.roots[i])) {
        return fail(
          `payload.roots[${i}] ${payload.roots[i]} is not a node of the payload`
        );
      }
    }
    const reps = payload.repeats ?? [];
    for (let i = 0; i < reps.length; i++) {
      for (const it of reps[i].iterations) {
        const bad = it.find(id => !ids.has(id));
        if (bad !== undefined) {
          return fail(
            `payload.repeats[${i}] lists ${bad.slice(0, 40)}, not a node of the payload`
          );
        }
      }
    }
    const mods = new Set((payload.modules ?? []).map(m => m.id));
    for (let i = 0; i < payload.nodes.length; i++) {
      const m = payload.nodes[i].module;
      if (m !== undefined && !mods.has(m)) {
        return fail(
          `payload.nodes[${i}].module ${m} is not a module of the payload`
        );
      }
    }
    for (const m of payload.modules ?? []) {
      if (m.parent && !mods.has(m.parent)) {
        return fail(`module ${m.id} has an unknown parent ${m.parent}`);
      }
    }
    return { ok: true, payload };
  } catch (e) {
    return fail(
      `the payload could not be checked (${String(e).slice(0, 200)})`
    );
  }
}
