/**
 * Zoom, pan and the canvas size. Text is never drawn below 11 px: fitting never shrinks the
 * drawing under {@link MIN_READABLE_ZOOM}; the canvas grows with the graph up to
 * {@link MAX_CANVAS_HEIGHT} and the rest is reached by dragging or the wheel. Zooming out
 * further is the reader's choice, and then labels are hidden rather than drawn too small.
 */
import { ILayout, IPoint } from './layout';
import { LABEL_FONT_PX } from './render';

/** Smallest zoom factor (labels hidden below {@link MIN_READABLE_ZOOM}). */
export const MIN_ZOOM = 0.05;
/** Largest zoom factor. */
export const MAX_ZOOM = 4;
/** The smallest zoom at which labels are at least 11 px. */
export const MIN_READABLE_ZOOM = 11 / LABEL_FONT_PX;
/** Largest zoom a fit uses. */
export const MAX_FIT_ZOOM = 1.25;
/** The canvas grows with the graph up to this height, then scrolls. */
export const MAX_CANVAS_HEIGHT = 800;
/** Smallest canvas height. */
export const MIN_CANVAS_HEIGHT = 160;

const FIT_PAD = 8;

/** Zoom and pan state of one canvas. */
export class Viewport {
  constructor(canvas: HTMLElement) {
    this.canvas = canvas;
  }

  /** The canvas element. */
  readonly canvas: HTMLElement;
  /** Current transform: scale and translation. */
  t = { k: 1, x: 0, y: 0 };
  /** Whether a resize re-fits (until the reader zooms or pans). */
  autoFit = true;
  /** Whether the view sets the canvas height (until the reader drags its handle). */
  autoHeight = true;
  /** The height the view last set, in px. */
  setHeight = 0;
  /** The SVG group the transform applies to. */
  target: SVGGElement | null = null;

  /** Apply a transform. */
  set(k: number, x: number, y: number): void {
    this.t = { k, x, y };
    this.target?.setAttribute(
      'transform',
      `translate(${x.toFixed(1)},${y.toFixed(1)}) scale(${k.toFixed(4)})`
    );
    this.canvas.classList.toggle(
      'jp-mod-lowDetail',
      k < MIN_READABLE_ZOOM - 1e-6
    );
  }

  /** Zoom by `factor` around a canvas point (default: the centre). */
  zoom(factor: number, cx?: number, cy?: number): void {
    const t = this.t;
    const k = Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, t.k * factor));
    const px = cx ?? this.canvas.clientWidth / 2;
    const py = cy ?? this.canvas.clientHeight / 2;
    this.autoFit = false;
    this.set(k, px - ((px - t.x) * k) / t.k, py - ((py - t.y) * k) / t.k);
  }

  /** Move the drawing by (dx, dy) px. */
  pan(dx: number, dy: number): void {
    this.autoFit = false;
    this.set(this.t.k, this.t.x + dx, this.t.y + dy);
  }

  /** Canvas height for a drawing of `layout` at zoom `k`. */
  heightFor(layout: ILayout, k: number): number {
    return Math.round(
      Math.max(
        MIN_CANVAS_HEIGHT,
        Math.min(MAX_CANVAS_HEIGHT, layout.height * k + 2 * FIT_PAD)
      )
    );
  }

  /**
   * Show the drawing at the largest readable zoom that fits the canvas width (never below
   * {@link MIN_READABLE_ZOOM}), the canvas as tall as the drawing allows; when it does not fit,
   * keep `anchor` (the root, as drawn) in view.
   */
  fit(layout: ILayout, anchor: IPoint | null): void {
    const cw = this.canvas.clientWidth;
    if (cw === 0 || layout.width === 0) {
      return;
    }
    const k = Math.max(
      MIN_READABLE_ZOOM,
      Math.min(MAX_FIT_ZOOM, (cw - 2 * FIT_PAD) / layout.width)
    );
    let h = this.canvas.clientHeight;
    if (this.autoHeight) {
      h = this.heightFor(layout, k);
      if (Math.abs(h - this.canvas.clientHeight) > 1) {
        this.canvas.style.height = `${h}px`;
      }
      this.setHeight = h;
    }
    this.autoFit = true;
    const w = layout.width * k;
    const hh = layout.height * k;
    let x = (cw - w) / 2;
    let y = (h - hh) / 2;
    if (anchor && (w > cw - 2 * FIT_PAD || hh > h - 2 * FIT_PAD)) {
      // too big to show whole: the root in view, the rest a drag away
      x =
        w > cw - 2 * FIT_PAD
          ? clamp(cw / 2 - anchor.x * k, cw - FIT_PAD - w, FIT_PAD)
          : x;
      y =
        hh > h - 2 * FIT_PAD
          ? clamp(h / 2 - anchor.y * k, h - FIT_PAD - hh, FIT_PAD)
          : y;
    }
    this.set(k, x, y);
  }

  /**
   * Drag to pan and wheel to zoom inside the canvas. `onNode(target)` says whether a pointer
   * went down on a node (clicks there are not drags); `onPanStart` hides the tooltip.
   */
  listen(
    onNode: (target: EventTarget | null) => boolean,
    onPanStart: () => void
  ): {
    consumeClick: () => boolean;
  } {
    const canvas = this.canvas;
    let drag: {
      x: number;
      y: number;
      tx: number;
      ty: number;
      moved: boolean;
      id: number;
    } | null = null;
    let suppressClick = false;
    canvas.addEventListener('pointerdown', (event: PointerEvent) => {
      if (event.button !== 0 || onNode(event.target)) {
        return;
      }
      if (
        (event.target as Element | null)?.closest?.('.jp-AutogradGraph-search')
      ) {
        return;
      }
      drag = {
        x: event.clientX,
        y: event.clientY,
        tx: this.t.x,
        ty: this.t.y,
        moved: false,
        id: event.pointerId
      };
    });
    canvas.addEventListener('pointermove', (event: PointerEvent) => {
      if (!drag || event.pointerId !== drag.id) {
        return;
      }
      const dx = event.clientX - drag.x;
      const dy = event.clientY - drag.y;
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) > 3) {
        drag.moved = true;
        canvas.setPointerCapture?.(event.pointerId);
        canvas.classList.add('jp-mod-panning');
        onPanStart();
      }
      if (drag.moved) {
        this.autoFit = false;
        this.set(this.t.k, drag.tx + dx, drag.ty + dy);
      }
    });
    const endDrag = (event: PointerEvent) => {
      if (drag && drag.moved) {
        suppressClick = true;
        if (canvas.hasPointerCapture?.(event.pointerId)) {
          canvas.releasePointerCapture(event.pointerId);
        }
      }
      canvas.classList.remove('jp-mod-panning');
      drag = null;
    };
    canvas.addEventListener('pointerup', endDrag);
    canvas.addEventListener('pointercancel', endDrag);
    canvas.addEventListener(
      'wheel',
      (event: WheelEvent) => {
        // the wheel zooms inside the canvas (the hint in its corner says so)
        event.preventDefault();
        const box = canvas.getBoundingClientRect();
        const delta = event.deltaMode === 1 ? event.deltaY * 16 : event.deltaY;
        this.zoom(
          Math.exp(-delta * 0.0015),
          event.clientX - box.left,
          event.clientY - box.top
        );
      },
      { passive: false }
    );
    return {
      consumeClick: () => {
        const was = suppressClick;
        suppressClick = false;
        return was;
      }
    };
  }
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, v));
}
