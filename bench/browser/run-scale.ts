/**
 * The run-scale rows (issue 24), on the production build in Chromium: what
 * a thousand runs and a thousand nodes cost, each beside the same measure at
 * a tenth of the size (or the bare executor) in the same bench run.
 *
 * - Sweep throughput: runs/s of a 1,000-run sweep against a 100-run sweep of
 *   the same tiny flow (synthetic rows split in two, `e2e/flows/tiny-sweep`),
 *   each in a fresh profile, from the click on `Run sweep` to every run `ok`
 *   in the table. The main thread's long tasks (Long Tasks API) during the
 *   1,000-run sweep: the longest, and their sum as a share of the sweep.
 * - With those 1,000 runs in the table: selecting a row until the run panel
 *   names it (a MutationObserver, not frames), and sorting by a param until
 *   the table's first row changes.
 * - Per node through the real path: a flow of one `data.synthetic` fanned out
 *   to N `data.split` nodes, imported and run in the app (Run → `ok` in the
 *   table: driver, storage and canvas included), against the bare executor
 *   over the same flow in this process; and 1,000 nodes against 100.
 *
 * The machine is shared, so each row's note carries the load average.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from '@playwright/test';
import { executeFlow } from '../../src/core/engine/executor';
import type { FlowDocument } from '../../src/core/flow/document';
import { inProcessProducers } from '../../src/core/live/producer-host';
import { builtinCatalog } from '../../src/core/nodes';
import type { RunId } from '../../src/core/run/record';
import type { RunEntry } from '../../src/core/run/run-entry';
import {
  defaultRunListQuery,
  makeFilterTexts,
  queryRuns,
  type RunListQuery,
} from '../../src/core/run/run-list';
import type { TensorRuntime } from '../../src/core/runtime/tensor-runtime';
import {
  describeFailure,
  absoluteRow,
  atMost,
  compareRow,
  ratioAtLeast,
  ratioAtMost,
  unmeasuredRow,
  type BenchRow,
} from '../lib/rows';
import { median, percentile } from '../lib/stats';
import { quietEvents } from '../node/events';
import { appContext, longTasksSince, withApp, type AppBenchOptions } from './app-session';
import { repoRoot } from './servers';

const SMALL_SWEEP = 100;
const BIG_SWEEP = 1_000;
const SELECTS = 30;
const SORTS = 6;
const SMALL_FLOW = 100;
const BIG_FLOW = 1_000;
/**
 * Runs of each flow size (and of the bare executor beside each): with three,
 * one run slowed by the machine moved the 1,000-node median by a tenth.
 */
const NODE_TRIALS = 5;
/**
 * Pairs of sweeps (100 runs, then 1,000): one 1,000-run sweep took 28 s or
 * 43 s on the same build, and a single pair decided the row.
 */
const SWEEP_TRIALS = 3;
const LISTED = 10_000;
const LIST_TRIALS = 10;
/** Runs whose filter text the table makes in one task (as `RunsTable` does). */
const FILTER_TEXT_SLICE = 500;

const load = () => `load average ${loadavg()[0]!.toFixed(1)}`;

async function openApp(browser: Browser, url: string): Promise<Page> {
  const context = await appContext(browser);
  const page = await context.newPage();
  await page.goto(url);
  await page.getByRole('button', { name: 'Run', exact: true }).waitFor();
  return page;
}

async function importFlow(page: Page, flow: FlowDocument): Promise<void> {
  await page
    .getByRole('banner')
    .getByLabel('Import')
    .setInputFiles({
      name: `${flow.name}.flow.json`,
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(flow)),
    });
  await page.getByRole('heading', { level: 1, name: flow.name }).waitFor();
}

/**
 * Wait until the runs table counts `total` runs, all shown under its status
 * filter `ok` (its count line: `1,000 runs · 1,000 shown`), telling `log`
 * how far it got every half minute.
 */
