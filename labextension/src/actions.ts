/**
 * What the toolbar buttons do, in terms of the view's public API.
 */
import { download, fileStem } from './exporter';
import { GraphView } from './view';

/** Run the toolbar action `action` (a button's data-action) on `view`. */
export function runAction(view: GraphView, action: string): void {
  const sel = view.selected;
  switch (action) {
    case 'fit':
      view.viewport.autoFit = true;
      view.fit();
      break;
    case 'zoom-in':
      view.zoom(1.25);
      break;
    case 'zoom-out':
      view.zoom(0.8);
      break;
    case 'direction':
      view.setBackward(!view.backward);
      break;
    case 'layout':
      view.setRankdir(view.layout.rankdir === 'TB' ? 'LR' : 'TB');
      break;
    case 'collapse':
      if (sel >= 0) {
        view.collapseInputsOf(sel);
      }
      break;
    case 'expand':
      if (sel >= 0) {
        view.expand(sel);
      }
      break;
    case 'collapse-chains':
      view.collapseAllChains();
      break;
    case 'expand-all':
      view.expandEverything();
      break;
    case 'step-first':
      view.setStep(0);
      break;
    case 'step-prev':
      view.setStep(view.step - 1);
      break;
    case 'step-next':
      view.setStep(view.step + 1);
      break;
    case 'step-last':
      view.setStep(view.model.backwardOrder.length);
      break;
    case 'play':
      view.replay.toggle();
      break;
    case 'search':
      view.openSearch();
      break;
    case 'export-svg':
    case 'export-png':
      exportTo(view, action === 'export-svg' ? 'svg' : 'png');
      break;
  }
}

/** Export the drawing as SVG or PNG and offer it as a download. */
export function exportTo(view: GraphView, kind: 'svg' | 'png'): void {
  const doc = view.node.ownerDocument;
  const name = `${fileStem(view.model.payload.title)}.${kind}`;
  const save = (blob: Blob) => {
    download(doc, blob, name);
    view.say(view.trans.__('Exported %1.', name));
  };
  try {
    if (kind === 'svg') {
      save(new Blob([view.exportSvg()], { type: 'image/svg+xml' }));
    } else {
      view
        .exportPng()
        .then(save, err =>
          view.say(
            view.trans.__('PNG export failed: %1', String(err).slice(0, 200))
          )
        );
    }
  } catch (err) {
    view.say(view.trans.__('Export failed: %1', String(err).slice(0, 200)));
  }
}
