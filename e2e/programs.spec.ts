/**
 * Programs over resident models, in the built app (a training run on WebGPU,
 * its weights kept on the device, is webgpu.spec.ts's): `Check parity` runs a
 * run's programs serially and interleaved and reports identical, also for a
 * node that issues several requests; the
 * pool view shows the budget, the resident model and the requests, a budget
 * set too small fails training with the numbers, and a budget set survives a reload;
 * an imported `.onnx` model shows its signature and runs — once over its feeds, once over a
 * sequence with its state carried and its per-frame output charted — a non-ONNX file fails, a
 * WAV recording read by data.audio runs through the model frame by frame (on WebGPU too, frame
 * for frame as on WASM), and a NumPy array on the tensor port feeds one of its inputs, its shape
 * checked.
 */
import { expect, test } from './fixtures';
import { Programs } from './pages/programs';
import { fixtureFile, fixtureFlowPath } from './support/files';
import { pointValue, type RunFile } from './support/formats';

const logsOf = (record: RunFile, node: string) =>
  (record.nodes.find((n) => n.node === node) as { logs?: string } | undefined)?.logs ?? '';

test('Check parity reports every output and metric identical, serial vs interleaved', async ({
  app,
  params,
  toolbar,
  runs,
  alerts,
}) => {
  const programs = new Programs(app.page);
  await params.set('steps', 60);
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');

  await programs.checkParity();
  await expect(programs.parityVerdict).toContainText('Serial and interleaved: identical');
  await expect(programs.parityVerdict).toContainText('train: 1 request(s), eval: 1 request(s)');
  // Per node and request: status, every output and every metric.
  await expect(programs.parityRows.filter({ hasText: 'train.loss' })).toContainText('identical');
  await expect(programs.parityRows.filter({ hasText: 'train.weights.W0' })).toContainText(
    'identical',
  );
  await expect(programs.parityRows.filter({ hasText: 'eval.accuracy' })).toContainText('identical');
  const rows = await programs.parityRows.count();
  expect(rows).toBeGreaterThan(10);
  await expect(programs.parityRows.filter({ hasText: 'identical' })).toHaveCount(rows);
  await expect(alerts.all).toHaveCount(0);
});

test('an evaluation split into 4 requests interleaves over one resident model, and parity holds', async ({
  app,
  params,
  toolbar,
  canvas,
  inspector,
  runs,
  alerts,
}) => {
  const programs = new Programs(app.page);
  await params.set('steps', 20);
  await canvas.select('eval');
  await inspector.setParam('requests', 4);
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');
  const { json: record } = await runs.exportRun();
  expect(logsOf(record, 'eval')).toMatch(
    /rows right on wasm \(4 requests over one resident model\)/,
  );
  await expect(
    programs.nodePool('eval').getByRole('list', { name: 'Requests of eval' }),
  ).toContainText('eval#4 ok');

  await programs.checkParity();
  await expect(programs.parityVerdict).toContainText('Serial and interleaved: identical');
  await expect(programs.parityVerdict).toContainText('train: 1 request(s), eval: 4 request(s)');
  for (const request of ['eval#1', 'eval#2', 'eval#3', 'eval#4'])
    await expect(
      programs.parityRows.filter({ hasText: request }).filter({ hasText: 'eval.accuracy' }),
    ).toContainText('identical');
  const rows = await programs.parityRows.count();
  await expect(programs.parityRows.filter({ hasText: 'identical' })).toHaveCount(rows);
  await expect(alerts.all).toHaveCount(0);
});

test('the pool view shows budget, resident model and requests; a budget too small fails with numbers', async ({
  app,
  params,
  toolbar,
  runs,
  canvas,
}) => {
  const programs = new Programs(app.page);
  await params.set('steps', 40);
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');

  const train = programs.nodePool('train');
  await expect(train).toContainText('train on wasm (ended)');
  // The WASM heap budget: 1 GiB.
  await expect(train.getByTestId('pool-budget')).toHaveText('1.07 GB');
  await expect(train).toContainText('train train step');
  await expect(train.getByRole('list', { name: 'Requests of train' })).toContainText('train ok');
  await expect(programs.nodePool('eval')).toContainText('eval inference');

  await programs.setBudgetMb(0.01);
  await expect(programs.pool.getByRole('form', { name: 'Pool budget' })).toContainText('setting');
  // The same flow again: every node runs, or the cache would stand in for the training.
  await toolbar.useCache.uncheck();
  await toolbar.run();
  await expect(runs.rows).toHaveCount(2);
  await runs.expectStatus(runs.newest, 'error');
  await canvas.expectStatus(['train'], 'error');
  const { json: record } = await runs.exportRun();
  const error = record.nodes.find((n) => n.node === 'train')?.error ?? '';
  expect(error).toMatch(/^train: step needs [\d.]+ KB peak \+ .* pool is 10 KB$/);

  // The budget is a setting: after a reload the engine starts with it.
  await app.page.reload();
  await expect(runs.rows).toHaveCount(2);
  await toolbar.useCache.uncheck();
  await toolbar.run();
  await expect(runs.rows).toHaveCount(3);
  await runs.expectStatus(runs.newest, 'error');
  const { json: again } = await runs.exportRun();
  expect(again.nodes.find((n) => n.node === 'train')?.error).toMatch(/pool is 10 KB$/);
});

