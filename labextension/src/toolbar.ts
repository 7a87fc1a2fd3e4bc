/**
 * The view's chrome as plain DOM: a one-row toolbar, the legend, a notice line, the canvas with
 * its hint, tooltip and search box, the details panel and a status line. Every string goes
 * through the translation bundle.
 */
import { ITrans } from './i18n';
import { drawLegend } from './panels';
import { SPEEDS } from './replay';

/** One toolbar button: action name, text, tooltip (both msgids). */
export type ButtonSpec = [string, string, string];

/** Buttons of the toolbar, by group. */
export const BUTTONS: ReadonlyArray<ReadonlyArray<ButtonSpec>> = [
  [
    ['fit', 'Fit', 'Fit the graph to the view at a readable size (0)'],
    ['zoom-in', '+', 'Zoom in (+, or the mouse wheel)'],
    ['zoom-out', '−', 'Zoom out (-, or the mouse wheel)'],
    ['direction', '⇄', 'Toggle forward / backward direction'],
    ['layout', '⇅', 'Toggle top-to-bottom / left-to-right layout']
  ],
  [
    ['collapse', 'Collapse', 'Collapse the inputs of the selected node (C)'],
    ['expand', 'Expand', 'Expand the selected collapsed node (E)'],
    ['collapse-chains', 'Fold', 'Fold runs of single-input nodes'],
    ['expand-all', 'Unfold all', 'Expand every collapsed node']
  ],
  [
    ['step-first', '«', 'Before backward'],
    ['step-prev', '◀', 'Previous backward step ([)'],
    ['step-next', '▶', 'Next backward step (])'],
    ['step-last', '»', 'After backward'],
    ['play', 'Play', 'Replay the backward pass']
  ],
  [
    ['search', '⌕', 'Find a node (/)'],
    ['export-svg', 'SVG', 'Export the graph as SVG'],
    ['export-png', 'PNG', 'Export the graph as PNG']
  ]
];

/** Handles to the chrome's parts. */
export interface IChrome {
  toolbar: HTMLElement;
  buttons: Map<string, HTMLButtonElement>;
  speed: HTMLSelectElement | null;
  stepLabel: HTMLElement | null;
  notice: HTMLElement;
  canvas: HTMLElement;
  hint: HTMLElement;
  search: HTMLInputElement;
  tooltip: HTMLElement;
  details: HTMLElement;
  status: HTMLElement;
}

/**
 * Build the chrome into `root`. `replay` adds the replay group (with a speed choice when
 * `controls`); `onAction` is called with a button's action name.
 */
export function buildChrome(
  doc: Document,
  root: HTMLElement,
  trans: ITrans,
  replay: { has: boolean; controls: boolean },
  onAction: (action: string) => void,
  onSpeed: (speed: number) => void
): IChrome {
  const toolbar = doc.createElement('div');
  toolbar.className = 'jp-AutogradGraph-toolbar';
  toolbar.setAttribute('role', 'toolbar');
  toolbar.setAttribute('aria-label', trans.__('Autograd graph tools'));
  const buttons = new Map<string, HTMLButtonElement>();
  let speed: HTMLSelectElement | null = null;
  let stepLabel: HTMLElement | null = null;
  BUTTONS.forEach((group, gi) => {
    if (gi === 2 && !replay.has) {
      return;
    }
    const g = doc.createElement('span');
    g.className = 'jp-AutogradGraph-toolGroup';
    if (gi === 2) {
      g.classList.add('jp-AutogradGraph-stepper');
    }
    toolbar.appendChild(g);
    for (const [action, text, title] of group) {
      if (gi === 2 && !replay.controls) {
        continue; // an outer stepper (a widget) drives the replay
      }
      const b = doc.createElement('button');
      b.type = 'button';
      b.className = 'jp-AutogradGraph-button';
      b.dataset.action = action;
      b.textContent = trans.__(text);
      b.title = trans.__(title);
      b.setAttribute('aria-label', trans.__(title));
      b.addEventListener('click', () => onAction(action));
      g.appendChild(b);
      buttons.set(action, b);
    }
    if (gi === 2) {
      if (replay.controls) {
        speed = doc.createElement('select');
        speed.className = 'jp-AutogradGraph-speed';
        speed.title = trans.__('Replay speed');
        speed.setAttribute('aria-label', trans.__('Replay speed'));
        for (const s of SPEEDS) {
          const o = doc.createElement('option');
          o.value = String(s);
          o.textContent = `${s}×`;
          o.selected = s === 1;
          speed.appendChild(o);
        }
        const sel = speed;
        sel.addEventListener('change', () => onSpeed(Number(sel.value)));
        g.appendChild(sel);
      }
      stepLabel = doc.createElement('span');
      stepLabel.className = 'jp-AutogradGraph-stepLabel';
      stepLabel.setAttribute('aria-live', 'polite');
      g.appendChild(stepLabel);
    }
  });
  root.appendChild(toolbar);
  root.appendChild(drawLegend(doc, trans));

  const notice = doc.createElement('div');
  notice.className = 'jp-AutogradGraph-notice';
  notice.setAttribute('role', 'status');
  root.appendChild(notice);

  const body = doc.createElement('div');
  body.className = 'jp-AutogradGraph-body';
  const canvas = doc.createElement('div');
  canvas.className = 'jp-AutogradGraph-canvas';
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'application');
  canvas.setAttribute(
    'aria-label',
    trans.__(
      'Computation graph. Arrow keys move between nodes, Enter selects, E expands, C collapses, / finds a node, plus and minus zoom, 0 fits.'
    )
  );
  const hint = doc.createElement('div');
  hint.className = 'jp-AutogradGraph-hint jp-AutogradGraph-canvasHint';
  hint.textContent = trans.__('wheel: zoom · drag: pan · /: find');
  const search = doc.createElement('input');
  search.type = 'search';
  search.className = 'jp-AutogradGraph-search';
  search.placeholder = trans.__('Find a node: name, op or id');
  search.setAttribute('aria-label', trans.__('Find a node'));
  search.hidden = true;
  const tooltip = doc.createElement('div');
  tooltip.className = 'jp-AutogradGraph-tooltip';
  tooltip.setAttribute('role', 'tooltip');
  tooltip.hidden = true;
  canvas.appendChild(hint);
  canvas.appendChild(search);
  canvas.appendChild(tooltip);
  const details = doc.createElement('aside');
  details.className = 'jp-AutogradGraph-details';
  details.setAttribute('aria-label', trans.__('Node details'));
  body.appendChild(canvas);
  body.appendChild(details);
  root.appendChild(body);
  const status = doc.createElement('div');
  status.className = 'jp-AutogradGraph-status';
  status.setAttribute('aria-live', 'polite');
  root.appendChild(status);
  return {
    toolbar,
    buttons,
    speed,
    stepLabel,
    notice,
    canvas,
    hint,
    search,
    tooltip,
    details,
    status
  };
}
