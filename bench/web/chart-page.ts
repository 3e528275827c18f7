/**
 * The chart bench, in the page. Our side is the app's own chart component:
 * `MetricChartView` for the draw and append rows (the series handed over in
 * memory, as the live read hands it over after a flush), and `MetricChart`
 * reading IndexedDB live for write-to-pixel, with a worker committing points
 * as the run driver does. The reference is bare uPlot at the same size,
 * drawing the same points with no decimation. A side is timed until its
 * canvas has drawn the points: uPlot's draw hook (ours sets
 * `data-drawn-points` from it; a MutationObserver notes the moment).
 */
import { createElement } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { MetricPoint } from '../../src/core/series/columns';
import { SeriesBuffer } from '../../src/core/series/series-buffer';
import { deleteAllMetrics } from '../../src/db/metrics';
import { db } from '../../src/ui/db';
import { MetricChart, MetricChartView } from '../../src/ui/charts/MetricChart';
import { defaultChartSettings, type ShownRun } from '../../src/ui/charts/plot-model';
import { EditorProvider } from '../../src/ui/store/context';
import {
  CHART_BENCH_GLOBAL,
  type ChartBench,
  type ChartTrial,
  type OpenStoredTrial,
  type WriterReply,
  type WriterRequest,
  type WriteToPixelTrial,
} from './chart-api';

const METRIC = 'train.loss';
const HEIGHT = 200;
const host = document.getElementById('chart')!;
const epochNow = () => performance.timeOrigin + performance.now();

const valueAt = (step: number) => 1 / (1 + step / 1000) + 0.01 * Math.sin(step);
const made: MetricPoint[] = [];
/** The first `n` points of the bench series (made once, untimed). */
function pointsTo(n: number): MetricPoint[] {
  for (let step = made.length; step < n; step++)
    made.push({ step, value: valueAt(step), ts: 1_732_900_000 + step / 1000 });
  return made.slice(0, n);
}
const pointsFrom = (from: number, n: number) => {
  pointsTo(from + n);
  return made.slice(from, from + n);
};

/** Every change of `data-drawn-points` under the host, with the moment it was seen. */
const drawLog: { count: number; at: number }[] = [];
const waiting: { count: number; resolve: (at: number) => void }[] = [];
new MutationObserver((records) => {
  const at = epochNow();
  for (const record of records) {
    const count = Number((record.target as Element).getAttribute('data-drawn-points'));
    drawLog.push({ count, at });
    for (let i = waiting.length - 1; i >= 0; i--)
      if (count >= waiting[i]!.count) waiting.splice(i, 1)[0]!.resolve(at);
  }
}).observe(host, { subtree: true, attributes: true, attributeFilter: ['data-drawn-points'] });

/** When our chart first drew `count` points (epoch ms): from the log, or when it happens. */
function drawnWith(count: number): Promise<number> {
  const seen = drawLog.find((d) => d.count >= count);
  if (seen) return Promise.resolve(seen.at);
  return new Promise((resolve) => waiting.push({ count, resolve }));
}

const run = (id: string): ShownRun => ({ id, label: id, colour: '#4e79a7', params: {}, seed: 0 });

async function ours(points: number, flushes: number, perFlush: number): Promise<ChartTrial> {
  drawLog.length = 0;
  const runs = [run('bench')];
  const buffer = new SeriesBuffer();
  const base = pointsTo(points);
  const batches = Array.from({ length: flushes }, (_, i) =>
    pointsFrom(points + i * perFlush, perFlush),
  );
  const root = createRoot(host);
  const render = () =>
    flushSync(() =>
      root.render(
        createElement(
          EditorProvider,
          null,
          createElement(MetricChartView, {
            metric: METRIC,
            runs,
            settings: defaultChartSettings,
            series: [buffer.snapshot()],
          }),
        ),
      ),
    );
  try {
    // Like the reference's columns, the series is in memory before the clock starts.
    buffer.append(base);
    const start = epochNow();
    render();
    const initialMs = (await drawnWith(points)) - start;
    const flushMs: number[] = [];
    for (const batch of batches) {
      const at = epochNow();
      buffer.append(batch);
      render();
      flushMs.push((await drawnWith(buffer.length)) - at);
    }
    return { initialMs, flushMs };
  } finally {
    root.unmount();
  }
}

