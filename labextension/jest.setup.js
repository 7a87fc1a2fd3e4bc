// jsdom does not expose Node's structuredClone, which dagre uses.
if (typeof globalThis.structuredClone === 'undefined') {
  const v8 = require('v8');
  globalThis.structuredClone = value => v8.deserialize(v8.serialize(value));
}

// jsdom has no DragEvent; @lumino/dragdrop (pulled in by @lumino/widgets) extends it at import.
if (typeof globalThis.DragEvent === 'undefined') {
  globalThis.DragEvent = class DragEvent extends MouseEvent {};
}
