/**
 * Payload interfaces mirroring `graph-v1.schema.json` and the guard that checks an untrusted
 * MIME payload against that schema (the same file the Python tests validate against).
 */
import GRAPH_SCHEMA from './graph-v1.schema.json';

/** MIME type of the computation-graph payload. */
export const MIME_TYPE = 'application/vnd.jupyter-autograd.graph+json';

/** Schema version this renderer understands. */
export const SCHEMA_VERSION = 1;

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

/** Kinds of node in schema v1. */
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
}

/** One edge, in data-flow direction (input -> consumer). */
export interface IGraphEdge {
  source: string;
  target: string;
  input?: number;
  output?: number;
  grad?: string | null;
}

/** The whole payload of {@link MIME_TYPE}. */
export interface IGraphPayload {
  version: 1;
  direction?: 'forward' | 'backward';
  title?: string;
  nodes: IGraphNode[];
  edges: IGraphEdge[];
  roots: string[];
  backward_order?: string[];
  truncated: boolean;
  total_nodes: number;
  total_edges?: number;
}

/** Outcome of {@link checkPayload}: the payload, or a readable reason. */
export type CheckResult = { ok: true; payload: IGraphPayload } | { ok: false; message: string };

type JsonSchema = { [key: string]: unknown };

const MAX_PATH_CHARS = 120;
const PATTERN_CACHE = new Map<string, RegExp>();

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

/** Number of Unicode code points, as JSON Schema's maxLength counts them. */
function codePointLength(text: string, stopAfter: number): number {
  if (text.length <= stopAfter) {
    let n = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      // A high surrogate followed by a low one is a single code point.
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        const d = text.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          i++;
        }
      }
      n++;
    }
    return n;
  }
  // Every code point is at most two UTF-16 units.
  if (text.length > 2 * stopAfter) {
    return stopAfter + 1;
  }
  return Array.from(text).length;
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

