/**
 * The canvas's events: click selects (a module's title collapses it), double-click expands,
 * hover shows the tooltip, keys move and act, the search box finds, a resize re-fits.
 */
import { IKeyHost, onKey } from './keyboard';
import { GraphView } from './view';
import { viewSeeds } from './graph';
import { runAction } from './actions';

function keyHost(view: GraphView): IKeyHost {
  return {
    get model() {
      return view.model;
    },
    get view() {
      return view.view;
    },
    get layout() {
      return view.layout;
    },
    get backward() {
      return view.backward;
    },
    current: () => (view.focused >= 0 ? view.focused : view.selected),
    firstNode: () => viewSeeds(view.model, view.view)[0] ?? 0,
    focusNode: v => view.focusNode(v),
    toggleSelect: v => view.select(view.selected === v ? -1 : v),
    clear: () => {
      view.select(-1);
      view.hideTooltip();
    },
    expand: v => view.expand(v),
    collapse: v => view.collapseInputsOf(v),
    zoom: f => view.zoom(f),
    fit: () => runAction(view, 'fit'),
    step: d => view.setStep(view.step + d),
    openSearch: () => view.openSearch()
  };
}

/** Wire the canvas: clicks, hover, keys, search and resize; returns the resize observer. */
export function listen(view: GraphView): ResizeObserver | null {
  const canvas = view.chrome.canvas;
  const pan = view.viewport.listen(
    t => view.nodeAt(t) >= 0,
    () => view.hideTooltip()
  );
  canvas.addEventListener('click', (event: MouseEvent) => {
    if (pan.consumeClick()) {
      return;
    }
    const v = view.nodeAt(event.target);
    const box = (event.target as Element | null)?.closest?.(
      '.jp-AutogradGraph-module'
    );
    if (v >= 0) {
      view.focusNode(v);
      view.select(v);
    } else if (box) {
      view.collapseModule(box.getAttribute('data-module') ?? '');
    } else if (!view.chrome.tooltip.contains(event.target as Node)) {
      view.select(-1);
    }
  });
  canvas.addEventListener('dblclick', (event: MouseEvent) => {
    const v = view.nodeAt(event.target);
    if (v >= 0 && view.view.nodes[v].group) {
      view.expand(v);
    }
  });
  canvas.addEventListener('pointerover', (event: PointerEvent) => {
    const v = view.nodeAt(event.target);
    if (v >= 0 && !canvas.classList.contains('jp-mod-panning')) {
      view.showTooltip(v);
    }
  });
  canvas.addEventListener('pointerout', (event: PointerEvent) => {
    const from = view.nodeAt(event.target);
    if (from >= 0 && view.nodeAt(event.relatedTarget) !== from) {
      view.hideTooltip();
    }
  });
  const keys = keyHost(view);
  canvas.addEventListener('keydown', (event: KeyboardEvent) => {
    if (event.target === view.chrome.search) {
      return;
    }
    if (onKey(keys, event)) {
      event.preventDefault();
      // keep JupyterLab's notebook shortcuts (A, B, D-D, ...) away from the graph's keys
      event.stopPropagation();
    }
  });
  const search = view.chrome.search;
  search.addEventListener('keydown', (event: KeyboardEvent) => {
    event.stopPropagation();
    if (event.key === 'Enter') {
      view.find(search.value);
    } else if (event.key === 'Escape') {
      search.hidden = true;
      canvas.focus();
    }
  });
  let observer: ResizeObserver | null = null;
  if (typeof ResizeObserver !== 'undefined') {
    observer = new ResizeObserver(() => {
      const h = canvas.clientHeight;
      const vp = view.viewport;
      // a height we did not set means the reader dragged the resize handle: keep theirs
      if (vp.setHeight > 0 && Math.abs(h - vp.setHeight) > 2) {
        vp.autoHeight = false;
      }
      view.refit();
      view.syncDetailsHeight();
    });
    observer.observe(canvas);
  }
  canvas.addEventListener('focusout', (event: FocusEvent) => {
    if (!canvas.contains(event.relatedTarget as Node)) {
      view.hideTooltip();
    }
  });
  return observer;
}
