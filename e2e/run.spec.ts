/** The core slice on `auto`: Run, watch it, see it in Runs, export it, reload and find it all again. */
import { exampleNodes, expect, test } from './fixtures';

/** Default steps 400, a loss logged every 5 steps. */
const LOSS_POINTS = 80;

test('run the default example, export the run, find it all again after a reload', async ({
  app,
  toolbar,
  canvas,
  runs,
  alerts,
}) => {
  await expect(toolbar.backend).toHaveValue('auto');
  const flow = await toolbar.exportFlow();
  expect(flow.filename).toBe('spirals-mlp.flow.json');

  await toolbar.run();
  await expect(runs.rows).toHaveCount(1);
  const row = runs.newest;
  await expect(row).toHaveAttribute('aria-selected', 'true');

  // The chart streams while the run goes, then holds every logged loss.
  await expect(runs.chart('train.loss')).toBeVisible();
  await expect(runs.chart('train.loss')).toHaveAttribute('data-points', String(LOSS_POINTS));
  await runs.expectStatus(row, 'ok');
  await canvas.expectStatus(exampleNodes, 'ok');
  await expect(row).toHaveAttribute('aria-selected', 'true');
  await expect(row).toContainText('wasm');
  await expect(row).toContainText(/accuracy \d/);
  await expect(alerts.all).toHaveCount(0);

  // Export run: `<id>.run.json`, the whole record.
  const exported = await runs.exportRun();
  const record = exported.json;
  expect(exported.filename).toBe(`${record.run.id}.run.json`);
  expect(record.format).toBe('flowbench.run/2');
  expect(record.run.status).toBe('ok');
  expect(record.run.flow).toBe('spirals-mlp');
  // `auto` picks WASM when the only WebGPU adapter is a software fallback (SwiftShader here).
  expect(record.run.engine?.backend).toBe('wasm');
  expect(record.flow).toEqual(flow.json);
  expect(record.nodes.map((n) => n.node).sort()).toEqual([...exampleNodes].sort());
  for (const node of record.nodes)
    expect(node, `node ${node.node}`).toMatchObject({ status: 'ok' });
  const loss = record.metrics['train.loss'] ?? [];
  expect(loss).toHaveLength(LOSS_POINTS);
  expect(loss.map((p) => p[0])).toEqual(loss.map((_, i) => i));
  const first = loss[0]?.[1];
  const last = loss.at(-1)?.[1];
  expect(typeof first).toBe('number');
  expect(typeof last).toBe('number');
  expect(first!).toBeGreaterThan(last!);
  // The training loop ran in the model worker, onnxruntime on threads of its own, several steps a message.
  const trainLogs =
    (record.nodes.find((n) => n.node === 'train') as { logs?: string } | undefined)?.logs ?? '';
  expect(trainLogs).toMatch(/training in the model worker \(\d onnxruntime threads?\)/);
  expect(trainLogs).toMatch(/\d+ messages of 1–\d+ steps/);
  const accuracy = record.run.result.accuracy;
  expect(typeof accuracy).toBe('number');
  expect(accuracy as number).toBeGreaterThan(0.5); // two classes: better than a coin
  expect(accuracy as number).toBeLessThanOrEqual(1);
  await expect(runs.row(record.run.id)).toHaveCount(1);

  // Reload: the flow, the run, its node outcomes and its chart come back from IndexedDB.
  await app.reload();
  await expect(toolbar.flowName).toHaveText('spirals-mlp');
  for (const id of exampleNodes) await expect(canvas.node(id)).toBeVisible();
  const again = runs.row(record.run.id);
  await expect(runs.rows).toHaveCount(1);
  await runs.expectStatus(again, 'ok');
  await runs.select(again);
  await canvas.expectStatus(exampleNodes, 'ok');
  await expect(runs.chart('train.loss')).toHaveAttribute('data-points', String(LOSS_POINTS));
});
