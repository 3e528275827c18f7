/**
 * Forced to `webgpu`: a training run trains on WebGPU for real. Headless
 * Chromium's only adapter is SwiftShader (a software fallback, about half a
 * second per step, its shaders compiled in software first), so this is the
 * one MLP training on it, kept to a few steps of a problem whose loss falls
 * within them (two blobs, a GELU MLP, momentum; a loss every 4 steps). The
 * dataset stays on the device (each step sends its row indices, fewer bytes
 * than its batch), so do the weights and the optimizer's state between
 * steps; the step runs captured (recorded once, replayed each step), and the
 * losses are WASM's for the same seed.
 */
import { expect, test } from './fixtures';
import { fixtureFlowPath } from './support/files';
import { pointValue, type RunFile } from './support/formats';

const STEPS = 12;
const POINTS = 3;

const lossOf = (record: RunFile) => (record.metrics['train.loss'] ?? []).map(pointValue);
const logsOf = (record: RunFile, node: string) =>
  (record.nodes.find((n) => n.node === node) as { logs?: string } | undefined)?.logs ?? '';

test('a run forced to webgpu trains on the WebGPU adapter, weights and data on the device, as WASM does @webgpu', async ({
  page,
  toolbar,
  params,
  canvas,
  runs,
  alerts,
}) => {
  test.setTimeout(360_000);
  await toolbar.importFlow(fixtureFlowPath('blobs-mlp'));
  await toolbar.chooseBackend('webgpu');
  await expect(toolbar.backend).toHaveValue('webgpu');
  await params.set('steps', STEPS);

  // The line lives only while the node trains, which may be between two looks: the page records
  // every text it takes, and the test reads that log.
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { trainSteps: string[] }).trainSteps = seen;
    new MutationObserver(() => {
      const line = document.querySelector(
        '[data-testid="node-train"] output[aria-label="train steps"]',
      );
      const text = line?.textContent ?? '';
      if (text && seen.at(-1) !== text) seen.push(text);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await toolbar.run();
  await expect(runs.rows).toHaveCount(1);
  const row = runs.newest;
  // While it trains, the node says how far it is and how fast it goes.
  const line = new RegExp(`^\\d+ / ${STEPS} steps · ([\\d.]+) steps/s$`);
  let seen = '';
  await expect(async () => {
    const texts = await page.evaluate(
      () => (window as unknown as { trainSteps: string[] }).trainSteps,
    );
    seen = texts.find((text) => line.test(text)) ?? '';
    expect(seen, `the train steps line took ${JSON.stringify(texts)}`).toMatch(line);
    // The first step compiles every shader of the graph in software: close to a minute on a busy machine.
  }).toPass({ timeout: 180_000 });
  expect(Number(seen.match(line)?.[1])).toBeGreaterThan(0);
  // SwiftShader runs each step in software: give the run more room than a WASM one.
  await runs.expectStatus(row, 'ok', { timeout: 90_000 });
  await canvas.expectStatus(['data', 'split', 'model', 'train', 'eval'], 'ok');
  await expect(row).toContainText('webgpu');
  await expect(runs.chart('train.loss')).not.toHaveAttribute('data-points', '0');
  await expect(alerts.all).toHaveCount(0);

  const { json: gpu } = await runs.exportRun();
  expect(gpu.run.status).toBe('ok');
  // Every input's effective value: the defaults beside the steps typed (the seed is run.seed).
  expect(gpu.run.params).toEqual({ steps: STEPS, optimizer: 'momentum' });
  expect(gpu.run.engine).toMatchObject({ backend: 'webgpu', fallback: true });
  expect(gpu.run.engine?.adapter).toMatch(/swiftshader/i);
  for (const node of gpu.nodes) expect(node, `node ${node.node}`).toMatchObject({ status: 'ok' });

  // The train node's log: momentum on WebGPU, every step after the first fed the weights and
  // optimizer state the step before left in GPU buffers, and the bytes per step as it counted
  // them: its rows up, its loss back, under the batch.
  const train = logsOf(gpu, 'train');
  expect(train).toContain('training on webgpu with momentum');
  expect(train).toContain(`stayed in GPU buffers between steps: ${STEPS - 1} of ${STEPS} steps`);
  expect(train).toContain('the dataset stayed on the GPU');
  // Its shapes are fixed (the same rows per step), so the step ran captured, replayed every step.
  expect(train).toContain(
    `graph capture: the train step was captured once and replayed for ${STEPS} of ${STEPS} steps`,
  );
  const counted =
    /bytes per step: (\d+) B to the GPU, (\d+) B back \(the batch itself is ([\d.]+) (B|KiB)\)/.exec(
      train,
    );
  expect(counted, `the train node's log: ${train}`).not.toBeNull();
  const [, up, back, batch, unit] = counted!;
  expect(Number(up) + Number(back)).toBeLessThan(Number(batch) * (unit === 'KiB' ? 1024 : 1));

  // The same seed on WASM (no gather, the batch fed as it is) trains to the same losses.
  await toolbar.chooseBackend('wasm');
  await toolbar.run();
  await expect(runs.rows).toHaveCount(2);
  await runs.expectStatus(runs.newest, 'ok', { timeout: 60_000 });
  await runs.select(runs.newest);
  const { json: cpu } = await runs.exportRun();
  expect(cpu.run.engine).toMatchObject({ backend: 'wasm' });
  expect(logsOf(cpu, 'train')).toContain('training on wasm with momentum');
  expect(logsOf(cpu, 'train')).not.toContain('GPU buffers');
  await expect(alerts.all).toHaveCount(0);

  const gpuLoss = lossOf(gpu);
  const cpuLoss = lossOf(cpu);
  expect(gpuLoss).toHaveLength(POINTS);
  expect(cpuLoss).toHaveLength(POINTS);
  for (const value of gpuLoss) expect(Number.isFinite(value)).toBe(true);
  expect(gpuLoss.at(-1)!).toBeLessThan(gpuLoss[0]! / 2);
  // The same graph, seed and batches on two backends: equal up to float rounding.
  gpuLoss.forEach((value, i) => expect(value, `loss point ${i}`).toBeCloseTo(cpuLoss[i]!, 4));
  expect(
    Math.abs((gpu.run.result.accuracy as number) - (cpu.run.result.accuracy as number)),
  ).toBeLessThanOrEqual(0.01);
});
