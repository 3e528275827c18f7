/**
 * The durable run queue: runs wait in IndexedDB, and any open tab's engine
 * runs them, so a sweep outlives the tab that submitted it; a cancel reaches
 * the engine driving a run from any tab, and the run's progress reaches every
 * tab; a run that requires WebGPU waits for a visit that has it.
 */
import { chromium } from '@playwright/test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ENGINE_TIMING_DEFAULTS } from '../src/db/settings';
import { expect, test } from './fixtures';
import { Workbench } from './pages/workbench';
import { baselineCode, noBrowserUi } from './support/browser';
import { pointSteps } from './support/formats';
import { readStoredRuns } from './support/stored';
import { openTab } from './support/tabs';

/** Two runs at once in two tabs and a lease to wait out: one such test at a time, beside ordinary ones. */
const heavy = { tag: '@heavy' };

/** How long a lease vouches for a run, and how often every open tab's engine sweeps and looks at the queue. */
const { leaseMs: LEASE_MS, sweepMs: SWEEP_MS } = ENGINE_TIMING_DEFAULTS;
/** How long two runs of this length at once may take to end (a wait, not a timing check). */
const RUNS_MS = 120_000;

test(
  'a sweep goes on in another tab after the tab that submitted it is closed',
  heavy,
  async ({ app, page }) => {
    test.setTimeout(300_000);
    const { app: other, errors } = await openTab(page.context());
    // Four runs, long enough that the first two are still running when their tab goes.
    await app.params.set('lr', '0.05, 0.1');
    await app.params.set('seed', '0..1');
    await app.params.set('steps', 2000);
    await app.params.runSweep();
    await expect(app.runs.rows).toHaveCount(4);
    // At most two run at once in the whole browser: the other two wait, queued.
    await expect
      .poll(async () => (await readStoredRuns(page)).runs.map((run) => run.status).sort())
      .toEqual(['queued', 'queued', 'running', 'running']);
    const { runs: atClose } = await readStoredRuns(page);
    await page.close();

    // The runs it drove end abandoned (their engine is gone); the tab left open runs the rest.
    const left = atClose.filter((run) => run.status === 'queued').map((run) => run.id);
    for (const run of atClose) {
      const row = other.runs.row(run.id);
      if (left.includes(run.id)) await other.runs.expectStatus(row, 'ok', { timeout: RUNS_MS });
      else await other.runs.expectStatus(row, 'abandoned', { timeout: LEASE_MS + 3 * SWEEP_MS });
    }
    await other.runs.select(other.runs.row(left[0]!));
    const { json: record } = await other.runs.exportRun();
    expect(record.run).toMatchObject({ status: 'ok', cause: 'sweep' });
    const loss = record.metrics['train.loss'] ?? [];
    expect(pointSteps(loss)).toEqual(Array.from({ length: 2000 / 5 }, (_, i) => i));
    await expect(other.alerts.all).toHaveCount(0);
    expect(errors).toEqual([]);
  },
);

test(
  'a run driven by one tab shows its progress in another, and is cancelled from there',
  heavy,
  async ({ app, page }) => {
    await app.params.set('steps', 100000);
    await app.toolbar.run();
    await expect(app.runs.rows).toHaveCount(1);
    const id = await app.runs.idOf(app.runs.newest);
    await expect.poll(() => app.runs.chartPoints('train.loss')).toBeGreaterThanOrEqual(5);

    // Opened after the run started: this tab's engine drives nothing.
    const { app: other, errors } = await openTab(page.context());
    const row = other.runs.row(id);
    await other.runs.expectStatus(row, 'running');
    await other.runs.select(row);
    // Its live progress reaches this tab too, relayed from the tab that drives it.
    await expect(
      other.canvas.node('train').getByRole('progressbar', { name: 'train progress' }),
    ).toHaveAttribute('max', '100000');
    await other.toolbar.cancelRun();
    await other.runs.expectStatus(row, 'cancelled');
    await app.runs.expectStatus(app.runs.newest, 'cancelled');
    await expect(app.canvas.node('train')).toHaveAttribute('data-status', 'cancelled');

    const { json: record } = await other.runs.exportRun();
    expect(record.run.statusReason).toBe('Cancelled while running');
    expect(record.nodes.find((n) => n.node === 'train')?.status).toBe('cancelled');
    const loss = record.metrics['train.loss'] ?? [];
    expect(loss.length).toBeGreaterThanOrEqual(5);
    expect(pointSteps(loss)).toEqual(loss.map((_, i) => i));
    for (const tab of [app, other]) await expect(tab.alerts.all).toHaveCount(0);
    expect(errors).toEqual([]);
  },
);

test(
  'a run that requires WebGPU waits for a visit that has it, and runs there @webgpu',
  heavy,
  async ({ testContextOptions }) => {
    test.setTimeout(240_000);
    // One browser profile, visited twice: first by a browser with no WebGPU, then by one with it.
    const profile = await mkdtemp(path.join(tmpdir(), 'flowbench-profile-'));
    const visit = async (webgpu: boolean) => {
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
        args: [...(webgpu ? ['--enable-unsafe-webgpu'] : []), noBrowserUi, baselineCode],
        ...testContextOptions,
      });
      const app = new Workbench(context.pages()[0] ?? (await context.newPage()));
      await app.open();
      return { context, app };
    };
    try {
      const first = await visit(false);
      // The smallest graph there is to run on WebGPU: the shipped linear model's inference, whose
      // few shaders compile in software in moments (a training graph's take many seconds).
      await first.app.toolbar.openExample('onnx-inference');
      await first.app.toolbar.chooseBackend('webgpu');
      await first.app.toolbar.run();
      const id = await first.app.runs.idOf(first.app.runs.newest);
      await expect(
        first.app.runs.detail.getByText('Waiting for an engine with webgpu', { exact: true }),
      ).toBeVisible();
      await first.app.runs.expectStatus(first.app.runs.newest, 'queued');
      await first.context.close();

      const second = await visit(true);
      const row = second.app.runs.row(id);
      // SwiftShader runs each step in software: more room than a WASM run.
      await second.app.runs.expectStatus(row, 'ok', { timeout: 120_000 });
      await second.app.runs.select(row);
      const { json: record } = await second.app.runs.exportRun();
      expect(record.run).toMatchObject({ status: 'ok', statusReason: '', backendChoice: 'webgpu' });
      expect(record.run.engine).toMatchObject({ backend: 'webgpu' });
      expect(record.nodes.find((node) => node.node === 'infer')).toMatchObject({ status: 'ok' });
      expect(record.run.result.accuracy).toBe(1);
      await expect(second.app.alerts.all).toHaveCount(0);
      await second.context.close();
    } finally {
      await rm(profile, { recursive: true, force: true });
    }
  },
);
