/**
 * The chart rows (issue 7's benchmark), on the bench's chart page in
 * Chromium:
 *
 * - append: a 1,000,000-point series gains 1,000 points per flush; each flush
 *   is timed from the points arriving to the canvas drawn with them, through
 *   our chart (decimated to its width) versus bare uPlot drawing every point,
 *   alternating trials in one page; and our frame p95 on its own.
 * - initial draw of the 1,000,000 points, ours versus bare uPlot.
 * - write-to-pixel: a worker commits batches to IndexedDB as the run driver
 *   does, and the live chart reads and draws them; latency p50 and p95.
 */
import type { Browser, Page } from '@playwright/test';
import { launchChromium } from './launch';
import {
  describeFailure,
  absoluteRow,
  atMost,
  compareRow,
  noTarget,
  ratioAtMost,
  unmeasuredRow,
  type BenchRow,
} from '../lib/rows';
import { alternate, median, percentile } from '../lib/stats';
import {
  CHART_BENCH_GLOBAL,
  type ChartBench,
  type ChartTrial,
  type OpenStoredTrial,
  type WriteToPixelTrial,
} from '../web/chart-api';
import { buildBenchPage, serveBenchPage } from './servers';

const POINTS = 1_000_000;
const PER_FLUSH = 1_000;
const FLUSHES = 10;
/** Write-to-pixel: points already written, then batches of the driver's size, apart. */
const BASE_POINTS = 20_000;
const BATCHES = 40;
const PER_BATCH = 250;
const GAP_MS = 100;

const APPEND = 'chart: 1M-point series, append 1k points per flush';
const FRAME = 'chart: frame p95, 1M points + 1k per flush';
const INITIAL = 'chart: initial draw of 1M points';
const LATENCY = 'chart: write-to-pixel latency (worker commit → drawn)';
const OPEN = 'chart: open a stored 1M-point series, longest main-thread task';

function side(page: Page, which: 'ours' | 'bare'): Promise<ChartTrial> {
  return page.evaluate(
    ([name, w, n, f, k]) => (window as unknown as Record<string, ChartBench>)[name]![w](n, f, k),
    [CHART_BENCH_GLOBAL, which, POINTS, FLUSHES, PER_FLUSH] as const,
  );
}

async function drawRows(page: Page): Promise<BenchRow[]> {
  const { a, b } = await alternate({
    a: () => side(page, 'ours'),
    b: () => side(page, 'bare'),
    warmups: 1,
    minTrials: 3,
    maxTrials: 7,
    budgetMs: 40_000,
  });
  const oursFlushes = a.flatMap((t) => t.flushMs);
  const bareFlushes = b.flatMap((t) => t.flushMs);
  const how = `${a.length} trials × ${FLUSHES} flushes; a flush is timed from its points arriving to uPlot's draw with them`;
  return [
    compareRow({
      name: APPEND,
      unit: 'ms',
      lowerIsBetter: true,
      ours: oursFlushes,
      reference: bareFlushes,
      target: ratioAtMost(1.1, 'vs bare uPlot'),
      note: `${how}: our MetricChartView (decimated to the width, summary and legend included) vs bare uPlot given every point, 800 px wide, same page`,
    }),
    absoluteRow({
      name: FRAME,
      unit: 'ms',
      value: percentile(oursFlushes, 95),
      target: atMost(16, 'ms'),
      trials: oursFlushes.length,
      note: `p95 of our ${oursFlushes.length} flushes (median ${median(oursFlushes).toFixed(1)} ms); bare uPlot's p95 ${percentile(bareFlushes, 95).toFixed(1)} ms`,
    }),
    compareRow({
      name: INITIAL,
      unit: 'ms',
      lowerIsBetter: true,
      ours: a.map((t) => t.initialMs),
      reference: b.map((t) => t.initialMs),
      target: noTarget,
      note: 'from handing over the whole series (in memory) to the first draw, a new chart each trial; ours vs bare uPlot',
    }),
  ];
}

