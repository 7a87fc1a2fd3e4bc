/**
 * Translated UI strings: JupyterLab's translator when the renderer is given one (a Chinese
 * JupyterLab loads `jupyter_autograd/locale/zh_CN/LC_MESSAGES/jupyter_autograd.json`), else
 * English. Payload text (names, ops, values) is never translated.
 */
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';

/** Gettext domain of the catalogue (the Python package's name, as JupyterLab looks it up). */
export const DOMAIN = 'jupyter_autograd';

/** What the view needs of a translation bundle. */
export interface ITrans {
  /** Translate `msgid`, replacing %1, %2... with `args`. */
  __(msgid: string, ...args: Array<string | number>): string;
}

/** Replace %1, %2... in `text` with `args`, as JupyterLab's bundles do. */
export function substitute(text: string, args: Array<string | number>): string {
  return text.replace(/%(\d+)/g, (m, d) => {
    const k = Number(d) - 1;
    return k >= 0 && k < args.length ? String(args[k]) : m;
  });
}

/** The English strings, for when no translator is available (tests, other front ends). */
export const ENGLISH: ITrans = {
  __: (msgid, ...args) => substitute(msgid, args)
};

/** The bundle of {@link DOMAIN} from `translator`, or English. */
export function bundle(translator?: IRenderMime.ITranslator | null): ITrans {
  if (!translator) {
    return ENGLISH;
  }
  try {
    const b = translator.load(DOMAIN);
    return { __: (msgid, ...args) => b.__(msgid, ...args) };
  } catch {
    return ENGLISH;
  }
}
