/**
 * Fault 8, WebGPU unavailable: Chromium launched without
 * `--enable-unsafe-webgpu` gives the page no adapter. A run on `auto` then
 * runs on WASM and says so in its record; a run forced to `webgpu` is not
 * failed but waits, queued, with its reason, until it is cancelled.
 */
import { exampleNodes, expect, test } from './fixtures';

test.use({
  launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: [] },
});

test('without WebGPU the example runs on WASM and records adapter none', async ({
  page,
  toolbar,
  params,
  canvas,
  runs,
  alerts,
}) => {
  // The fault is real: this browser gives the page no WebGPU adapter.
  const adapter = await page.evaluate(async () => {
    const gpu = (navigator as { gpu?: { requestAdapter(): Promise<unknown> } }).gpu;
    return gpu ? (await gpu.requestAdapter()) !== null : false;
  });
  expect(adapter, 'a WebGPU adapter in a browser launched without WebGPU').toBe(false);

  await expect(toolbar.backend).toHaveValue('auto');
  await expect(toolbar.backend.locator('option:checked')).toHaveText('auto (wasm)');
  await params.set('steps', 20);
  await toolbar.run();
  const row = runs.newest;
  await runs.expectStatus(row, 'ok');
  await canvas.expectStatus(exampleNodes, 'ok');
  await expect(row).toContainText('wasm');
  await expect(alerts.all).toHaveCount(0);

  const { json: record } = await runs.exportRun();
  expect(record.run.status).toBe('ok');
  expect(record.run.engine).toMatchObject({ backend: 'wasm', adapter: 'none' });
  expect(record.metrics['train.loss']).toHaveLength(4);
});

test('a run forced to webgpu waits queued with its reason, and can be cancelled', async ({
  toolbar,
  params,
  canvas,
  runs,
  alerts,
}) => {
  await toolbar.chooseBackend('webgpu');
  await expect(toolbar.backend).toHaveValue('webgpu');
  await params.set('steps', 20);
  await toolbar.run();
  await expect(runs.rows).toHaveCount(1);
  const row = runs.newest;
  await expect(row).toHaveAttribute('aria-selected', 'true');

  await expect(
    runs.detail.getByText('Waiting for an engine with webgpu', { exact: true }),
  ).toBeVisible();
  await runs.expectStatus(row, 'queued');
  // It stays queued: no node starts, nothing fails.
  await expect(canvas.node('train')).not.toHaveAttribute('data-status', /running|ok|error/);
  await runs.expectStatus(row, 'queued');
  await expect(alerts.all).toHaveCount(0);

  await expect(toolbar.cancelButton).toBeEnabled();
  await toolbar.cancelRun();
  await runs.expectStatus(row, 'cancelled');
  await expect(toolbar.cancelButton).toBeDisabled();

  const { json: record } = await runs.exportRun();
  expect(record.run.status).toBe('cancelled');
  expect(record.run.engine).toBeNull();
  expect(record.metrics['train.loss'] ?? []).toHaveLength(0);
  for (const node of record.nodes)
    expect(node.status, `node ${node.node}`).not.toMatch(/^(ok|error|running)$/);
});
