/**
 * The "Pendulum world model" example as a person runs it: open it from the
 * examples gallery, Run, and watch the world model train on data that
 * producers in their own workers generate meanwhile — the loss and the data
 * engine's telemetry charted live, every wait recorded with the run.
 */
import type { Page } from '@playwright/test';
import type { RunFile } from './support/formats';
import { expect, test } from './fixtures';

const EXAMPLE = 'pendulum-world-model';
const NODES = ['env', 'engine', 'sample', 'model', 'train', 'eval'] as const;
/** Default 300 steps, a loss logged every 5. */
const LOSS_POINTS = 60;
/** The wait kinds docs/architecture.md documents for the data engine. */
const WAIT_KINDS = ['data_wait', 'quota_wait', 'usage_throttle'];

/** The run export, with the wait intervals the data engine recorded. */
type RunWithIntervals = Omit<RunFile, 'run' | 'nodes'> & {
  run: RunFile['run'] & { startedAt: string };
  nodes: (RunFile['nodes'][number] & { logs: string })[];
  intervals: { kind: string; start: number; end: number }[];
};

/** The producer workers alive now (the engine worker starts one per producer). */
const producerWorkers = (page: Page) =>
  page.workers().filter((w) => w.url().includes('producer.worker'));

test('open the Pendulum world model example, run it, and find the data engine in the record', async ({
  app,
  toolbar,
  canvas,
  runs,
  alerts,
}) => {
  await app.toolbar.openExample(EXAMPLE);
  await expect(toolbar.flowName).toHaveText(EXAMPLE);
  for (const id of NODES) await expect(canvas.node(id)).toBeVisible();

  await toolbar.run();
  await expect(runs.rows).toHaveCount(1);
  const row = runs.newest;
  // Two producers, each in a worker of its own, while the run goes.
  await expect.poll(() => producerWorkers(app.page).length).toBe(2);

  // The loss and the data engine's telemetry stream while the run goes.
  await expect(runs.chart('train.loss')).toBeVisible();
  await expect(runs.chart('engine.cache_fill')).toBeVisible();
  await expect(runs.chart('engine.consumed_chunks')).toBeVisible();
  await runs.expectStatus(row, 'ok', { timeout: 90_000 });
  await canvas.expectStatus(NODES, 'ok');
  await expect.poll(() => producerWorkers(app.page).length).toBe(0); // nothing outlives the run
  await expect(runs.chart('train.loss')).toHaveAttribute('data-points', String(LOSS_POINTS));
  await expect(runs.chart('engine.produced_episodes')).toBeVisible();
  await expect(runs.chart('eval.horizon_error')).toHaveAttribute('data-points', '16');
  await expect(row).toContainText(/prediction_error \d/);
  await expect(alerts.all).toHaveCount(0);

  const { json } = await runs.exportRun();
  const record = json as RunWithIntervals;
  expect(record.run.status).toBe('ok');
  expect(record.run.flow).toBe(EXAMPLE);
  for (const node of record.nodes)
    expect(node, `node ${node.node}`).toMatchObject({ status: 'ok' });
  const engineLog = record.nodes.find((n) => n.node === 'engine')?.logs ?? '';
  expect(engineLog).toContain(
    '2 producers of pendulum × 8 instances, each in a Web Worker of its own',
  );
  expect(engineLog).toMatch(/generation 1: requested at \+[\d.]+ s, ready [\d.]+ s later/);

  const loss = (record.metrics['train.loss'] ?? []).map((p) => p[1]!);
  expect(loss).toHaveLength(LOSS_POINTS);
  expect(loss.at(-1)!).toBeLessThan(loss[0]! / 5);
  // 300 steps of 32 windows, all served by the data engine from what producers made.
  expect(record.metrics['engine.consumed_chunks']?.at(-1)?.[1]).toBe(300 * 32);
  expect(record.metrics['engine.produced_episodes']?.at(-1)?.[1]).toBeGreaterThanOrEqual(
    (300 * 32) / 8,
  );
  expect(record.run.result.persistence_ratio as number).toBeLessThan(1);

  // Every wait is an interval of a documented kind: the first generation, then the planned pace.
  expect(record.intervals.length).toBeGreaterThan(0);
  for (const interval of record.intervals) {
    expect(WAIT_KINDS).toContain(interval.kind);
    expect(interval.end).toBeGreaterThanOrEqual(interval.start);
  }
  const kinds = new Set(record.intervals.map((i) => i.kind));
  expect(kinds).toContain('data_wait');
  expect(kinds).toContain('usage_throttle');
  const started = Date.parse(record.run.startedAt) / 1000;
  expect(record.intervals[0]!.start).toBeGreaterThanOrEqual(started - 1);
});