async function bare(points: number, flushes: number, perFlush: number): Promise<ChartTrial> {
  const capacity = points + flushes * perFlush;
  const x = new Float64Array(capacity);
  const y = new Float64Array(capacity);
  pointsTo(capacity).forEach((p, i) => {
    x[i] = p.step;
    y[i] = p.value;
  });
  const target = document.createElement('div');
  host.append(target);
  let drawn: (() => void) | null = null;
  const nextDraw = () => new Promise<void>((resolve) => (drawn = resolve));
  const options: uPlot.Options = {
    width: host.clientWidth - 18,
    height: HEIGHT,
    scales: { x: { time: false } },
    series: [{ label: 'step' }, { label: METRIC, stroke: '#4e79a7', width: 1.5 }],
    legend: { show: false },
    hooks: { draw: [() => drawn?.()] },
  };
  let plot: uPlot | null = null;
  try {
    let length = points;
    const data = (): uPlot.AlignedData => [x.subarray(0, length), y.subarray(0, length)];
    const start = epochNow();
    const first = nextDraw();
    plot = new uPlot(options, data(), target);
    await first;
    const initialMs = epochNow() - start;
    const flushMs: number[] = [];
    for (let f = 0; f < flushes; f++) {
      const at = epochNow();
      length += perFlush;
      const done = nextDraw();
      plot.setData(data());
      await done;
      flushMs.push(epochNow() - at);
    }
    return { initialMs, flushMs };
  } finally {
    plot?.destroy();
    target.remove();
  }
}

async function writeToPixel(
  basePoints: number,
  batches: number,
  perBatch: number,
  gapMs: number,
): Promise<WriteToPixelTrial> {
  drawLog.length = 0;
  await deleteAllMetrics(db);
  const runId = crypto.randomUUID();
  const worker = new Worker(new URL('./chart-writer.worker.ts', import.meta.url), {
    type: 'module',
  });
  const ask = (request: WriterRequest) =>
    new Promise<{ committedAt: number; total: number }>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<WriterReply>) => {
        const reply = event.data;
        if ('error' in reply) reject(new Error(`the writer worker failed: ${reply.error}`));
        else resolve(reply);
      };
      worker.onerror = (event) => reject(new Error(`the writer worker failed: ${event.message}`));
      worker.postMessage(request);
    });
  const root = createRoot(host);
  try {
    await ask({ type: 'base', runId, name: METRIC, points: basePoints });
    root.render(
      createElement(
        EditorProvider,
        null,
        createElement(MetricChart, {
          metric: METRIC,
          runs: [run(runId)],
          settings: defaultChartSettings,
        }),
      ),
    );
    await drawnWith(basePoints);
    const latencyMs: number[] = [];
    for (let i = 0; i < batches; i++) {
      const reply = await ask({
        type: 'batch',
        runId,
        name: METRIC,
        from: basePoints + i * perBatch,
        points: perBatch,
      });
      latencyMs.push((await drawnWith(reply.total)) - reply.committedAt);
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
    return { latencyMs, basePoints };
  } finally {
    root.unmount();
    worker.terminate();
  }
}

async function openStored(points: number): Promise<OpenStoredTrial> {
  drawLog.length = 0;
  await deleteAllMetrics(db);
  const runId = crypto.randomUUID();
  const worker = new Worker(new URL('./chart-writer.worker.ts', import.meta.url), {
    type: 'module',
  });
  const root = createRoot(host);
  const longTasksMs: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longTasksMs.push(entry.duration);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<WriterReply>) =>
        'error' in event.data ? reject(new Error(event.data.error)) : resolve();
      worker.postMessage({ type: 'base', runId, name: METRIC, points } satisfies WriterRequest);
    });
    observer.observe({ type: 'longtask', buffered: false });
    const start = epochNow();
    root.render(
      createElement(
        EditorProvider,
        null,
        createElement(MetricChart, {
          metric: METRIC,
          runs: [run(runId)],
          settings: defaultChartSettings,
        }),
      ),
    );
    const ms = (await drawnWith(points)) - start;
    // Long task entries arrive after the task that made them.
    await new Promise((resolve) => setTimeout(resolve, 100));
    return { ms, longestTaskMs: Math.max(0, ...longTasksMs), longTasksMs };
  } finally {
    observer.disconnect();
    root.unmount();
    worker.terminate();
  }
}

await db.open();
const bench: ChartBench = { ours, bare, writeToPixel, openStored };
Object.assign(window, { [CHART_BENCH_GLOBAL]: bench });
