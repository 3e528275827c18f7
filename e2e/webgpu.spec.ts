/**
 * Forced to `webgpu`: the example trains on WebGPU for real. Headless
 * Chromium's only adapter is SwiftShader (a software fallback, about half a
 * second per step), so the run is kept to a few steps.
 */
import { exampleNodes, expect, test } from './fixtures';

const STEPS = 12;

test('a run forced to webgpu trains on the WebGPU adapter @webgpu', async ({
  toolbar,
  params,
  canvas,
  runs,
  alerts,
}) => {
  await toolbar.chooseBackend('webgpu');
  await expect(toolbar.backend).toHaveValue('webgpu');
  await params.set('steps', STEPS);

  await toolbar.run();
  await expect(runs.rows).toHaveCount(1);
  const row = runs.newest;
  // While it trains, the node says how far it is and how fast it goes.
  const steps = canvas.node('train').getByRole('status', { name: 'train steps' });
  // Read in the same look that matched it: the line goes when training ends, maybe just after.
  let seen = '';
  await expect(async () => {
    seen = (await steps.textContent({ timeout: 1_000 })) ?? '';
    expect(seen).toMatch(/^\d+ \/ 12 steps · [\d.]+ steps\/s$/);
  }).toPass({ timeout: 90_000 });
  const rate = Number(seen.match(/· ([\d.]+) steps\/s/)?.[1]);
  expect(rate).toBeGreaterThan(0);
  // SwiftShader runs each step in software: give the run more room than a WASM one.
  await runs.expectStatus(row, 'ok', { timeout: 90_000 });
  await canvas.expectStatus(exampleNodes, 'ok');
  await expect(row).toContainText('webgpu');
  await expect(runs.chart('train.loss')).not.toHaveAttribute('data-points', '0');
  await expect(alerts.all).toHaveCount(0);

  const { json: record } = await runs.exportRun();
  expect(record.run.status).toBe('ok');
  // Every input's effective value: lr's default beside the steps typed (the seed is run.seed).
  expect(record.run.params).toEqual({ lr: 0.1, steps: STEPS });
  expect(record.run.engine).toMatchObject({ backend: 'webgpu', fallback: true });
  expect(record.run.engine?.adapter).toMatch(/swiftshader/i);
  for (const node of record.nodes)
    expect(node, `node ${node.node}`).toMatchObject({ status: 'ok' });
  const loss = record.metrics['train.loss'] ?? [];
  expect(loss.length).toBeGreaterThan(0);
  for (const [, value] of loss) expect(Number.isFinite(value)).toBe(true);
  expect(typeof record.run.result.accuracy).toBe('number');
});
