/**
 * Forced to `webgpu`: the example trains on WebGPU for real. Headless
 * Chromium's only adapter is SwiftShader (a software fallback, about half a
 * second per step), so the run is kept to a few steps. The dataset stays on
 * the device: each step sends its row indices, fewer bytes than its batch,
 * and the losses are WASM's for the same seed.
 */
import { exampleNodes, expect, test } from './fixtures';

const STEPS = 12;

test('a run forced to webgpu trains on the WebGPU adapter @webgpu', async ({
  page,
  toolbar,
  params,
  canvas,
  runs,
  alerts,
}) => {
  test.setTimeout(360_000);
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
  const line = /^\d+ \/ 12 steps · ([\d.]+) steps\/s$/;
  let seen = '';
  await expect(async () => {
    const texts = await page.evaluate(
      () => (window as unknown as { trainSteps: string[] }).trainSteps,
    );
    seen = texts.find((text) => line.test(text)) ?? '';
    expect(seen, `the train steps line took ${JSON.stringify(texts)}`).toMatch(line);
    // The first step compiles every shader of the graph in software: close to a minute on a busy machine.
  }).toPass({ timeout: 180_000 });
  const rate = Number(seen.match(line)?.[1]);
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

  // Bytes per step, as the train node counted them: its rows up, its loss back, under the batch.
  const train = record.nodes.find((n) => n.node === 'train') as { logs?: string } | undefined;
  const counted =
    /bytes per step: (\d+) B to the GPU, (\d+) B back \(the batch itself is ([\d.]+) KiB\)/.exec(
      train?.logs ?? '',
    );
  expect(counted, `the train node's log: ${train?.logs}`).not.toBeNull();
  const [, up, back, batch] = counted!.map(Number);
  expect(train?.logs).toContain('the dataset stayed on the GPU');
  expect(up! + back!).toBeLessThanOrEqual(batch! * 1024);

  // The same seed on WASM (no gather, the batch fed as it is) trains to the same losses.
  await toolbar.chooseBackend('wasm');
  await toolbar.run();
  await expect(runs.rows).toHaveCount(2);
  await runs.expectStatus(runs.newest, 'ok', { timeout: 60_000 });
  await runs.select(runs.newest);
  const { json: wasm } = await runs.exportRun();
  expect(wasm.run.engine).toMatchObject({ backend: 'wasm' });
  const wasmLoss = wasm.metrics['train.loss'] ?? [];
  expect(wasmLoss.map(([step]) => step)).toEqual(loss.map(([step]) => step));
  loss.forEach(([, value], i) => expect(value).toBeCloseTo(Number(wasmLoss[i]![1]), 4));
});