test('a data engine config that cannot run is flagged as it is edited and refused at Run, with no run row', async ({
  app,
  toolbar,
  canvas,
  inspector,
  runs,
  alerts,
}) => {
  await app.toolbar.openExample(EXAMPLE);
  await canvas.select('engine');
  await expect(inspector.showing('engine')).toBeVisible();
  // 3 producers cannot split a cache of 32 episodes into whole shares.
  await inspector.setParam('num_envs', 3);
  await expect(inspector.param('num_envs')).toHaveAttribute('aria-invalid', 'true');
  await expect(inspector.root).toContainText('must divide buffer_size (32)');

  await toolbar.run();
  await alerts.expectMessage(
    'nodes[1].params.num_envs',
    "node 'engine' param 'num_envs': must divide buffer_size (32)",
  );
  await expect(runs.rows).toHaveCount(0);
  expect(producerWorkers(app.page)).toHaveLength(0);
  await expect(canvas.node('engine')).toHaveAttribute('data-status', 'idle');

  // A count that divides the cache is fine again.
  await inspector.setParam('num_envs', 4);
  await expect(inspector.param('num_envs')).not.toHaveAttribute('aria-invalid', 'true');
});

test('cancel the Pendulum world model while it trains: the run ends cancelled, producers and all', async ({
  app,
  toolbar,
  params,
  canvas,
  runs,
  alerts,
}) => {
  await app.toolbar.openExample(EXAMPLE);
  await params.set('steps', 100000);
  await toolbar.run();
  const row = runs.newest;
  await runs.expectStatus(row, 'running');
  await expect.poll(() => runs.chartPoints('train.loss')).toBeGreaterThanOrEqual(5);
  expect(producerWorkers(app.page)).toHaveLength(2);
  await toolbar.cancelRun();

  await runs.expectStatus(row, 'cancelled');
  await expect.poll(() => producerWorkers(app.page).length).toBe(0);
  await expect(canvas.node('engine')).toHaveAttribute('data-status', 'ok');
  await expect(canvas.node('train')).toHaveAttribute('data-status', 'cancelled');
  await expect(canvas.node('eval')).toHaveAttribute('data-status', 'cancelled');
  await expect(alerts.all).toHaveCount(0);
  const { json } = await runs.exportRun();
  const record = json as RunWithIntervals;
  expect(record.run.status).toBe('cancelled');
  expect(record.metrics['engine.consumed_chunks']?.length).toBeGreaterThan(0);
});

test('the Pendulum world model forced to webgpu trains on the WebGPU adapter @webgpu', async ({
  app,
  toolbar,
  params,
  canvas,
  runs,
  alerts,
}) => {
  // SwiftShader (headless Chromium's only adapter) runs each step in software: a few steps only.
  await app.toolbar.openExample(EXAMPLE);
  await toolbar.chooseBackend('webgpu');
  await params.set('steps', 10);
  await toolbar.run();
  const row = runs.newest;
  await runs.expectStatus(row, 'ok', { timeout: 90_000 });
  await canvas.expectStatus(NODES, 'ok');
  await expect(alerts.all).toHaveCount(0);
  const { json } = await runs.exportRun();
  const record = json as RunWithIntervals;
  expect(record.run.engine).toMatchObject({ backend: 'webgpu' });
  expect(record.nodes.find((n) => n.node === 'train')?.logs).toContain('training on webgpu');
  const loss = (record.metrics['train.loss'] ?? []).map((p) => p[1]);
  expect(loss).toHaveLength(2);
  for (const value of loss) expect(Number.isFinite(value)).toBe(true);
  expect(Number.isFinite(record.run.result.prediction_error)).toBe(true);
});
