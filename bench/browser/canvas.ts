/**
 * The canvas rows (issue 6's benchmark, issue 8's target), on the bench's
 * canvas page in Chromium: frame times while dragging a node and while
 * panning the pane, with 1,000 nodes and 1,000 edges, on Flowbench's canvas
 * versus React Flow with its default nodes, in the same page build. Both are
 * driven by real (CDP) pointer events, one move per frame; a move's frame
 * time runs from the animation frame that handled it to the next one, so a
 * move that takes long to render shows as a long frame. Sides alternate,
 * each trial on a freshly mounted canvas, with the garbage of the canvas it
 * replaced collected before the gesture starts.
 */
import type { Browser, CDPSession, Page } from '@playwright/test';
import { launchChromium } from './launch';
import type { FlowDocument } from '../../src/core/flow/document';
import {
  describeFailure,
  absoluteRow,
  atMost,
  compareRow,
  ratioAtMost,
  unmeasuredRow,
  type BenchRow,
} from '../lib/rows';
import { alternate, median, percentile } from '../lib/stats';
import { CANVAS_BENCH_GLOBAL, type CanvasBench, type CanvasSide } from '../web/canvas-api';
import { repeatedExample } from './flows';
import { buildBenchPage, serveBenchPage } from './servers';

const NODES = 1_000;
const ZOOM = 0.5;
/** Pointer moves per gesture, one per frame. */
const MOVES = 60;
const STEP = 4;

const DRAG = 'canvas: drag a node, 1k nodes + 1k edges, frame p50';
const PAN = 'canvas: pan, 1k nodes + 1k edges, frame p50';
const P95 = 'canvas: frame p95 while dragging and panning';

type Gesture = 'drag' | 'pan';

function call<K extends keyof CanvasBench>(
  page: Page,
  method: K,
  ...args: Parameters<CanvasBench[K]>
) {
  return page.evaluate(
    ([name, m, a]) =>
      (
        (window as unknown as Record<string, CanvasBench>)[name]![m] as (...x: unknown[]) => unknown
      )(...a),
    [CANVAS_BENCH_GLOBAL, method, args] as const,
  ) as Promise<Awaited<ReturnType<CanvasBench[K]>>>;
}

/** One gesture on a freshly mounted side; the frame times it took. */
async function trial(
  page: Page,
  cdp: CDPSession,
  flow: FlowDocument,
  side: CanvasSide,
  gesture: Gesture,
  n: number,
) {
  await call(page, 'mount', side, flow, ZOOM);
  // Mounting drops the other side's 1,000-node canvas: collect that garbage
  // now, so neither side's gesture pays for a collection the other caused.
  await cdp.send('HeapProfiler.collectGarbage');
  // A node near the top-left of the view (the first two copies are on screen), alternating.
  const start =
    gesture === 'drag'
      ? await call(page, 'nodeCentre', `split_${n % 2}`)
      : await call(page, 'emptyPoint');
  if (!start)
    throw new Error(
      `no ${gesture === 'drag' ? 'node' : 'empty pane'} on screen to ${gesture} (${side} canvas)`,
    );
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await call(page, 'nextFrame');
  await call(page, 'startFrames');
  for (let i = 1; i <= MOVES; i++) {
    await page.mouse.move(start.x + i * STEP, start.y + i * (STEP / 2));
    await call(page, 'nextFrame');
  }
  await page.mouse.up();
  await call(page, 'nextFrame');
  await call(page, 'nextFrame');
  return call(page, 'stopFrames');
}

async function gestureRows(
  page: Page,
  cdp: CDPSession,
  flow: FlowDocument,
  gesture: Gesture,
  name: string,
) {
  let n = 0;
  const { a, b } = await alternate({
    a: () => trial(page, cdp, flow, 'flowbench', gesture, n++),
    b: () => trial(page, cdp, flow, 'default', gesture, n++),
    warmups: 1,
    minTrials: 3,
    maxTrials: 5,
    budgetMs: 45_000,
  });
  const ours = a.flat();
  const reference = b.flat();
  const figures = compareRow({
    name,
    unit: 'ms',
    lowerIsBetter: true,
    ours,
    reference,
    target: ratioAtMost(1.5, 'vs default React Flow nodes'),
    note: `${a.length} trials × ${MOVES} pointer moves (one per frame) at zoom ${ZOOM}; a move's frame time = from the animation frame that handled it to the next one; p50 ${median(ours).toFixed(1)} vs ${median(reference).toFixed(1)} ms, p95 ${percentile(ours, 95).toFixed(1)} vs ${percentile(reference, 95).toFixed(1)} ms; Flowbench's Canvas (editor store, adapter, node views, minimap; past 300 nodes only those in view are in the page) vs React Flow default nodes (all in the page) with the same minimap, controls and background`,
  });
  // The figures are over frames; a trial is one gesture on each side.
  const row: BenchRow = { ...figures, trials: a.length };
  return { row, ours, reference };
}

export interface CanvasSuiteOptions {
  log: (line: string) => void;
}

/** The canvas rows in a Chromium of their own (`npm run bench -- --only=canvas`). */
export async function canvasRows({ log }: CanvasSuiteOptions): Promise<BenchRow[]> {
  await buildBenchPage(log);
  const served = await serveBenchPage();
  let browser: Browser | null = null;
  const target = ratioAtMost(1.5, 'vs default React Flow nodes');
  try {
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await page.goto(`${served.url}canvas.html`);
    await page.waitForFunction((name) => name in window, CANVAS_BENCH_GLOBAL);
    const flow = repeatedExample(NODES);
    const rows: BenchRow[] = [];
    const frames: number[] = [];
    const referenceFrames: number[] = [];
    for (const [gesture, name] of [
      ['drag', DRAG],
      ['pan', PAN],
    ] as const) {
      log(`canvas: ${gesture}, ${NODES} nodes, Flowbench vs default React Flow nodes…`);
      try {
        const { row, ours, reference } = await gestureRows(page, cdp, flow, gesture, name);
        rows.push(row);
        frames.push(...ours);
        referenceFrames.push(...reference);
      } catch (error) {
        rows.push(unmeasuredRow(name, 'ms', target, describeFailure(error)));
      }
    }
    rows.push(
      frames.length === 0
        ? unmeasuredRow(P95, 'ms', atMost(33, 'ms'), 'no gesture was measured')
        : absoluteRow({
            name: P95,
            unit: 'ms',
            value: percentile(frames, 95),
            target: atMost(33, 'ms'),
            trials: frames.length,
            note: `p95 of Flowbench's ${frames.length} frames over both gestures (median ${median(frames).toFixed(1)} ms); default React Flow nodes, same gestures: p95 ${percentile(referenceFrames, 95).toFixed(1)} ms`,
          }),
    );
    return rows;
  } finally {
    await browser?.close();
    await served.close();
  }
}
