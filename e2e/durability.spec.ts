/**
 * Durability (fault suite 1, 7 and 9): what happens to a run when its tab
 * goes away, when two tabs run at once, when its engine is starved, when
 * storage does not answer its writes, and when the machine is loaded while
 * onnxruntime trains on threads (in the model worker).
 * "Nothing lost" is checked by counting: every point the chart had shown
 * (so committed) is in the record, steps run 0, 1, 2 … without a gap or a
 * duplicate, and node outcomes say what really happened.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { exampleNodes, expect, test } from './fixtures';
import { pointSteps, pointValue, type MetricPoint } from './support/formats';
import { SHORT_TIMINGS } from './support/stored';
import { holdStore, leaseExpired, openTab, starveEngine } from './support/tabs';

/**
 * Two runs at once in two tabs and leases that must not lapse: one such
 * test at a time, beside ordinary ones (a lease is renewed
 * several times within its life, room enough on a machine that runs two
 * tests at once).
 */
const heavy = { tag: '@heavy' };

/** A run that outlasts every test here; each one ends it (or its tab). */
const LONG_RUN = 100000;
// Leases, sweeps and the storage-stall alert wait seconds here, not the tens of seconds they
// wait for people (workers/engine/timings.ts): what follows a fault shows sooner, the same.
test.use({ engineTimings: SHORT_TIMINGS });
const { leaseMs: LEASE_MS, sweepMs: SWEEP_MS } = SHORT_TIMINGS;
/** How long two runs at once may take to end (a wait, not a timing check). */
const TWO_RUNS_MS = 90_000;

/** Steps 0 … n-1, each once, and every value a finite loss. */
function expectWhole(points: readonly MetricPoint[]): void {
  expect(pointSteps(points)).toEqual(points.map((_, i) => i));
  for (const point of points) expect(Number.isFinite(pointValue(point))).toBe(true);
}

test(
  'a tab closed mid-run: its run becomes abandoned and keeps every flushed point',
  heavy,
  async ({ page, params, toolbar, runs, canvas }) => {
    await params.set('steps', LONG_RUN);
    await toolbar.run();
    await expect(runs.rows).toHaveCount(1);
    const id = await runs.idOf(runs.newest);
    await runs.expectStatus(runs.newest, 'running');
    await canvas.expectStatus(['data', 'split', 'model'], 'ok');
    await expect(canvas.node('train')).toHaveAttribute('data-status', 'running');
    await expect.poll(() => runs.chartPoints('train.loss')).toBeGreaterThanOrEqual(20);
    // What the chart shows was read back from IndexedDB: committed points.
    const charted = await runs.chartPoints('train.loss');

    await page.close();
    const { app: tab, errors } = await openTab(page.context());
    const row = tab.runs.row(id);
    // A wait, not a timing check: the new tab opens, its lease runs out, a sweep follows.
    await tab.runs.expectStatus(row, 'abandoned', { timeout: 4 * LEASE_MS + 3 * SWEEP_MS });
    await tab.runs.select(row);
    await expect(tab.runs.detail).toContainText('The engine running it stopped reporting');
    await tab.canvas.expectStatus(['data', 'split', 'model'], 'ok');
    await tab.canvas.expectStatus(['train', 'eval'], 'interrupted');

    const { json: record } = await tab.runs.exportRun();
    expect(record.run.status).toBe('abandoned');
    const outcome = Object.fromEntries(record.nodes.map((n) => [n.node, n.status]));
    expect(outcome).toEqual({
      data: 'ok',
      split: 'ok',
      model: 'ok',
      train: 'interrupted',
      eval: 'interrupted',
    });
    const loss = record.metrics['train.loss'] ?? [];
    expect(loss.length).toBeGreaterThanOrEqual(charted);
    expect(loss.length).toBeLessThan(LONG_RUN / 5);
    expectWhole(loss);
    await expect(tab.runs.chart('train.loss')).toHaveAttribute('data-points', String(loss.length));
    await expect(tab.alerts.all).toHaveCount(0);
    expect(errors).toEqual([]);
  },
);

