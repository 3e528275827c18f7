/**
 * Row 2, in Chromium on one page: points/s through the run's metric path
 * versus raw IndexedDB `put` of the same rows in one transaction, and the
 * p99 of one flush (one batch's write, from `putMetrics` to commit) beside
 * the p99 of raw `put` transactions of the same size, written in the same
 * trials — so the table tells a tail of ours from a tail of the store's.
 */
import { chromium, type Browser } from '@playwright/test';
import playwrightConfig from '../../playwright.config';
import { absoluteRow, atMost, compareRow, ratioAtLeast, type BenchRow } from '../lib/rows';
import { alternate, median, percentile } from '../lib/stats';
import { metricBatchDefaults } from '../../src/core/run/metric-batcher';
import { METRIC_BENCH_GLOBAL, type MetricBench, type MetricPathTrial } from '../web/api';
import { buildBenchPage, serveBenchPage } from './servers';

const POINTS = 20_000;

/**
 * The `metrics` suite: build the bench page, serve it, and run the two metric
 * rows in Chromium launched as the e2e tests launch it. The page does not
 * need the app, so these rows run without building `dist/`.
 */
export async function metricSuite({ log }: { log: (line: string) => void }): Promise<BenchRow[]> {
  await buildBenchPage(log);
  const served = await serveBenchPage();
  let browser: Browser | null = null;
  try {
    browser = await chromium.launch({ ...playwrightConfig.use?.launchOptions, headless: true });
    log(`chromium ${browser.version()}: metric write path…`);
    return await metricRows(browser, served.url);
  } finally {
    await browser?.close();
    await served.close();
  }
}

async function metricRows(browser: Browser, pageUrl: string): Promise<BenchRow[]> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(pageUrl);
    await page.waitForFunction((name) => name in window, METRIC_BENCH_GLOBAL);
    // Each function runs in the page: it may use only its arguments and the page's globals.
    const metricPath = () =>
      page.evaluate(
        ([name, n]) => (window as unknown as Record<string, MetricBench>)[name]!.metricPath(n),
        [METRIC_BENCH_GLOBAL, POINTS] as const,
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
        paths.push(trial);
        return trial.ms;
      },
      // The raw batches run after the timed single transaction, untimed for the throughput row.
      b: async () => {
        const ms = await rawPut();
        await clear();
        rawBatchMs.push(await rawBatches());
        return ms;
      },
      warmups: 1,
      minTrials: 5,
      maxTrials: 9,
      budgetMs: 25_000,
      before: clear,
    });
    const timed = paths.slice(-a.length);
    const pointsPerSecond = (ms: number) => (POINTS * 1000) / ms;
    const writeRow = compareRow({
      name: 'metric write path vs raw IndexedDB put',
      unit: 'points/s',
      lowerIsBetter: false,
      ours: a.map(pointsPerSecond),
      reference: b.map(pointsPerSecond),
      target: ratioAtLeast(0.85),
      note: `${POINTS.toLocaleString('en-US')} points per trial in 4 series: MetricBatcher (driver defaults: ${metricBatchDefaults.maxPoints} points / ${metricBatchDefaults.maxDelayMs} ms) → putMetrics (Dexie bulkPut) vs raw put() of the same rows in one transaction, same store, same page`,
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
        note: `one flush = one batch of up to ${metricBatchDefaults.maxPoints} rows through putMetrics, from the call to its commit (a flush starts once the one before it has committed; that wait is not counted, as in the reference); ${flushes.length} flushes, median ${median(flushes).toFixed(1)} ms, p95 ${percentile(flushes, 95).toFixed(1)} ms; reference: raw put() transactions of the same ${metricBatchDefaults.maxPoints} rows, same trials, ${raw.length} transactions, median ${median(raw).toFixed(1)} ms, p95 ${percentile(raw, 95).toFixed(1)} ms`,
      }),
      reference: percentile(raw, 99),
      ratio: percentile(flushes, 99) / percentile(raw, 99),
    };
    return [writeRow, flushRow];
  } finally {
    await context.close();
  }
}