async function waitForOk(
  page: Page,
  total: number,
  timeout: number,
  log: (line: string) => void = () => undefined,
): Promise<void> {
  // The browser's own querySelector, not a locator: Playwright's selector engines run in
  // JavaScript on the page's thread and walk the whole page, and with a thousand nodes on the
  // canvas each poll was a long task of its own that the Long Tasks API charged to the app.
  const count = {
    textContent: () =>
      page.evaluate(
        () => document.querySelector('[role="status"][aria-label="Run count"]')?.textContent ?? '',
      ),
  };
  const started = performance.now();
  let told = started;
  for (;;) {
    const text = (await count.textContent()).replace(/,/g, '');
    const [runs, shown] = [...text.matchAll(/\d+/g)].map((m) => Number(m[0]));
    if (runs === total && (shown ?? runs) === total) return;
    const now = performance.now();
    if (now - started > timeout) throw new Error(`the table still says '${text}'`);
    if (now - told > 30_000) {
      told = now;
      log(`run scale: the table says '${text}'`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface RunToOk {
  __clickAt?: number;
  __okAt?: number;
}

/**
 * Stamp, on the page's own clock, the next click (Run) as it reaches the page and
 * the first moment the runs table's count line says one run, shown under its
 * `ok` filter. Timed from outside, the span also held Playwright's checks
 * before the click (scripts over a thousand-node page) and up to a 100 ms
 * poll after the table changed, each a bias against the app; a mutation
 * observer on the count line costs the page nothing until it changes.
 */
async function stampRunToOk(page: Page): Promise<void> {
  await page.evaluate(() => {
    const stamps = window as unknown as RunToOk;
    const count = document.querySelector('[role="status"][aria-label="Run count"]');
    if (!count) throw new Error('no run count on the page');
    document.addEventListener(
      'click',
      () => {
        stamps.__clickAt ??= performance.now();
      },
      { capture: true, once: true },
    );
    new MutationObserver((_, observer) => {
      const text = count.textContent.replace(/,/g, '');
      const [runs, shown] = [...text.matchAll(/\d+/g)].map((m) => Number(m[0]));
      if (runs !== 1 || (shown ?? runs) !== 1) return;
      stamps.__okAt = performance.now();
      observer.disconnect();
    }).observe(count, { childList: true, characterData: true, subtree: true });
  });
}

/** ms from the Run click to the count line showing the run `ok` (`stampRunToOk`), once it has. */
async function runToOkMs(page: Page, timeout: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const { clickAt, okAt } = await page.evaluate(() => {
      const stamps = window as unknown as RunToOk;
      return { clickAt: stamps.__clickAt, okAt: stamps.__okAt };
    });
    if (clickAt !== undefined && okAt !== undefined) return okAt - clickAt;
    if (performance.now() - started > timeout) throw new Error('the run never showed ok');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Sweep {
  runsPerSecond: number;
  wallMs: number;
  longest: number;
  blockedMs: number;
  /** The main thread's longest task by thread time (CPU), from a trace of the top-level tasks. */
  longestCpu: number;
}

async function sweep(
  browser: Browser,
  url: string,
  runs: number,
  log: (line: string) => void,
): Promise<Sweep> {
  const page = await openApp(browser, url);
  try {
    const tiny = JSON.parse(
      readFileSync(path.join(repoRoot, 'e2e', 'flows', 'tiny-sweep.flow.json'), 'utf8'),
    ) as FlowDocument;
    await importFlow(page, tiny);
    await page.getByRole('combobox', { name: 'Status', exact: true }).selectOption('ok');
    const form = page.getByRole('form', { name: 'Run parameters' });
    await form.getByLabel('seed', { exact: true }).fill(`0..${runs - 1}`);
    // Found before the clock starts: Playwright's role query runs scripts over the page, on its
    // thread, and the Long Tasks API would charge them to the app.
    const runSweep = await form.getByRole('button', { name: /^Run sweep\b/ }).elementHandle();
    const since = await page.evaluate(() => performance.now());
    await browser.startTracing(page, { categories: ['toplevel'] });
    const start = performance.now();
    await runSweep.click();
    await waitForOk(page, runs, 1_800_000, log);
    const wallMs = performance.now() - start;
    const { longestPageTaskCpuMs } = threadCpu(await browser.stopTracing());
    const tasks = await longTasksSince(page, since);
    return {
      runsPerSecond: runs / (wallMs / 1000),
      wallMs,
      longest: Math.max(0, ...tasks.map((t) => t.duration)),
      blockedMs: tasks.reduce((sum, t) => sum + t.duration, 0),
      longestCpu: longestPageTaskCpuMs,
    };
  } finally {
    if (runs !== BIG_SWEEP) await page.context().close();
  }
}

/** Click the `i`th row in view; ms until the run panel names its run. */
function selectRow(page: Page, i: number): Promise<number> {
  return page.evaluate(async (index) => {
    const rows = document.querySelectorAll<HTMLTableRowElement>(
      'table[aria-label="Runs"] tbody tr[data-index]',
    );
    const row = rows[index % rows.length]!;
    const id = row.querySelector<HTMLElement>('td[title]')!.title;
    // No named functions in here: the bench's TypeScript loader would wrap them in a helper
    // the page does not have.
    const selector = `section[aria-label="Run"] h2 code[title="${id}"]`;
    return new Promise<number>((resolve) => {
      const start = performance.now();
      const observer = new MutationObserver(() => {
        if (!document.querySelector(selector)) return;
        observer.disconnect();
        resolve(performance.now() - start);
      });
      observer.observe(document.body, { childList: true, subtree: true, attributes: true });
      row.click();
    });
  }, i);
}

/** Choose sort `value`; ms until the table's first row changes (or shows it kept). */
function sortBy(page: Page, value: string): Promise<number> {
  return page.evaluate(async (key) => {
    const select = document.querySelector<HTMLSelectElement>('#runs-sort')!;
    const body = document.querySelector('table[aria-label="Runs"] tbody')!;
    return new Promise<number>((resolve) => {
      const start = performance.now();
      // A sort that leaves the first rows as they were changes nothing to observe: not timed.
      const giveUp = setTimeout(() => {
        observer.disconnect();
        resolve(Number.NaN);
      }, 5_000);
      const observer = new MutationObserver(() => {
        observer.disconnect();
        clearTimeout(giveUp);
        resolve(performance.now() - start);
      });
      observer.observe(body, { childList: true, subtree: true, characterData: true });
      select.value = key;
      select.dispatchEvent(new Event('change', { bubbles: true }));
    });
  }, value);
}

/** One `data.synthetic` fanned out to `splits` `data.split` nodes. */
function fanOut(splits: number): FlowDocument {
  return {
    format: 'flowbench.flow/1',
    name: `fan-out-${splits}`,
    inputs: [],
    outputs: [],
    nodes: [
      {
        id: 'data',
        kind: 'data.synthetic',
        params: { shape: 'blobs', n: 100, classes: 2, noise: 0.1, seed: 0 },
        position: { x: 0, y: 0 },
      },
      ...Array.from({ length: splits }, (_, i) => ({
        id: `split_${i}`,
        kind: 'data.split',
        params: { test_fraction: 0.25, seed: i },
        position: { x: 300 + (i % 20) * 220, y: Math.floor(i / 20) * 120 },
      })),
    ],
    edges: Array.from({ length: splits }, (_, i) => ({
      from: 'data.dataset',
      to: `split_${i}.dataset`,
    })),
  };
}

interface FlowRun {
  wallMs: number;
  recordedMs: number;
  longest: number;
  /** CPU time (thread time, not wall) of the page's main thread and of the workers. */
  pageCpuMs: number;
  workerCpuMs: number;
  /** The main thread's longest task by thread time. */
  longestPageTaskCpuMs: number;
}

/**
 * Import `flow` into a fresh profile, press Run; ms until its row says `ok`.
 * The threads' CPU time over the same span comes from a trace of the
 * browser's top-level tasks (their thread time): on a shared machine the
 * wall time moves with the load, the CPU a thread spent much less.
 */
async function runInApp(browser: Browser, url: string, flow: FlowDocument): Promise<FlowRun> {
  const page = await openApp(browser, url);
  try {
    await importFlow(page, flow);
    await page.getByRole('combobox', { name: 'Status', exact: true }).selectOption('ok');
    const since = await page.evaluate(() => performance.now());
    await stampRunToOk(page);
    await browser.startTracing(page, { categories: ['toplevel'] });
    await page.getByRole('banner').getByRole('button', { name: 'Run', exact: true }).click();
    const wallMs = await runToOkMs(page, 600_000);
    const cpu = threadCpu(await browser.stopTracing());
    const row = page.locator('table[aria-label="Runs"] tbody tr[data-index]').first();
    const duration = (await row.locator('td').nth(7).textContent()) ?? '';
    const tasks = await longTasksSince(page, since);
    return {
      wallMs,
      recordedMs: parseDuration(duration),
      longest: Math.max(0, ...tasks.map((t) => t.duration)),
      ...cpu,
    };
  } finally {
    await page.context().close();
  }
}

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  tdur?: number;
  args?: { name?: string };
}

/**
 * The thread time of the traced top-level tasks of the page's main thread and
 * of its workers, ms, and of the main thread's longest task.
 */
function threadCpu(trace: Buffer): {
  pageCpuMs: number;
  workerCpuMs: number;
  longestPageTaskCpuMs: number;
} {
  const parsed = JSON.parse(trace.toString()) as { traceEvents: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  const threads = new Map<string, string>();
  for (const e of events)
    if (e.name === 'thread_name') threads.set(`${e.pid}:${e.tid}`, e.args?.name ?? '');
  let pageCpuMs = 0;
  let workerCpuMs = 0;
  let longestPageTaskCpuMs = 0;
  for (const e of events) {
    if (e.ph !== 'X' || e.name !== 'ThreadControllerImpl::RunTask') continue;
    const thread = threads.get(`${e.pid}:${e.tid}`) ?? '';
    const ms = (e.tdur ?? 0) / 1000;
    if (thread === 'CrRendererMain') {
      pageCpuMs += ms;
      longestPageTaskCpuMs = Math.max(longestPageTaskCpuMs, ms);
    } else if (thread.startsWith('DedicatedWorker')) workerCpuMs += ms;
  }
  return { pageCpuMs, workerCpuMs, longestPageTaskCpuMs };
}

/** `1.2 s`, `340 ms`, `2 min 3 s` as the table shows a duration, in ms (NaN if unread). */
function parseDuration(text: string): number {
  let ms = 0;
  let any = false;
  for (const [, n, unit] of text.matchAll(/([\d.]+)\s*(ms|s|min|h)\b/g)) {
    any = true;
    ms +=
      Number(n) * ({ ms: 1, s: 1000, min: 60_000, h: 3_600_000 } as Record<string, number>)[unit!]!;
  }
  return any ? ms : Number.NaN;
}

const noRuntime: TensorRuntime = {
  info: { backend: 'wasm', adapter: null },
  createSession: () => Promise.reject(new Error('the bare executor has no tensor runtime')),
};

/** The bare executor over `flow` in this process, no driver or storage; wall ms. */
async function bareExecutor(flow: FlowDocument): Promise<number> {
  const start = performance.now();
  const result = await executeFlow({
    flow,
    catalog: builtinCatalog,
    inputs: {},
    runtime: noRuntime,
    producers: inProcessProducers,
    events: quietEvents(),
    signal: new AbortController().signal,
    now: Date.now,
    yieldNow: () => new Promise<void>((resolve) => setImmediate(resolve)),
  });
  if (result.status !== 'ok') throw new Error(`the bare executor ended ${result.status}`);
  return performance.now() - start;
}

/** `LISTED` run list entries of three sweeps, as the table holds them, newest first. */
function listedRuns(): RunEntry[] {
  return Array.from({ length: LISTED }, (_, i) => {
    const id = `0190a000-0000-7000-8000-${String(LISTED - i).padStart(12, '0')}` as RunId;
    const failed = i % 10 === 7;
    return {
      id,
      flowId: null,
      flow: 'spirals-mlp',
      groupId: `sweep-${i % 3}`,
      cause: 'sweep',
      rerunOf: null,
      status: failed ? 'error' : 'ok',
      statusReason: failed ? "node 'train' failed: diverged" : '',
      backend: 'wasm',
      requires: [],
      createdAt: new Date(1_700_000_000_000 + (LISTED - i) * 1000).toISOString(),
      startedAt: new Date(1_700_000_000_500 + (LISTED - i) * 1000).toISOString(),
      finishedAt: new Date(1_700_000_000_900 + (LISTED - i) * 1000).toISOString(),
      durationMs: 400 + ((i * 7919) % 997),
      params: { lr: [0.01, 0.03, 0.1, 0.3, 1][i % 5]!, steps: 50 },
      seed: LISTED - i,
      result: failed ? {} : { accuracy: ((i * 104729) % 10_007) / 10_007 },
      rev: LISTED - i,
    };
  });
}

/**
 * Sort and filter `LISTED` runs as the runs table does on a change of its
 * query (`queryRuns` on the page's thread; the table then draws only the
 * rows in view): each trial a sort by a param, a sort by a result, a
 * status filter and a text filter, on entries whose filter text is made.
 */
function listRows(): BenchRow[] {
  const runs = listedRuns();
  const queries: RunListQuery[] = [
    { ...defaultRunListQuery, sort: 'param:seed', descending: false },
    { ...defaultRunListQuery, sort: 'result:accuracy' },
    { ...defaultRunListQuery, status: 'error' },
    { ...defaultRunListQuery, text: 'lr=0.3' },
  ];
  const time = (query: RunListQuery) => {
    const start = performance.now();
    const shown = queryRuns(runs, query);
    const ms = performance.now() - start;
    if (shown.length === 0) throw new Error(`no run matched ${JSON.stringify(query)}`);
    return ms;
  };
  // The first text filter makes each entry's filter text (kept beside the entry after)…
  const firstFilter = time({ ...defaultRunListQuery, text: 'seed=42' });
  // …unless the table has made them ahead, a slice a task, as it does while the page is idle.
  const ahead = listedRuns();
  let longestSlice = 0;
  for (let from = 0; from < ahead.length; from += FILTER_TEXT_SLICE) {
    const start = performance.now();
    makeFilterTexts(ahead, from, from + FILTER_TEXT_SLICE);
    longestSlice = Math.max(longestSlice, performance.now() - start);
  }
  const took: number[] = [];
  for (let trial = 0; trial < LIST_TRIALS; trial++)
    for (const query of queries) took.push(time(query));
  return [
    absoluteRow({
      name: `sort and filter ${LISTED.toLocaleString('en')} runs, p95`,
      unit: 'ms',
      value: percentile(took, 95),
      target: atMost(50, 'ms'),
      trials: took.length,
      note: `queryRuns as the table runs it (a param sort, a result sort, a status and a text filter), median ${median(took).toFixed(1)} ms; the filter texts made ahead, ${FILTER_TEXT_SLICE} runs a task: longest task ${longestSlice.toFixed(1)} ms (all at once, as a first filter would without them: ${firstFilter.toFixed(1)} ms); in this process; ${load()}`,
    }),
  ];
}

export async function runScaleRows(options: AppBenchOptions): Promise<BenchRow[]> {
  return withApp(options, (browser, url) => measureRunScale(browser, url, options.log));
}

async function measureRunScale(
  browser: Browser,
  url: string,
  log: (line: string) => void,
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  // Each row in the log as soon as it is measured, so a run cut short still tells what it had.
  const add = (...measured: BenchRow[]) => {
    rows.push(...measured);
    for (const row of measured) log(`run scale: ${JSON.stringify(row)}`);
  };
  // `FLOWBENCH_RUN_SCALE=nodes` (or `sweeps`, `list`) measures only those rows.
  const part = (name: string) => [undefined, '', name].includes(process.env.FLOWBENCH_RUN_SCALE);
  if (part('list')) add(...listRows());
  if (part('nodes'))
    try {
      const results = new Map<number, { app: FlowRun[]; bare: number[] }>(
        [SMALL_FLOW, BIG_FLOW].map((nodes) => [nodes, { app: [], bare: [] }]),
      );
      // Each size a few times, in turn, so drift and a busy moment fall on both.
      for (let trial = 0; trial < NODE_TRIALS; trial++)
        for (const nodes of [SMALL_FLOW, BIG_FLOW]) {
          log(
            `run scale: a ${nodes}-node flow in the app and bare, trial ${trial + 1} (${load()})…`,
          );
          const flow = fanOut(nodes);
          const held = results.get(nodes)!;
          held.bare.push(await bareExecutor(flow));
          held.app.push(await runInApp(browser, url, flow));
        }
      const perNode = (nodes: number, ms: number) => ms / (nodes + 1);
      const big = results.get(BIG_FLOW)!;
      const small = results.get(SMALL_FLOW)!;
      const mid = (runs: FlowRun[], of: (run: FlowRun) => number) => median(runs.map(of));
      const told = (runs: FlowRun[]) =>
        `Run → ok in the table ${(mid(runs, (r) => r.wallMs) / 1000).toFixed(2)} s (recorded ${mid(runs, (r) => r.recordedMs)} ms); CPU (thread time) of the page's main thread ${mid(runs, (r) => r.pageCpuMs).toFixed(0)} ms, of the engine worker ${mid(runs, (r) => r.workerCpuMs).toFixed(0)} ms; longest main-thread task ${mid(runs, (r) => r.longest).toFixed(0)} ms wall (the worst trial's ${Math.max(...runs.map((r) => r.longest)).toFixed(0)} ms; a trial with no task of 50 ms or more reads 0), ${mid(runs, (r) => r.longestPageTaskCpuMs).toFixed(0)} ms by thread time (medians of ${runs.length})`;
      add(
        compareRow({
          name: `per node through the real path, ${BIG_FLOW} trivial nodes vs the bare executor`,
          unit: 'ms/node',
          lowerIsBetter: true,
          ours: big.app.map((run) => perNode(BIG_FLOW, run.wallMs)),
          reference: big.bare.map((ms) => perNode(BIG_FLOW, ms)),
          target: {
            label: '≤ ref + 1 ms/node',
            met: ({ value, reference }) => (reference === null ? null : value - reference <= 1),
          },
          note: `${told(big.app)}; bare executor ${median(big.bare).toFixed(1)} ms; ${load()}`,
        }),
        compareRow({
          name: `per node through the real path, ${BIG_FLOW} nodes vs ${SMALL_FLOW}`,
          unit: 'ms/node',
          lowerIsBetter: true,
          ours: big.app.map((run) => perNode(BIG_FLOW, run.wallMs)),
          reference: small.app.map((run) => perNode(SMALL_FLOW, run.wallMs)),
          target: ratioAtMost(1.2),
          note: `${SMALL_FLOW} nodes: ${told(small.app)}; ${load()}`,
        }),
      );
    } catch (error) {
      const why = describeFailure(error);
      log(`run scale: node rows failed: ${why}`);
      add(
        unmeasuredRow(
          `per node through the real path, ${BIG_FLOW} trivial nodes`,
          'ms/node',
          atMost(1, 'ms'),
          why,
        ),
      );
    }
  if (part('sweeps'))
    try {
      const smalls: Sweep[] = [];
      const bigs: Sweep[] = [];
      for (let trial = 0; trial < SWEEP_TRIALS; trial++) {
        // The last 1,000-run sweep's page stays open for the rows below; an earlier one goes now.
        if (trial > 0) await browser.contexts().at(-1)!.close();
        log(`run scale: a ${SMALL_SWEEP}-run sweep, trial ${trial + 1} (${load()})…`);
        smalls.push(await sweep(browser, url, SMALL_SWEEP, log));
        log(`run scale: a ${BIG_SWEEP}-run sweep, trial ${trial + 1} (${load()})…`);
        bigs.push(await sweep(browser, url, BIG_SWEEP, log));
      }
      const seconds = (runs: Sweep[]) =>
        runs.map((run) => (run.wallMs / 1000).toFixed(1)).join(', ');
      const sweepNote = `tiny flow; ${BIG_SWEEP} runs in ${seconds(bigs)} s, ${SMALL_SWEEP} in ${seconds(smalls)} s; the ratio is the median of each pair's own; ${load()}`;
      // The worst sweep's figures: a long task in any of them is one a person would have felt.
      const longest = Math.max(...bigs.map((run) => run.longest));
      const longestCpu = Math.max(...bigs.map((run) => run.longestCpu));
      const blocked = bigs.reduce((worst, run) =>
        run.blockedMs / run.wallMs > worst.blockedMs / worst.wallMs ? run : worst,
      );
      add(
        compareRow({
          name: `sweep throughput, ${BIG_SWEEP} runs vs ${SMALL_SWEEP}`,
          unit: 'runs/s',
          lowerIsBetter: false,
          ours: bigs.map((run) => run.runsPerSecond),
          reference: smalls.map((run) => run.runsPerSecond),
          target: ratioAtLeast(0.9),
          paired: true,
          note: sweepNote,
        }),
        absoluteRow({
          name: `main thread during a ${BIG_SWEEP}-run sweep: longest task`,
          unit: 'ms',
          value: longest,
          target: atMost(50, 'ms'),
          trials: bigs.length,
          note: `wall time (Long Tasks API), the worst of the sweeps; the longest task by the main thread's CPU (thread time, from a trace of the top-level tasks, which a loaded machine moves much less) ${longestCpu.toFixed(0)} ms; ${load()}`,
        }),
        absoluteRow({
          name: `main thread during a ${BIG_SWEEP}-run sweep: blocked share`,
          unit: '%',
          value: (100 * blocked.blockedMs) / blocked.wallMs,
          target: atMost(2, '%'),
          trials: bigs.length,
          note: `the worst of the sweeps: ${(blocked.blockedMs / 1000).toFixed(1)} s of long tasks in ${(blocked.wallMs / 1000).toFixed(1)} s; ${load()}`,
        }),
      );
      const page = browser.contexts().at(-1)!.pages()[0]!;
      await page.getByRole('combobox', { name: 'Status', exact: true }).selectOption('all');
      const selects: number[] = [];
      for (let i = 0; i < SELECTS; i++) selects.push(await selectRow(page, i));
      add(
        absoluteRow({
          name: `select a row, ${BIG_SWEEP} runs in the table, p95`,
          unit: 'ms',
          value: percentile(selects, 95),
          target: atMost(50, 'ms'),
          trials: SELECTS,
          note: `median ${median(selects).toFixed(1)} ms; click to the run panel naming it; ${load()}`,
        }),
      );
      const sorts: number[] = [];
      // Newest first, the default, puts seed 999 on top as a seed sort does: alternate with the
      // duration, which does not.
      for (let i = 0; i < SORTS; i++) {
        const took = await sortBy(page, i % 2 ? 'duration' : 'param:seed');
        if (Number.isFinite(took)) sorts.push(took);
      }
      add(
        absoluteRow({
          name: `sort by a param, ${BIG_SWEEP} runs`,
          unit: 'ms',
          value: median(sorts),
          p95: percentile(sorts, 95),
          target: atMost(50, 'ms'),
          trials: SORTS,
          note: `until the first row changes; ${load()}`,
        }),
      );
      await page.context().close();
    } catch (error) {
      const why = describeFailure(error);
      log(`run scale: sweeps failed: ${why}`);
      add(
        unmeasuredRow(
          `sweep throughput, ${BIG_SWEEP} runs vs ${SMALL_SWEEP}`,
          'runs/s',
          ratioAtLeast(0.9),
          why,
        ),
      );
    }

  return rows;
}