/** A linear model that tells two blobs apart by the sign of x (logits [x, -x]); see model-onnx.test.ts. */
const signModel = () => fixtureFile('sign.onnx').buffer;

test('an imported .onnx model shows its inputs and outputs and runs; a non-ONNX file fails the node', async ({
  toolbar,
  canvas,
  inspector,
  runs,
  charts,
}) => {
  await toolbar.importFlow(fixtureFlowPath('onnx-blobs'));
  await expect(toolbar.flowName).toHaveText('onnx-blobs');
  await canvas.select('infer');
  await inspector.pickFile({
    name: 'sign.onnx',
    mimeType: 'application/octet-stream',
    buffer: signModel(),
  });
  await expect(inspector.root.getByRole('list', { name: 'Model inputs' })).toHaveText(
    'x float32 [batch×2]',
  );
  await expect(inspector.root.getByRole('list', { name: 'Model outputs' })).toContainText(
    'logits float32 [batch×2]',
  );

  await toolbar.run();
  await expect(runs.rows).toHaveCount(1);
  await runs.expectStatus(runs.newest, 'ok');
  const { json: record } = await runs.exportRun();
  expect(record.run.result.accuracy).toBe(1);
  expect(record.run.result.outputs).toMatch(/^logits: float32 \[200×2\] = \[/);
  // The model file is kept with the run, by digest.
  const artifacts = (record as unknown as { artifacts: { name: string; digest: string }[] })
    .artifacts;
  expect(artifacts.map((a) => a.name)).toEqual(['sign.onnx']);
  expect(artifacts[0]!.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  await expect(runs.detail).toContainText('logits: float32 [200×2]');

  // A model with three inputs: the rows, a state filled to their batch, an int64 sample rate.
  await canvas.select('infer');
  await expect(inspector.root.getByLabel('Feed x')).toHaveValue('dataset');
  await inspector.pickFile(fixtureFile('vad.onnx'));
  await expect(inspector.root.getByLabel('Output types')).toContainText('stateShape int64');
  const feedProblem = inspector.root.getByLabel('Feed problem');
  await expect(feedProblem).toContainText('the model has 3 inputs');
  await inspector.root.getByLabel('Feed input').selectOption('dataset');
  await inspector.root.getByLabel('Feed state').selectOption('constant');
  await inspector.root.getByLabel('Feed sr').selectOption('constant');
  // Beside the constant, what the input's type takes.
  await expect(inspector.root.getByLabel('Constant for sr')).toHaveAccessibleDescription(
    'int64: a whole number within ±2^53',
  );
  await inspector.root.getByLabel('Constant for sr').fill('16000.5');
  await expect(feedProblem).toContainText("'sr' takes int64; the constant 16000.5 is not an int64");
  await inspector.root.getByLabel('Constant for sr').fill('16000');
  await expect(feedProblem).toBeHidden();
  await toolbar.run();
  // Its own row first: until then the newest row is the run before, already ended.
  await expect(runs.rows).toHaveCount(2);
  await runs.expectStatus(runs.newest, 'ok');
  const { json: vad } = await runs.exportRun();
  expect(vad.run.result.outputs).toContain('stateShape: int64 [3] = [2, 200, 4]');

  // The same model over a sequence: the rows' 400 samples in frames of 2, its state carried
  // (stateN→state, proposed from the names and shapes), its output charted once per frame.
  await canvas.select('infer');
  await inspector.root.getByLabel('Sequence input').selectOption('input');
  const sequencePlan = inspector.root.getByLabel('Sequence plan');
  // The frame length comes from the model's fixed last dimension; another is refused.
  await expect(sequencePlan).toHaveText(
    'Frames [1×2] of 2 samples; carries stateN→state (proposed from names and shapes); charts output per frame.',
  );
  await inspector.setParam('frame', 3);
  await expect(inspector.root.getByLabel('Sequence problem')).toContainText(
    "its last dimension is 2, the frame has 3 samples (param 'frame')",
  );
  await inspector.setParam('frame', 2);
  await expect(sequencePlan).toBeVisible();
  await toolbar.run();
  await expect(runs.rows).toHaveCount(3);
  await runs.expectStatus(runs.newest, 'ok');
  await expect(charts.chart('infer.frames')).toBeVisible();
  const { json: frames } = await runs.exportRun();
  const perFrame = (frames.metrics['infer.frames'] ?? []).map(pointValue);
  expect(perFrame).toHaveLength(200);
  // Each frame's output is its two samples' sum + 16 (sr / 1000); the state went up by 1 a frame.
  expect(perFrame.every((v) => v > 10 && v < 22)).toBe(true);
  expect(frames.run.result.outputs).toContain('stateN: float32 [2×1×4] = [200, 200, 200, 200, …]');
  await canvas.select('infer');
  await inspector.root.getByLabel('Sequence input').selectOption('');

  await canvas.select('infer');
  await inspector.pickFile({
    name: 'notes.onnx',
    mimeType: 'text/plain',
    buffer: Buffer.from('these are my notes, not a model\n'),
  });
  await expect(inspector.root.getByRole('alert')).toContainText('notes.onnx: not an ONNX model');
  await toolbar.run();
  await expect(runs.rows).toHaveCount(4);
  await runs.expectStatus(runs.newest, 'error');
  await canvas.expectStatus(['infer'], 'error');
  const { json: failed } = await runs.exportRun();
  expect(failed.nodes.find((n) => n.node === 'infer')?.error).toMatch(
    /^model file 'notes.onnx': not an ONNX model: /,
  );

  // A WAV recording through the same model: data.audio mixes its two channels down and
  // resamples 32 kHz to 16 kHz (800 samples), the model runs over them in frames of 2.
  await toolbar.importFlow(fixtureFlowPath('onnx-audio'));
  await expect(toolbar.flowName).toHaveText('onnx-audio');
  await canvas.select('audio');
  await inspector.pickFile({
    name: 'speech.wav',
    mimeType: 'audio/wav',
    buffer: stereoWav(),
  });
  await canvas.select('infer');
  await inspector.pickFile(fixtureFile('vad.onnx'));
  await expect(inspector.root.getByLabel('Sequence plan')).toContainText('carries stateN→state');
  await expect(inspector.root.getByLabel('Feed problem')).toBeHidden();
  // The sequence input is fed by the samples port: shown so, not as "not fed".
  await expect(inspector.root.getByLabel('Feed input')).toHaveValue('samples');
  await expect(inspector.root.getByLabel('Feed input')).toBeDisabled();
  await toolbar.run();
  await expect(runs.rows).toHaveCount(5);
  await runs.expectStatus(runs.newest, 'ok');
  await expect(charts.chart('infer.frames')).toBeVisible();
  const { json: heard } = await runs.exportRun();
  const heardFrames = (heard.metrics['infer.frames'] ?? []).map(pointValue);
  expect(heardFrames).toHaveLength(400);
  // Each frame: its two samples' sum (mixed-down values in [-0.25, 0.75]) + 16.
  expect(heardFrames.every((v) => v >= 15.5 && v <= 17.5)).toBe(true);
  expect(logsOf(heard, 'audio')).toContain(
    'speech.wav: 2 channels of 16-bit pcm at 32000 Hz, mixed down, resampled to 16000 Hz: 800 samples (0.05 s)',
  );

  // A NumPy array on the tensor port feeds the model's input as it is shaped: [3×2] binds the
  // batch the state is filled to; a [3×5] array is refused naming the input and the dimension.
  await toolbar.importFlow(fixtureFlowPath('onnx-tensor'));
  await expect(toolbar.flowName).toHaveText('onnx-tensor');
  await canvas.select('array');
  await inspector.pickFile(npyFile('rows.npy', [3, 2]));
  await canvas.select('infer');
  await inspector.pickFile(fixtureFile('vad.onnx'));
  await expect(inspector.root.getByLabel('Feed input')).toHaveValue('tensor');
  await expect(inspector.root.getByLabel('Feed problem')).toBeHidden();
  await toolbar.run();
  await expect(runs.rows).toHaveCount(6);
  await runs.expectStatus(runs.newest, 'ok');
  const { json: fromArray } = await runs.exportRun();
  expect(fromArray.run.result.outputs).toContain('stateShape: int64 [3] = [2, 3, 4]');
  expect(logsOf(fromArray, 'infer')).toContain('input ← the tensor rows.npy float32 [3×2]');

  await canvas.select('array');
  await inspector.pickFile(npyFile('wide.npy', [3, 5]));
  await toolbar.run();
  await expect(runs.rows).toHaveCount(7);
  await runs.expectStatus(runs.newest, 'error');
  const { json: wide } = await runs.exportRun();
  expect(wide.nodes.find((n) => n.node === 'infer')?.error).toBe(
    "the model's input 'input' takes float32 [batch×2]; dimension 1 is 2, the tensor wide.npy [3×5] has 5",
  );
});

// The same sequence forced to `webgpu` (SwiftShader here): the model runs frame by frame on the
// WebGPU adapter, its state carried from frame to frame, and hears what WASM hears.
test('a sequence over an imported model, forced to webgpu, carries its state there to WASM’s frames @webgpu', async ({
  app,
  toolbar,
  canvas,
  inspector,
  alerts,
}) => {
  test.setTimeout(360_000);
  await toolbar.importFlow(fixtureFlowPath('onnx-audio'));
  await canvas.select('audio');
  await inspector.pickFile({
    name: 'speech.wav',
    mimeType: 'audio/wav',
    buffer: stereoWav(),
  });
  await canvas.select('infer');
  await inspector.pickFile(fixtureFile('vad.onnx'));
  await expect(inspector.root.getByLabel('Sequence plan')).toContainText('carries stateN→state');

  const heard = async (backend: 'webgpu' | 'wasm', count: number) => {
    const record = await app.runOn(backend, count);
    return { record, frames: (record.metrics['infer.frames'] ?? []).map(pointValue) };
  };
  const gpu = await heard('webgpu', 1);
  expect(gpu.record.run.engine).toMatchObject({ backend: 'webgpu', fallback: true });
  expect(gpu.record.run.engine?.adapter).toMatch(/swiftshader/i);
  expect(logsOf(gpu.record, 'infer')).toContain('ran on webgpu');
  const cpu = await heard('wasm', 2);
  expect(logsOf(cpu.record, 'infer')).toContain('ran on wasm');
  await expect(alerts.all).toHaveCount(0);

  expect(gpu.frames).toHaveLength(400);
  expect(cpu.frames).toHaveLength(400);
  gpu.frames.forEach((value, i) => expect(value, `frame ${i}`).toBeCloseTo(cpu.frames[i]!, 4));
});

/** A float32 `.npy` file (little-endian, C order) of the given shape, counting up from 0. */
function npyFile(name: string, dims: readonly number[]) {
  const header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${dims.join(', ')},), }`;
  const text = header + ' '.repeat(64 - ((10 + header.length + 1) % 64)) + '\n';
  const count = dims.reduce((a, b) => a * b, 1);
  const buffer = Buffer.alloc(10 + text.length + 4 * count);
  buffer.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, text.length, 0]);
  buffer.write(text, 10, 'latin1');
  for (let i = 0; i < count; i++) buffer.writeFloatLE(i, 10 + text.length + 4 * i);
  return { name, mimeType: 'application/octet-stream', buffer };
}

/** 0.05 s of 16-bit stereo PCM at 32 kHz: a 440 Hz tone at half scale on the left, 0.25 on the right. */
function stereoWav(): Buffer {
  const frames = 1600;
  const out = Buffer.alloc(44 + frames * 4);
  out.write('RIFF', 0);
  out.writeUInt32LE(out.length - 8, 4);
  out.write('WAVE', 8);
  out.write('fmt ', 12);
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20); // PCM
  out.writeUInt16LE(2, 22);
  out.writeUInt32LE(32000, 24);
  out.writeUInt32LE(32000 * 4, 28);
  out.writeUInt16LE(4, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36);
  out.writeUInt32LE(frames * 4, 40);
  for (let i = 0; i < frames; i++) {
    out.writeInt16LE(Math.round(16384 * Math.sin((2 * Math.PI * 440 * i) / 32000)), 44 + 4 * i);
    out.writeInt16LE(8192, 46 + 4 * i);
  }
  return out;
}
