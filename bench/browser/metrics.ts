/**
 * Row 2, in Chromium on one page: points/s through the run's metric path
 * versus raw IndexedDB `put` of the same rows in one transaction, and the
 * p99 of one flush (one batch's write through the run's `RunMetricWriter`,
 * to its commit) beside the p99 of raw `put` transactions of the same size, written in the same
 * trials — so the table tells a tail of ours from a tail of the store's.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { launchChromiumWithProfile } from './launch';
import {
  absoluteRow,
  atMost,
  compareRow,
  ratioAtLeast,
  ratioAtMost,
  type BenchRow,
} from '../lib/rows';
import { alternate, median, percentile } from '../lib/stats';
import { metricBatchDefaults } from '../../src/core/run/metric-batcher';
import {
  METRIC_BENCH_GLOBAL,
  type MetricBench,
  type MetricPathTrial,
  type SeriesRead,
} from '../web/api';
import { buildBenchPage, serveBenchPage } from './servers';

/** Points per trial of the raw reference (it takes about a second) and of our path. */
const POINTS = 20_000;
const OUR_POINTS = 100_000;
/** The long series of the disk and read rows. */
const SERIES_POINTS = 1_000_000;
/** The pause after clearing the store, before a write trial. */
const SETTLE_MS = 2_000;

/**
 * The `metrics` suite: build the bench page, serve it, and run the two metric
 * rows in Chromium launched as launch.ts says. The page does not
 * need the app, so these rows run without building `dist/`.
 */
export async function metricSuite({ log }: { log: (line: string) => void }): Promise<BenchRow[]> {
  await buildBenchPage(log);
  const served = await serveBenchPage();
  let chromium: Awaited<ReturnType<typeof launchChromiumWithProfile>> | null = null;
  try {
    chromium = await launchChromiumWithProfile();
    log(`chromium ${chromium.context.browser()?.version() ?? ''}: metric write path…`);
    return await metricRows(chromium.context, served.url, log);
  } finally {
    await chromium?.close();
    await served.close();
  }
}

async function metricRows(
  context: BrowserContext,
  pageUrl: string,
  log: (line: string) => void,
): Promise<BenchRow[]> {
  const page = await context.newPage();
  try {
    await page.goto(pageUrl);
    await page.waitForFunction((name) => name in window, METRIC_BENCH_GLOBAL);
    // Each function runs in the page: it may use only its arguments and the page's globals.
    const metricPath = () =>
      page.evaluate(
        ([name, n]) => (window as unknown as Record<string, MetricBench>)[name]!.metricPath(n),
        [METRIC_BENCH_GLOBAL, OUR_POINTS] as const,
      );
    const rawPut = () =>
      page.evaluate(
        ([name, n]) => (window as unknown as Record<string, MetricBench>)[name]!.rawPut(n),
        [METRIC_BENCH_GLOBAL, POINTS] as const,
      );
    const clear = () =>
      page.evaluate(
        (name) => (window as unknown as Record<string, MetricBench>)[name]!.clear(),
        METRIC_BENCH_GLOBAL,
      );
    const rawBatches = () =>
      page.evaluate(
        ([name, n, batch]) =>
          (window as unknown as Record<string, MetricBench>)[name]!.rawBatches(n, batch),
        [METRIC_BENCH_GLOBAL, POINTS, metricBatchDefaults.maxPoints] as const,
      );
    const paths: MetricPathTrial[] = [];
    const rawBatchMs: number[][] = [];
    const { a, b } = await alternate({
      a: async () => {
        const trial = await metricPath();
        log(`  metric path trial: ${trial.ms.toFixed(0)} ms, ${trial.flushMs.length} flushes`);
        paths.push(trial);
        return trial.ms;
      },
      // The raw batches run after the timed single transaction, untimed for the throughput row.
      b: async () => {
        const ms = await rawPut();
        log(`  raw put trial: ${ms.toFixed(0)} ms`);
        await clear();
        rawBatchMs.push(await rawBatches());
        return ms;
      },
      warmups: 1,
      minTrials: 5,
      maxTrials: 9,
      budgetMs: 25_000,
      // Deleting a trial's rows leaves the store work to do after the commit (Chromium compacts
      // its files): each trial starts on a store that has settled, so neither side pays for the other's rows.
      before: async () => {
        await clear();
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      },
    });
    const timed = paths.slice(-a.length);
    const pointsPerSecond = (points: number) => (ms: number) => (points * 1000) / ms;
    const writeRow = compareRow({
      name: 'metric write path vs raw IndexedDB put',
      unit: 'points/s',
      lowerIsBetter: false,
      ours: a.map(pointsPerSecond(OUR_POINTS)),
      reference: b.map(pointsPerSecond(POINTS)),
      target: ratioAtLeast(10),
      note: `${OUR_POINTS.toLocaleString('en-US')} points per trial in 4 series: MetricBatcher (driver defaults: ${metricBatchDefaults.maxPoints} points / ${metricBatchDefaults.maxDelayMs} ms) → RunMetricWriter (chunks of the series: the open tail chunk, held as written, filled and written back; nothing read) vs raw put() of ${POINTS.toLocaleString('en-US')} rows of one point each in one transaction (the layout before chunks), same store, same page`,
    });
    const flushes = timed.flatMap((t) => t.flushMs);
    const raw = rawBatchMs.slice(-b.length).flat();
    const flushRow = {
      ...absoluteRow({
        name: 'metric flush p99',
        unit: 'ms',
        value: percentile(flushes, 99),
        target: atMost(50, 'ms'),
        trials: timed.length,
        note: `one flush = one batch of up to ${metricBatchDefaults.maxPoints} rows through the run's metric writer, from the call to its commit (a flush starts once the one before it has committed; that wait is not counted, as in the reference); ${flushes.length} flushes, median ${median(flushes).toFixed(1)} ms, p95 ${percentile(flushes, 95).toFixed(1)} ms; reference: raw put() transactions of the same ${metricBatchDefaults.maxPoints} rows, same trials, ${raw.length} transactions, median ${median(raw).toFixed(1)} ms, p95 ${percentile(raw, 95).toFixed(1)} ms`,
      }),
      reference: percentile(raw, 99),
      ratio: percentile(flushes, 99) / percentile(raw, 99),
    };
    log('metric disk per point and full read…');
    return [writeRow, flushRow, ...(await seriesRows(page, log))];
  } finally {
    await page.close();
  }
}