function typeMatches(expected: unknown, actual: string): boolean {
  const names = Array.isArray(expected) ? expected : [expected];
  return names.some(n => n === actual || (n === 'number' && actual === 'integer'));
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

/**
 * Validate a JSON value against the subset of JSON Schema (2020-12) that graph-v1 uses:
 * type, const, enum, required, properties, additionalProperties, items, min/maxItems,
 * minimum/maximum, min/maxLength, pattern, oneOf, anyOf and local $ref.
 *
 * @returns null when valid, else the first error as "path: reason".
 */
export function validateAgainstSchema(
  value: unknown,
  schema: JsonSchema,
  root: JsonSchema = schema,
  path = 'payload'
): string | null {
  if (typeof schema.$ref === 'string') {
    const err = validateAgainstSchema(value, resolveRef(root, schema.$ref), root, path);
    if (err) {
      return err;
    }
  }
  const type = jsonType(value);
  if (schema.type !== undefined && !typeMatches(schema.type, type)) {
    const want = Array.isArray(schema.type) ? schema.type.join(' or ') : String(schema.type);
    return `${path} should be ${want}, got ${describe(value)}`;
  }
  if (hasOwn(schema, 'const') && value !== schema.const) {
    return `${path} should be ${JSON.stringify(schema.const)}, got ${describe(value)}`;
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value as never)) {
    return `${path} should be one of ${schema.enum.map(v => JSON.stringify(v)).join(', ')}`;
  }
  if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) {
    const branches = (schema.oneOf ?? schema.anyOf) as JsonSchema[];
    const passing = branches.filter(b => validateAgainstSchema(value, b, root, path) === null);
    if (passing.length === 0 || (schema.oneOf && passing.length > 1)) {
      const first = validateAgainstSchema(value, branches[0], root, path);
      return first ?? `${path} matches more than one allowed form`;
    }
  }
  if (type === 'string') {
    const text = value as string;
    if (typeof schema.maxLength === 'number') {
      if (codePointLength(text, schema.maxLength) > schema.maxLength) {
        return `${path} is longer than ${schema.maxLength} characters`;
      }
    }
    if (typeof schema.minLength === 'number' && codePointLength(text, 1e9) < schema.minLength) {
      return `${path} is shorter than ${schema.minLength} characters`;
    }
    if (typeof schema.pattern === 'string') {
      let re = PATTERN_CACHE.get(schema.pattern);
      if (!re) {
        re = new RegExp(schema.pattern, 'u');
        PATTERN_CACHE.set(schema.pattern, re);
      }
      if (!re.test(text)) {
        const preview = text.length > 24 ? `${JSON.stringify(text.slice(0, 24))}…` : JSON.stringify(text);
        return `${path} ${preview} does not match ${schema.pattern}`;
      }
    }
  }
  if (type === 'integer' || type === 'number') {
    const num = value as number;
    if (typeof schema.minimum === 'number' && num < schema.minimum) {
      return `${path} should be at least ${schema.minimum}, got ${num}`;
    }
    if (typeof schema.maximum === 'number' && num > schema.maximum) {
      return `${path} should be at most ${schema.maximum}, got ${num}`;
    }
  }
  if (type === 'array') {
    const arr = value as unknown[];
    if (typeof schema.maxItems === 'number' && arr.length > schema.maxItems) {
      return `${path} has ${arr.length} items, more than the ${schema.maxItems} allowed`;
    }
    if (typeof schema.minItems === 'number' && arr.length < schema.minItems) {
      return `${path} has fewer than ${schema.minItems} items`;
    }
    if (schema.items && typeof schema.items === 'object') {
      for (let i = 0; i < arr.length; i++) {
        const err = validateAgainstSchema(arr[i], schema.items as JsonSchema, root, `${path}[${i}]`);
        if (err) {
          return err;
        }
      }
    }
  }
  if (type === 'object') {
    const obj = value as { [key: string]: unknown };
    if (Array.isArray(schema.required)) {
      for (const key of schema.required as string[]) {
        if (!hasOwn(obj, key)) {
          return `${path} is missing the required property "${key}"`;
        }
      }
    }
    const props = (schema.properties ?? {}) as { [key: string]: JsonSchema };
    for (const key of Object.keys(props)) {
      if (hasOwn(obj, key)) {
        const err = validateAgainstSchema(obj[key], props[key], root, `${path}.${key}`);
        if (err) {
          return err;
        }
      }
    }
    if (schema.additionalProperties === false) {
      for (const key of Object.keys(obj)) {
        if (!hasOwn(props, key)) {
          return `${path} has an unexpected property ${JSON.stringify(key.slice(0, 40))}`;
        }
      }
    }
  }
  return null;
}

function capPath(message: string): string {
  return message.length > MAX_PATH_CHARS * 3 ? `${message.slice(0, MAX_PATH_CHARS * 3)}…` : message;
}

/**
 * Check an untrusted MIME payload: version first (for a precise message), then the JSON Schema,
 * then what a schema cannot say (unique ids, edges between known nodes, no self-loops).
 *
 * Never throws; never echoes long payload strings into the message.
 */
export function checkPayload(data: unknown): CheckResult {
  const fail = (message: string): CheckResult => ({ ok: false, message: capPath(message) });
  try {
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      return fail(`the payload should be a JSON object, got ${describe(data)}`);
    }
    const obj = data as { [key: string]: unknown };
    if (hasOwn(obj, 'version') && obj.version !== SCHEMA_VERSION) {
      const got =
        typeof obj.version === 'number' || typeof obj.version === 'string'
          ? JSON.stringify(obj.version).slice(0, 40)
          : describe(obj.version);
      return fail(
        `unsupported schema version ${got}; this renderer understands version ${SCHEMA_VERSION}. ` +
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
        return fail(`payload.edges[${i}].source ${e.source} is not a node of the payload`);
      }
      if (!ids.has(e.target)) {
        return fail(`payload.edges[${i}].target ${e.target} is not a node of the payload`);
      }
      if (e.source === e.target) {
        return fail(`payload.edges[${i}] is a self-loop on ${e.source}`);
      }
    }
    for (let i = 0; i < payload.roots.length; i++) {
      if (!ids.has(payload.roots[i])) {
        return fail(`payload.roots[${i}] ${payload.roots[i]} is not a node of the payload`);
      }
    }
    return { ok: true, payload };
  } catch (e) {
    return fail(`the payload could not be checked (${String(e).slice(0, 200)})`);
  }
}