test(
  'two tabs start a run at once: each run is driven once, its points stored once',
  heavy,
  async ({ app, page }) => {
    const { app: other, errors } = await openTab(page.context());
    // Different lengths, so each record shows it holds its own run's points only.
    const steps = { here: 100, there: 60 };
    await app.params.set('steps', steps.here);
    await other.params.set('steps', steps.there);
    // Every node runs in each: which tab's data nodes would come from the cache is a race.
    await app.toolbar.useCache.uncheck();
    await other.toolbar.useCache.uncheck();
    await Promise.all([app.toolbar.run(), other.toolbar.run()]);

    for (const tab of [app, other]) {
      await expect(tab.runs.rows).toHaveCount(2);
      // Two runs share two cores, each loading onnxruntime in a fresh profile: slow, so a long wait.
      for (const row of await tab.runs.rows.all())
        await tab.runs.expectStatus(row, 'ok', { timeout: TWO_RUNS_MS });
    }
    await expect(app.runs.rows).toHaveCount(2);
    await expect(other.runs.rows).toHaveCount(2);

    // Each tab selected the run it started; the other tab's run is in its table too.
    const mine = await app.runs.exportRun();
    const theirs = await other.runs.exportRun();
    expect(mine.json.run.id).not.toBe(theirs.json.run.id);
    await app.runs.select(app.runs.row(theirs.json.run.id));
    const theirsHere = await app.runs.exportRun();
    expect(theirsHere.json).toEqual(theirs.json);

    for (const [{ json: record }, count] of [
      [mine, steps.here],
      [theirs, steps.there],
    ] as const) {
      expect(record.run.status).toBe('ok');
      // Every input's effective value: lr's default beside the steps typed (the seed is run.seed).
      expect(record.run.params).toEqual({ lr: 0.1, steps: count });
      for (const node of record.nodes)
        expect(node, `node ${node.node}`).toMatchObject({ status: 'ok' });
      const loss = record.metrics['train.loss'] ?? [];
      expect(loss).toHaveLength(count / 5);
      expectWhole(loss);
    }
    for (const tab of [app, other]) {
      await tab.canvas.expectStatus(exampleNodes, 'ok');
      await expect(tab.alerts.all).toHaveCount(0);
    }
    expect(errors).toEqual([]);
  },
);

test.describe('an engine starved', heavy, () => {
  test('a starved engine past its lease is not taken for dead while its tab holds the run', async ({
    page,
    params,
    toolbar,
    runs,
  }) => {
    await params.set('steps', LONG_RUN);
    await toolbar.run();
    await expect(runs.rows).toHaveCount(1);
    const id = await runs.idOf(runs.newest);
    await expect.poll(() => runs.chartPoints('train.loss')).toBeGreaterThanOrEqual(5);

    // Another tab watches (and sweeps) while this tab's engine gets no time at
    // all, as a browser may do to a background tab: no lease refresh, no flush,
    // but the engine is alive and holds the run's lock.
    const { app: watcher, errors } = await openTab(page.context());
    const row = watcher.runs.row(id);
    await watcher.runs.expectStatus(row, 'running');
    // Starved long enough that, however late in the starvation the lease runs
    // out (up to LEASE_MS in), several sweeps still follow it with room to spare
    // on a loaded machine.
    const starving = starveEngine(page, 3 * LEASE_MS + 4 * SWEEP_MS);
    await expect.poll(() => leaseExpired(watcher.page, id), { timeout: 3 * LEASE_MS }).toBe(true);
    // The lease is stale; let the watcher's sweeps see it twice. Nothing to wait
    // for here: the test is that nothing happens.
    await watcher.page.waitForTimeout(2 * SWEEP_MS + 500);
    await watcher.runs.expectStatus(row, 'running');
    expect(await leaseExpired(watcher.page, id)).toBe(true);
    await starving;

    // Fed again, the engine goes on with the same run.
    const before = await watcher.runs.chartPoints('train.loss');
    await watcher.runs.select(row);
    await expect.poll(() => watcher.runs.chartPoints('train.loss')).toBeGreaterThan(before);
    await expect.poll(() => leaseExpired(watcher.page, id)).toBe(false);
    await toolbar.cancelRun();
    await runs.expectStatus(runs.newest, 'cancelled');
    await watcher.runs.expectStatus(row, 'cancelled');

    const { json: record } = await runs.exportRun();
    expect(record.run.statusReason).toBe('Cancelled while running');
    expect(record.nodes.find((n) => n.node === 'train')?.status).toBe('cancelled');
    expectWhole(record.metrics['train.loss'] ?? []);
    expect(errors).toEqual([]);
  });
});

