/**
 * A person's own images: a zip with one folder per class, picked through the
 * images node's file param, trains a CNN (model.cnn) that tells the classes
 * apart on held-out images. A zip with a single class fails the node, saying so.
 * The same CNN forced to WebGPU (SwiftShader here) trains to WASM's losses.
 */
import { zipSync } from 'fflate';
import { encode as encodePng } from 'fast-png';
import { writeFile } from 'node:fs/promises';
import { expect, test } from './fixtures';
import { fixtureFlowPath } from './support/files';
import { pointValue } from './support/formats';

/** Steps of the CNN on WebGPU in software: each takes seconds there. */
const CNN_GPU_STEPS = 6;

/** 16×16 gray stripes, horizontal or vertical, with a little noise from `seed`. */
function stripes(vertical: boolean, seed: number): Uint8Array {
  const data = new Uint8Array(16 * 16);
  let state = seed * 2654435761;
  for (let y = 0; y < 16; y++)
    for (let x = 0; x < 16; x++) {
      state = (state * 1103515245 + 12345) >>> 0;
      const on = ((vertical ? x : y) >> 1) % 2 === 0;
      data[y * 16 + x] = (on ? 200 : 40) + (state % 40);
    }
  return encodePng({ width: 16, height: 16, data, channels: 1, depth: 8 });
}

async function archive(name: string, classes: readonly string[]): Promise<string> {
  const entries: Record<string, Uint8Array> = {};
  for (const [c, folder] of classes.entries())
    for (let i = 0; i < 30; i++)
      entries[`stripes/${folder}/${String(i).padStart(2, '0')}.png`] = stripes(
        c === 1,
        c * 100 + i,
      );
  const path = test.info().outputPath(name);
  await writeFile(path, zipSync(entries));
  return path;
}

test('a zip of labelled images trains a CNN that tells them apart', async ({
  toolbar,
  canvas,
  inspector,
  runs,
}) => {
  await toolbar.importFlow(fixtureFlowPath('images-stripes'));
  await expect(toolbar.flowName).toHaveText('images-stripes');
  await canvas.select('data');
  await inspector.pickFile(await archive('stripes.zip', ['horizontal', 'vertical']));
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');
  const { json: record } = await runs.exportRun();
  expect(record.run.result.accuracy).toBeGreaterThan(0.9);
  const data = record.nodes.find((n) => n.node === 'data') as { logs?: string } | undefined;
  expect(data?.logs).toContain(
    'stripes.zip: 60 images in 2 classes (horizontal 30, vertical 30); each 1×8×8',
  );
  const train = record.nodes.find((n) => n.node === 'train') as { logs?: string } | undefined;
  expect(train?.logs).toContain('training on wasm with adam: 120 steps of 32 rows');
});

test('a zip with one class folder fails the node, saying why', async ({
  toolbar,
  canvas,
  inspector,
  runs,
}) => {
  await toolbar.importFlow(fixtureFlowPath('images-stripes'));
  await expect(toolbar.flowName).toHaveText('images-stripes');
  await canvas.select('data');
  await inspector.pickFile(await archive('cats.zip', ['cats']));
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'error');
  await canvas.expectStatus(['data'], 'error');
  await expect(runs.detail).toContainText(
    "image archive 'cats.zip' has one class folder (cats); a classifier needs two or more",
  );
});

test('the digits example opens with its images and trains to a sensible score', async ({
  toolbar,
  runs,
}) => {
  await toolbar.openExample('digits-images');
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');
  const { json: record } = await runs.exportRun();
  expect(record.run.result.accuracy).toBeGreaterThan(0.8);
  const heatMap = runs.detail.getByRole('table', { name: 'Confusion matrix: eval' });
  await expect(heatMap.getByRole('rowheader')).toHaveText(
    Array.from({ length: 10 }, (_, d) => String(d)),
  );
});

// The same CNN forced to `webgpu` (SwiftShader in software here: its conv shaders compile on the
// first step), a few steps of it, against WASM on the same seed and batches.
test('the stripes CNN forced to webgpu trains on the WebGPU adapter to WASM’s losses @webgpu', async ({
  app,
  toolbar,
  canvas,
  inspector,
  alerts,
}) => {
  test.setTimeout(360_000);
  await toolbar.importFlow(fixtureFlowPath('images-stripes'));
  await canvas.select('data');
  await inspector.pickFile(await archive('stripes.zip', ['horizontal', 'vertical']));
  await canvas.select('train');
  await inspector.setParam('steps', CNN_GPU_STEPS);
  await inspector.setParam('log_every', 2);

  const trained = async (backend: 'webgpu' | 'wasm', count: number) => {
    const record = await app.runOn(backend, count);
    const train = record.nodes.find((n) => n.node === 'train') as { logs?: string } | undefined;
    return {
      record,
      log: train?.logs ?? '',
      loss: (record.metrics['train.loss'] ?? []).map(pointValue),
    };
  };
  const gpu = await trained('webgpu', 1);
  expect(gpu.record.run.engine).toMatchObject({ backend: 'webgpu', fallback: true });
  expect(gpu.record.run.engine?.adapter).toMatch(/swiftshader/i);
  expect(gpu.log).toContain(`training on webgpu with adam: ${CNN_GPU_STEPS} steps of 32 rows`);
  expect(gpu.log).toContain('stayed in GPU buffers between steps');
  // Its shapes are fixed, so the conv step (Adam: rows and a step count per step) ran captured.
  expect(gpu.log).toContain(
    `graph capture: the train step was captured once and replayed for ${CNN_GPU_STEPS} of ${CNN_GPU_STEPS} steps`,
  );
  const cpu = await trained('wasm', 2);
  expect(cpu.log).toContain(`training on wasm with adam: ${CNN_GPU_STEPS} steps of 32 rows`);
  await expect(alerts.all).toHaveCount(0);

  expect(gpu.loss).toHaveLength(CNN_GPU_STEPS / 2);
  expect(cpu.loss).toHaveLength(CNN_GPU_STEPS / 2);
  expect(gpu.loss.at(-1)!).toBeLessThan(gpu.loss[0]!);
  // The same graph, seed and batches on two backends: equal up to float rounding (convolutions
  // sum in another order on the GPU).
  gpu.loss.forEach((value, i) => expect(value, `loss point ${i}`).toBeCloseTo(cpu.loss[i]!, 4));
});
