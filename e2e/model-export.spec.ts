/**
 * A model trained in Flowbench leaves it as a standard `.onnx` file: the run
 * page offers it per trained model, and onnxruntime-node (outside the
 * browser, as anyone else would) loads it, sees its named input and outputs,
 * and gets a probability per class for raw rows.
 */
import { readFile } from 'node:fs/promises';
import * as ort from 'onnxruntime-node';
import { expect, test } from './fixtures';
import { RunRecord } from './pages/run-record';

test('a trained model downloads from the run page as an .onnx that onnxruntime loads', async ({
  page,
  params,
  toolbar,
  runs,
  alerts,
}) => {
  await params.set('steps', 20);
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');
  const runId = await runs.idOf(runs.newest);
  const record = new RunRecord(page);

  const download = await record.downloadModel('train');
  expect(download.suggestedFilename()).toBe(`${runId.slice(-8)}-train.onnx`);
  const bytes = new Uint8Array(await readFile(await download.path()));
  await expect(alerts.all).toHaveCount(0);

  const session = await ort.InferenceSession.create(bytes);
  expect(session.inputNames).toEqual(['features']);
  expect(session.outputNames).toEqual(['logits', 'probabilities']);
  // The default example's rows are points in the plane, two classes.
  const out = await session.run({
    features: new ort.Tensor('float32', Float32Array.from([0.1, 0.2, -0.5, 0.3]), [2, 2]),
  });
  const p = out.probabilities!.data as Float32Array;
  expect(out.probabilities!.dims).toEqual([2, 2]);
  expect(p[0]! + p[1]!).toBeCloseTo(1, 5);
  expect(p[2]! + p[3]!).toBeCloseTo(1, 5);
  // The file names its run and its maker.
  const text = new TextDecoder().decode(bytes);
  expect(text).toContain('Flowbench');
  expect(text).toContain(runId);
  await session.release();
});
