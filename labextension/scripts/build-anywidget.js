/**
 * Bundle lib/anywidget.js (tsc's output) with its dependencies into one ES module, and the
 * view's CSS next to it, in ../jupyter_autograd/static/: what `graph(...).widget()` ships to
 * any frontend that runs ipywidgets (issue #17). Run after `tsc` (jlpm build:anywidget).
 */
const fs = require('fs');
const path = require('path');
const { rspack } = require('@rspack/core');

const out = path.resolve(__dirname, '..', '..', 'jupyter_autograd', 'static');
const production = process.argv.includes('--production');

rspack(
  {
    mode: production ? 'production' : 'development',
    devtool: false,
    context: path.resolve(__dirname, '..'),
    entry: './lib/anywidget.js',
    experiments: { outputModule: true },
    output: {
      path: out,
      filename: 'graph-widget.js',
      library: { type: 'module' },
      module: true,
      chunkFormat: 'module'
    },
    optimization: { splitChunks: false },
    performance: { hints: false }
  },
  (err, stats) => {
    if (err || stats.hasErrors()) {
      console.error(err || stats.toString({ all: false, errors: true }));
      process.exit(1);
    }
    const css = fs.readFileSync(
      path.resolve(__dirname, '..', 'style', 'base.css'),
      'utf8'
    );
    fs.writeFileSync(path.join(out, 'graph-widget.css'), css);
    const size = fs.statSync(path.join(out, 'graph-widget.js')).size;
    console.log(`anywidget bundle: ${out}/graph-widget.js (${size} bytes) and graph-widget.css`);
  }
);
