/**
 * NumPy arrays into a model's inputs, in the built app: two `data.tensor`
 * nodes feed two inputs of one model from two tensor ports — the rows as
 * float32, the sample rate as an int64 array read in its own type — and an
 * array whose values an int64 input cannot take is refused, naming the
 * input, its type, the array's type and the value. Before a run, the
 * inspector says what each tensor port carries, and an array of the wrong
 * shape for its input.
 */
import { expect, test } from './fixtures';
import { fixtureFile, fixtureFlowPath } from './support/files';
import type { RunFile } from './support/formats';

const logsOf = (record: RunFile, node: string) =>
  (record.nodes.find((n) => n.node === node) as { logs?: string } | undefined)?.logs ?? '';

/** A `.npy` file as NumPy writes it (version 1, little-endian, C order) of `descr` elements. */
function npyFile(name: string, descr: '<f4' | '<i8' | '<f8', dims: number[], values: number[]) {
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  const header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const text = header + ' '.repeat(64 - ((10 + header.length + 1) % 64)) + '\n';
  const size = descr === '<f4' ? 4 : 8;
  const buffer = Buffer.alloc(10 + text.length + size * values.length);
  buffer.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, text.length, 0]);
  buffer.write(text, 10, 'latin1');
  const at = (i: number) => 10 + text.length + size * i;
  values.forEach((v, i) => {
    if (descr === '<f4') buffer.writeFloatLE(v, at(i));
    else if (descr === '<i8') buffer.writeBigInt64LE(BigInt(v), at(i));
    else buffer.writeDoubleLE(v, at(i));
  });
  return { name, mimeType: 'application/octet-stream', buffer };
}

test('two .npy arrays feed two model inputs from two tensor ports, one of them int64', async ({
  toolbar,
  canvas,
  inspector,
  runs,
}) => {
  await toolbar.importFlow(fixtureFlowPath('onnx-tensors'));
  await expect(toolbar.flowName).toHaveText('onnx-tensors');
  await canvas.select('array');
  await inspector.pickFile(npyFile('rows.npy', '<f4', [3, 2], [0, 1, 2, 3, 4, 5]));
  await canvas.select('rate');
  await inspector.pickFile(npyFile('rate.npy', '<i8', [], [8000]));
  await canvas.select('infer');
  await inspector.pickFile(fixtureFile('vad.onnx'));
  await expect(inspector.root.getByLabel('Feed input')).toHaveValue('tensor');
  await expect(inspector.root.getByLabel('Feed sr')).toHaveValue('tensor2');
  await expect(inspector.root.getByLabel('Feed problem')).toBeHidden();
  // Before a run, what each tensor port carries, read as the run will read it.
  await expect(inspector.root.getByLabel('Tensor for input')).toHaveText(
    'tensor: rows.npy float32 [3×2]',
  );
  await expect(inspector.root.getByLabel('Tensor for sr')).toHaveText('tensor2: rate.npy int64 []');
  await expect(inspector.root.getByRole('alert')).toHaveCount(0);
  await toolbar.run();
  await expect(runs.rows).toHaveCount(1);
  // The first model run of a page loads onnxruntime's wasm: slow on a busy machine.
  await runs.expectStatus(runs.newest, 'ok', { timeout: 90_000 });
  const { json: fed } = await runs.exportRun();
  // Σ row + sr / 1000, the rate from the int64 array.
  expect(fed.run.result.outputs).toContain('output: float32 [3×1] = [9, 13, 17]');
  expect(fed.run.result.outputs).toContain('stateShape: int64 [3] = [2, 3, 4]');
  expect(logsOf(fed, 'rate')).toContain('rate.npy: <i8 () as int64');
  expect(logsOf(fed, 'infer')).toContain('sr ← the tensor rate.npy (port tensor2) int64 []');

  // An array of the wrong shape is named in the inspector before any run.
  await canvas.select('rate');
  await inspector.pickFile(npyFile('pair.npy', '<i8', [2], [8000, 16000]));
  await canvas.select('infer');
  await expect(inspector.root.getByLabel('Tensor for sr')).toHaveText(
    'tensor2: pair.npy int64 [2]',
  );
  await expect(inspector.root.getByRole('alert')).toContainText(
    /^the model's input 'sr' takes int64 \[\].*; the tensor pair\.npy \[2\] has 1 dimension, not 0$/,
  );

  // A float64 rate that is not a whole number cannot be an int64: refused, nothing run.
  await canvas.select('rate');
  await inspector.pickFile(npyFile('half.npy', '<f8', [], [8000.5]));
  await toolbar.run();
  await expect(runs.rows).toHaveCount(2);
  await runs.expectStatus(runs.newest, 'error');
  const { json: refused } = await runs.exportRun();
  expect(refused.nodes.find((n) => n.node === 'infer')?.error).toBe(
    "the model's input 'sr' takes int64 []; the tensor half.npy (float64 []) has element 0 = 8000.5, not an int64 (a whole number from −2^63 to 2^63 − 1)",
  );
});