async function latencyRow(page: Page): Promise<BenchRow> {
  const trial = await page.evaluate(
    ([name, base, n, per, gap]) =>
      (window as unknown as Record<string, ChartBench>)[name]!.writeToPixel(base, n, per, gap),
    [CHART_BENCH_GLOBAL, BASE_POINTS, BATCHES, PER_BATCH, GAP_MS] as const,
  );
  return latencyFigures(trial);
}

function latencyFigures({ latencyMs, basePoints }: WriteToPixelTrial): BenchRow {
  const p95 = percentile(latencyMs, 95);
  const row = absoluteRow({
    name: LATENCY,
    unit: 'ms',
    value: median(latencyMs),
    p95,
    target: { label: 'p95 ≤ 50 ms', met: () => p95 <= 50 },
    trials: latencyMs.length,
    note: `p50 ${median(latencyMs).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms over ${latencyMs.length} batches of ${PER_BATCH} points (${GAP_MS} ms apart) appended to a ${basePoints.toLocaleString('en-US')}-point series: a worker's metric writer commit → live query → incremental read → MetricChart drawn`,
  });
  return row;
}

export interface ChartSuiteOptions {
  log: (line: string) => void;
}

/** The chart rows in a Chromium of their own (`npm run bench -- --only=charts`). */
export async function chartRows({ log }: ChartSuiteOptions): Promise<BenchRow[]> {
  await buildBenchPage(log);
  const served = await serveBenchPage();
  let browser: Browser | null = null;
  try {
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
    const page = await context.newPage();
    await page.goto(`${served.url}chart.html`);
    await page.waitForFunction((name) => name in window, CHART_BENCH_GLOBAL);
    const rows: BenchRow[] = [];
    log('charts: 1M points, drawn and appended to, ours vs bare uPlot…');
    try {
      rows.push(...(await drawRows(page)));
    } catch (error) {
      const why = describeFailure(error);
      rows.push(
        unmeasuredRow(APPEND, 'ms', ratioAtMost(1.1, 'vs bare uPlot'), why),
        unmeasuredRow(FRAME, 'ms', atMost(16, 'ms'), why),
        unmeasuredRow(INITIAL, 'ms', noTarget, why),
      );
    }
    log('charts: write-to-pixel…');
    try {
      rows.push(await latencyRow(page));
    } catch (error) {
      rows.push(unmeasuredRow(LATENCY, 'ms', atMost(50, 'ms'), describeFailure(error)));
    }
    log('charts: open a stored 1M-point series…');
    try {
      rows.push(await openRow(page));
    } catch (error) {
      rows.push(unmeasuredRow(OPEN, 'ms', atMost(50, 'ms'), describeFailure(error)));
    }
    return rows;
  } finally {
    await browser?.close();
    await served.close();
  }
}

/** The live chart opening a 1,000,000-point series stored as chunks: its longest main-thread task, 3 trials after a warm-up. */
async function openRow(page: Page): Promise<BenchRow> {
  const trials: OpenStoredTrial[] = [];
  // One untimed trial first: the page's first chart compiles and lays out what later ones reuse.
  for (let i = 0; i < 4; i++)
    trials.push(
      await page.evaluate(
        ([name, n]) => (window as unknown as Record<string, ChartBench>)[name]!.openStored(n),
        [CHART_BENCH_GLOBAL, POINTS] as const,
      ),
    );
  trials.shift();
  const longest = trials.map((t) => t.longestTaskMs);
  return absoluteRow({
    name: OPEN,
    unit: 'ms',
    value: Math.max(...longest),
    target: atMost(50, 'ms'),
    trials: trials.length,
    note: `MetricChart (live query, reads in pieces of stored chunks) mounted on a ${POINTS.toLocaleString('en-US')}-point series a worker stored first, after one untimed trial; longest task over 50 ms per trial ${longest.map((ms) => ms.toFixed(0)).join(', ')} ms (0: none); drawn with every point after ${trials.map((t) => t.ms.toFixed(0)).join(', ')} ms`,
  });
}