test.describe('a loaded machine', { tag: '@alone' }, () => {
  // It loads the machine on purpose: nothing beside it. Its engine waits as people's do: a write
  // slow under this load is not a stall.
  test.use({ alone: true, engineTimings: null });
  /**
   * Where the stall showed, one run in three stalled with threads beside the engine: twelve
   * runs all end with odds of about one in a hundred had it come back (the check that found it
   * ran 24).
   */
  const RUNS = 12;

  /** A process that keeps one core busy until killed, as a background build would. */
  const busy = (): ChildProcess =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });

  test('12 runs of the example under load all end: onnxruntime threads do not stall the engine storage', async ({
    params,
    runs,
    alerts,
  }) => {
    test.setTimeout(360_000);
    // Threads that share memory with the engine made Chromium stop answering its IndexedDB
    // transactions part-way through about one run in three under this load; the runs then
    // never ended. The threads now run in the model worker, beside no storage. How far this
    // guards: with the threads put back in the engine worker, 24 of 24 runs also ended here in
    // two tries (this load, and three busy processes with 1,200 steps a run): the stall
    // depends on the machine, and this check catches it only where the load brings it out.
    const load = [busy(), busy()];
    try {
      await params.set('seed', `0..${RUNS - 1}`);
      await expect(params.sweepButton).toHaveText(`Run sweep (${RUNS} runs)`);
      await params.runSweep();
      await expect(runs.rows).toHaveCount(RUNS);
      for (const row of await runs.rows.all())
        await runs.expectStatus(row, 'ok', { timeout: 300_000 });
    } finally {
      for (const process of load) process.kill();
    }
    await expect(alerts.all).toHaveCount(0);
  });
});

test(
  'storage held by another tab: the run says its writes wait, and keeps every point',
  heavy,
  async ({ page, params, toolbar, runs, alerts }) => {
    // Past the engine's limit for a write that gets no answer (`storageStallMs`).
    test.setTimeout(180_000);
    await params.set('steps', LONG_RUN);
    await toolbar.run();
    await expect(runs.rows).toHaveCount(1);
    const id = await runs.idOf(runs.newest);
    await expect.poll(() => runs.chartPoints('train.loss')).toBeGreaterThanOrEqual(5);

    // Another tab of the same profile keeps a read-write transaction on the metrics open.
    const { app: other } = await openTab(page.context());
    const release = await holdStore(other.page, 'metrics');
    const waiting = alerts.all.filter({ hasText: /has not answered its writes for \d+ s/ });
    await expect(waiting).toBeVisible({ timeout: 90_000 });
    await expect(waiting).toContainText(`Run ${id}`);
    await expect(waiting).toContainText('closing this tab now would lose it');
    // The other tab hears of it too, and that closing the tab that runs it, not itself, would lose it.
    await expect(
      other.alerts.all.filter({ hasText: /has not answered its writes for \d+ s/ }),
    ).toContainText('closing the tab that runs it now would lose it');

    // Let go: the writes that waited land, the alert goes, the chart moves on.
    await release();
    await expect(waiting).toHaveCount(0);
    const before = await runs.chartPoints('train.loss');
    await expect.poll(() => runs.chartPoints('train.loss')).toBeGreaterThan(before);
    await toolbar.cancelRun();
    await runs.expectStatus(runs.newest, 'cancelled');
    await expect(alerts.all).toHaveCount(0);
    const { json: record } = await runs.exportRun();
    expect(record.metrics['train.loss']?.length).toBeGreaterThan(before);
    expectWhole(record.metrics['train.loss'] ?? []);
  },
);
