/**
 * The command line's `cpu` sessions: onnxruntime-node as `loadOrt` opens
 * them reads and writes denormal floats as zero (backend.ts says why), so a
 * training's decaying optimizer state does not slow every step. onnxruntime
 * sets the calling thread's flag once per process, from the process's first
 * session, so the session runs in a process of its own, as in a `flowbench`
 * process (a test file shares its worker's onnxruntime with the files before it).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { engineInfo } from '../workers/engine/adapter';
import { OrtRuntime } from '../workers/engine/ort-runtime';
import { loadFlow, runOnRuntime, storedFile, type WasmRun } from '../workers/engine/testing';
import { resolveRunParams } from '../src/core/run/params';
import { loadOrt } from './backend';

/** y = x · 1 over four floats, on a fresh process's first `cpu` session; y's values. */
const script = `
import { GraphBuilder } from './src/core/onnx/graph.ts';
import { loadOrt } from './cli/backend.ts';
const g = new GraphBuilder('times-one');
const x = g.input('x', 'float32', [4]);
const one = g.initializer('one', Float32Array.of(1), [1]);
g.output(g.op('Mul', [x, one]), 'y', 'float32', [4]);
const ort = await loadOrt('cpu');
const session = await ort.InferenceSession.create(g.toModel());
const xs = Float32Array.of(1e-40, -3e-42, 1.1754943508222875e-38, 0.5);
const { y } = await session.run({ x: new ort.Tensor('float32', xs, [4]) });
console.log(JSON.stringify([...y.data].map((v) => (Object.is(v, -0) ? '-0' : v))));
process.exit(0);
`;

describe('the command line on cpu', () => {
  it('reads and writes denormal floats as zero, and every other float as it is', async () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '--eval', script],
      { cwd: root },
    );
    expect(JSON.parse(stdout)).toEqual([0, '-0', Math.fround(1.1754943508222875e-38), 0.5]);
  });

  it.each([
    ['spirals-mlp', { steps: 300 }],
    ['digits-cnn', { epochs: 3 }],
  ])(
    "trains %s gathering each step's rows in onnxruntime-node, to the losses of the engine's own batches",
    async (example, params) => {
      const ort = await loadOrt('cpu', 1);
      const flow = loadFlow(`src/examples/${example}.flow.json`);
      const zip = readFileSync(new URL('../src/examples/digits.zip', import.meta.url));
      const files = [await storedFile('digits.zip', new Uint8Array(zip), 'application/zip')];
      const info = engineInfo(null);
      // As the command line's runtime on cpu (headless-run.ts), and with its loops copying batches.
      const runOn = (inPlace: boolean) =>
        runOnRuntime(
          flow,
          files,
          new OrtRuntime(info, () => Promise.resolve(ort), 'wasm', undefined, { inPlace }),
          resolveRunParams(flow, params).values,
        );
      const batched = await runOn(false);
      const gathered = await runOn(true);
      const losses = (run: WasmRun) =>
        run.emitted.filter((e) => e.node === 'train' && e.port === 'loss').map((e) => e.value);
      const trainLog = (run: WasmRun) =>
        run.logs
          .filter((l) => l.node === 'train')
          .map((l) => l.message)
          .join('\n');
      expect(gathered.result.status).toBe('ok');
      expect(losses(batched).length).toBeGreaterThan(3);
      expect(losses(gathered)).toEqual(losses(batched));
      expect(trainLog(gathered)).toMatch(
        /each step's rows gathered from the dataset where it lies/,
      );
      expect(trainLog(batched)).not.toMatch(/rows gathered/);
    },
  );
});
