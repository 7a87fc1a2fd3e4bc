/**
 * What the view tells: the replay's step label and status line, the notice line, which
 * buttons can act.
 */
import { nodeTitle } from './panels';
import { IReplayHost } from './replay';
import { GraphView } from './view';

/** After a replay step: the step label, status line, details and buttons. */
export function replayChanged(view: GraphView, active: number): void {
  const total = view.model.backwardOrder.length;
  const step = view.replay.step;
  view.node.classList.toggle('jp-mod-replaying', step > 0 && step < total);
  const label = view.chrome.stepLabel;
  if (label) {
    label.textContent = `${step}/${total}`;
    label.title =
      active >= 0 ? nodeTitle(view.model, view.view.nodes[active]) : '';
  }
  if (active >= 0) {
    const name = nodeTitle(view.model, view.view.nodes[active]);
    view.say(view.trans.__('Backward step %1 of %2: %3', step, total, name));
    if (view.selected < 0) {
      view.showDetails(active);
    }
  } else if (step === total && total > 0) {
    view.say(
      view.trans.__(
        'After backward: %1 nodes ran, numbered in the order they ran.',
        total
      )
    );
  } else if (step === 0 && total > 0) {
    view.say(view.trans.__('Before backward: %1 nodes will run.', total));
  }
  const play = view.chrome.buttons.get('play');
  if (play) {
    play.textContent = view.replay.playing
      ? view.trans.__('Pause')
      : view.trans.__('Play');
  }
  updateButtons(view);
}

/** The notice line: truncation in Python, folded runs. */
export function updateNotice(view: GraphView): void {
  const p = view.model.payload;
  const parts: string[] = [];
  if (p.truncated) {
    parts.push(
      view.trans.__(
        'Showing %1 of %2 nodes: the graph was truncated in Python (raise max_nodes to see more).',
        p.nodes.length,
        p.total_nodes
      )
    );
  }
  const repeats = view.groups.filter(g => g.kind === 'repeat').length;
  if (repeats > 0) {
    parts.push(
      view.trans.__(
        '%1 repeated runs are folded (×k); double-click one to open it.',
        repeats
      )
    );
  }
  view.chrome.notice.textContent = parts.join(' ');
  view.chrome.notice.hidden = parts.length === 0;
}

/** Enable the buttons that can act now; mark the toggles' state. */
export function updateButtons(view: GraphView): void {
  const b = view.chrome.buttons;
  const sel = view.selected >= 0 ? view.view.nodes[view.selected] : null;
  const set = (a: string, disabled: boolean) => {
    const el = b.get(a);
    if (el) {
      el.disabled = disabled;
    }
  };
  set('collapse', !sel);
  set('expand', !(sel && sel.group));
  set('expand-all', view.groups.length === 0);
  const total = view.model.backwardOrder.length;
  const step = view.replay.step;
  set('step-first', step === 0);
  set('step-prev', step === 0);
  set('step-next', step === total);
  set('step-last', step === total);
  b.get('direction')?.setAttribute('aria-pressed', String(view.backward));
  b.get('layout')?.setAttribute(
    'aria-pressed',
    String(view.layout?.rankdir === 'TB')
  );
}

/** The replay's view of `view`: what it draws on, and whom it tells after a step. */
export function replayHost(view: GraphView): IReplayHost {
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
    get drawing() {
      return view.drawing;
    },
    get backward() {
      return view.backward;
    },
    changed: (active: number) => replayChanged(view, active)
  };
}
