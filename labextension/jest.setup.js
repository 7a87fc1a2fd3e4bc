// jsdom does not expose Node's structuredClone, which dagre uses.
if (typeof globalThis.structuredClone === 'undefined') {
  const v8 = require('v8');
  globalThis.structuredClone = value => v8.deserialize(v8.serialize(value));
}
