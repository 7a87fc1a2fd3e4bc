// Copies the canonical JSON Schema (owned by the Python package) next to the TypeScript sources,
// so the renderer validates against exactly the schema Python is tested against.
const fs = require('fs');
const path = require('path');

const SRC = path.join(__dirname, '..', '..', 'jupyter_autograd', 'schema', 'graph-v2.schema.json');
const DST = path.join(__dirname, '..', 'src', 'graph-v2.schema.json');

const text = fs.readFileSync(SRC, 'utf8');
JSON.parse(text);
if (!fs.existsSync(DST) || fs.readFileSync(DST, 'utf8') !== text) {
  fs.writeFileSync(DST, text);
}