/**
 * Disk per point and a full read of a 1,000,000-point series, stored as
 * chunks (through the metric path) and one row per point (the layout before
 * chunks), side by side in one page: the origin's usage is read before and
 * after each write; the reads alternate.
 */
async function seriesRows(page: Page, log: (line: string) => void): Promise<BenchRow[]> {
  const call = <K extends keyof MetricBench>(method: K, ...args: Parameters<MetricBench[K]>) =>
    page.evaluate(
      ([name, m, rest]) => {
        const bench = (window as unknown as Record<string, MetricBench>)[name]!;
        return (bench[m] as (...a: unknown[]) => Promise<unknown>)(...rest);
      },
      [METRIC_BENCH_GLOBAL, method, args] as const,
    ) as ReturnType<MetricBench[K]>;
  await call('resetSeriesStores');
  const settle = 10_000;
  const before = await call('storageUsage', settle);
  const chunks = await call('writeChunkSeries', SERIES_POINTS);
  log(`  ${SERIES_POINTS} points as chunks: ${chunks.ms.toFixed(0)} ms`);
  const afterChunks = await call('storageUsage', settle);
  const points = await call('writePointSeries', SERIES_POINTS);
  log(`  ${SERIES_POINTS} points one row each: ${points.ms.toFixed(0)} ms`);
  const afterPoints = await call('storageUsage', settle);
  const perPoint = (bytes: number) => bytes / SERIES_POINTS;
  const ours = perPoint(afterChunks - before);
  const reference = perPoint(afterPoints - afterChunks);
  const n = SERIES_POINTS.toLocaleString('en-US');
  const diskRow: BenchRow = {
    ...absoluteRow({
      name: 'metric disk per point: chunks vs one row per point',
      unit: 'B/point',
      value: ours,
      target: ratioAtMost(0.1),
      trials: 1,
      note: `growth of navigator.storage.estimate().usage (read ${settle / 1000} s after each write, after a one-row write elsewhere so the browser takes in the store's compacted size) for one ${n}-point series written through the metric path as chunks (${(SERIES_POINTS / 1000 / (chunks.ms / 1000)).toFixed(0)}k points/s, ${chunks.flushMs.length} flushes), then the same series as one row per point (raw put, 10,000 rows a transaction, ${(SERIES_POINTS / 1000 / (points.ms / 1000)).toFixed(0)}k points/s); a point's raw content is 20 bytes (a step, a float64 value, a float64 wall time)`,
    }),
    reference,
    ratio: ours / reference,
  };
  diskRow.met = diskRow.ratio === null ? null : diskRow.ratio <= 0.1;
  const reads: SeriesRead[] = [];
  const { a, b } = await alternate({
    a: async () => {
      const read = await call('readChunkSeries');
      reads.push(read);
      log(`  chunk read: ${read.ms.toFixed(0)} ms`);
      return read.ms;
    },
    b: async () => {
      const read = await call('readPointSeries');
      log(`  per-point read: ${read.ms.toFixed(0)} ms`);
      return read.ms;
    },
    warmups: 0,
    minTrials: 3,
    maxTrials: 5,
    budgetMs: 60_000,
  });
  const timed = reads.slice(-a.length);
  const longest = Math.max(...timed.map((r) => r.longestTaskMs));
  const readRow = compareRow({
    name: 'metric full read of 1M points: chunks vs one row per point',
    unit: 'ms',
    lowerIsBetter: true,
    ours: a,
    reference: b,
    target: ratioAtMost(0.1),
    note: `the whole ${n}-point series into the chart's typed columns: LiveSeries over metricColumnsAfter, as a chart opening the series reads it (${timed[0]?.reads ?? 0} reads), vs raw getAll() of 8,000 rows a read from the per-point store into the same columns, alternating; the longest main-thread task during our reads ${longest.toFixed(0)} ms (0: none over 50 ms; the per-point reads beside them fill the page's heap with a million objects each, so a collection may land in ours: the chart row 'open a stored 1M-point series' measures it in a page of its own)`,
  });
  await call('resetSeriesStores');
  return [diskRow, readRow];
}
