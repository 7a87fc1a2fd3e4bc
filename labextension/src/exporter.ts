/**
 * Export of the drawn graph: a standalone SVG with the theme's colours resolved, and a PNG of it.
 */
import { ILayout } from './layout';
import { SVG_NS } from './render';

/** Largest PNG export, in pixels. */
export const MAX_PNG_PIXELS = 32e6;

/** Longest PNG side, in pixels (canvas limits), and the flattest aspect ratio kept. */
const MAX_PNG_SIDE = 16384;

const STYLE_PROPS = [
  'fill',
  'fill-opacity',
  'stroke',
  'stroke-width',
  'stroke-dasharray',
  'stroke-opacity',
  'opacity',
  'font-family',
  'font-size',
  'font-weight',
  'text-anchor',
  'paint-order',
  'display',
  'visibility'
];

/** Characters XML 1.0 forbids (C0 controls, lone surrogates, U+FFFE/F), which break SVG export. */
const XML_INVALID =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Safe file-name stem from an untrusted title. */
export function fileStem(title: string | undefined): string {
  const stem = (title || 'graph').replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 40);
  return `autograd-${stem || 'graph'}`;
}

/**
 * Serialise `svg` (drawn inside `canvas`) as a standalone SVG document: computed theme styles
 * inlined, the zoom removed, a background rectangle added.
 */
export function exportSvg(
  doc: Document,
  svg: SVGSVGElement,
  canvas: HTMLElement,
  layout: ILayout
): string {
  const low = canvas.classList.contains('jp-mod-lowDetail');
  canvas.classList.remove('jp-mod-lowDetail');
  const clone = svg.cloneNode(true) as SVGSVGElement;
  const src = svg.querySelectorAll('*');
  const dst = clone.querySelectorAll('*');
  const view = doc.defaultView as Window;
  for (let i = 0; i < src.length; i++) {
    const cs = view.getComputedStyle(src[i]);
    const parts: string[] = [];
    for (const p of STYLE_PROPS) {
      const value = cs.getPropertyValue(p);
      if (value) {
        parts.push(`${p}:${value}`);
      }
    }
    dst[i].setAttribute('style', parts.join(';'));
  }
  if (low) {
    canvas.classList.add('jp-mod-lowDetail');
  }
  const viewport = clone.querySelector(
    '.jp-AutogradGraph-viewport'
  ) as SVGGElement;
  viewport.removeAttribute('transform');
  const w = Math.ceil(layout.width);
  const h = Math.ceil(layout.height);
  clone.setAttribute('width', String(w));
  clone.setAttribute('height', String(h));
  clone.setAttribute('viewBox', `0 0 ${w} ${h}`);
  const bg = doc.createElementNS(SVG_NS, 'rect');
  bg.setAttribute('width', '100%');
  bg.setAttribute('height', '100%');
  bg.setAttribute(
    'fill',
    view.getComputedStyle(canvas).backgroundColor || '#ffffff'
  );
  clone.insertBefore(bg, clone.firstChild);
  const text = new XMLSerializer().serializeToString(clone);
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    text.replace(XML_INVALID, '\uFFFD')
  );
}

/** PNG scale for a drawing: 2x, within {@link MAX_PNG_PIXELS} and the canvas side limit. */
export function pngScale(width: number, height: number): number {
  const area = Math.max(1, width * height);
  return Math.min(
    2,
    Math.sqrt(MAX_PNG_PIXELS / area),
    MAX_PNG_SIDE / Math.max(1, width),
    MAX_PNG_SIDE / Math.max(1, height)
  );
}

/** Render an SVG document to a PNG blob of `width` x `height` layout pixels. */
export async function exportPng(
  doc: Document,
  svgText: string,
  width: number,
  height: number
): Promise<Blob> {
  const url = URL.createObjectURL(
    new Blob([svgText], { type: 'image/svg+xml' })
  );
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const scale = pngScale(width, height);
    const canvas = doc.createElement('canvas');
    canvas.width = Math.max(1, Math.floor(width * scale));
    canvas.height = Math.max(1, Math.floor(height * scale));
    const ctx = canvas.getContext('2d') as CanvasRenderingContext2D;
    ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob(
        b => (b ? resolve(b) : reject(new Error('PNG encoding failed'))),
        'image/png'
      )
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** Offer `blob` as a download named `name`. */
export function download(doc: Document, blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = doc.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  window.setTimeout(() => URL.revokeObjectURL(url), 10000);
}
