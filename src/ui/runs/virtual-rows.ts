/**
 * Which rows of a long table are in view: the table renders only those (and
 * a few either side), with spacer rows standing in for the rest, so a table of
 * ten thousand runs costs what forty cost. Rows have one height, measured
 * from a rendered row (any element with `data-index`: a table's rows, a
 * chart's lanes); the scroll container is an ancestor of them.
 * Small and fixed-height on purpose: the runs table needs no more.
 */
import { useLayoutEffect, useState, type RefObject } from 'react';

/** Rows rendered beyond each edge of the view, so a quick scroll shows no gap. */
const OVERSCAN = 20;
/** The row height assumed until a row is measured. */
const GUESS_PX = 27;

export interface VirtualRows {
  /** Index of the first row to render. */
  first: number;
  /** One past the last row to render. */
  last: number;
  /** Height of the rows before `first`, and after `last - 1`, in pixels. */
  before: number;
  after: number;
}

/**
 * The rows of `body` (a `tbody` of `count` rows inside the scrolling `container`)
 * in view now; re-computed when the container scrolls, or it or the body
 * resizes. Never measured right after React's commit: reading the layout
 * there forced the browser to lay the whole page out inside it, the larger
 * part of every long task of a sweep whose table gained a run at a time, and
 * 13 ms of a commit with a thousand-node flow on the canvas when a run's node
 * table first showed. A resize observer measures instead (its first call
 * comes once layout is done, so its reading costs nothing more), when the
 * count changes too. Until then the rows at the top are drawn, as many as
 * fill `guessHeightPx` (and the overscan): a table shows first scrolled to
 * its top. A part further down a scrolling panel (a run's node timeline and
 * node table) guesses 0: it is mostly out of view, and drawing 50 rows of
 * each before the first measurement made the frame a 1,000-node run ended
 * in restyle and lay out some 570 elements where ~20 rows of each were due.
 */
export function useVirtualRows(
  container: RefObject<HTMLElement | null>,
  body: RefObject<HTMLElement | null>,
  count: number,
  guessHeightPx = 800,
): VirtualRows {
  const [view, setView] = useState({ top: 0, height: guessHeightPx, rowPx: GUESS_PX });
  useLayoutEffect(() => {
    const scroller = container.current;
    if (!scroller) return;
    const measure = () => {
      const rows = body.current;
      // Where the first row starts in the scrolled content, and how tall a row is.
      const offset = rows
        ? rows.getBoundingClientRect().top -
          scroller.getBoundingClientRect().top +
          scroller.scrollTop
        : 0;
      const sample = rows?.querySelector<HTMLElement>('[data-index]');
      const rowPx = sample?.offsetHeight || GUESS_PX;
      const next = { top: scroller.scrollTop - offset, height: scroller.clientHeight, rowPx };
      setView((held) =>
        held.top === next.top && held.height === next.height && held.rowPx === next.rowPx
          ? held
          : next,
      );
    };
    // The observer's own first call, made when it starts observing, once the commit is laid out.
    scroller.addEventListener('scroll', measure, { passive: true });
    const resize = new ResizeObserver(measure);
    resize.observe(scroller);
    if (body.current) resize.observe(body.current);
    return () => {
      scroller.removeEventListener('scroll', measure);
      resize.disconnect();
    };
  }, [container, body, count]);
  const { top, height, rowPx } = view;
  const first = Math.max(0, Math.min(count, Math.floor(top / rowPx) - OVERSCAN));
  const last = Math.max(first, Math.min(count, Math.ceil((top + height) / rowPx) + OVERSCAN));
  return {
    first,
    last,
    before: first * rowPx,
    after: (count - last) * rowPx,
  };
}
