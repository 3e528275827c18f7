/**
 * The command line's `cpu` sessions: onnxruntime-node as `loadOrt` opens
 * them reads and writes denormal floats as zero (backend.ts says why), so a
 * training's decaying optimizer state does not slow every step. This file's
 * first session is `loadOrt`'s, as in a `flowbench` process: onnxruntime
 * sets the calling thread's flag from a process's first session.
 */
import { describe, expect, it } from 'vitest';
import { GraphBuilder } from '../src/core/onnx/graph';
import { loadOrt } from './backend';

/** y = x · 1, on four floats. */
function identityModel(): Uint8Array {
  const g = new GraphBuilder('times-one');
  const x = g.input('x', 'float32', [4]);
  const one = g.initializer('one', Float32Array.of(1), [1]);
  g.output(g.op('Mul', [x, one]), 'y', 'float32', [4]);
  return g.toModel();
}

describe('the command line on cpu', () => {
  it('reads and writes denormal floats as zero, and every other float as it is', async () => {
    const ort = await loadOrt('cpu', 1);
    const session = await ort.InferenceSession.create(identityModel());
    const smallest = 1.1754943508222875e-38; // the least normal float32
    const x = Float32Array.of(1e-40, -3e-42, smallest, 0.5);
    const { y } = await session.run({ x: new ort.Tensor('float32', x, [4]) });
    await session.release();
    expect([...(y!.data as Float32Array)]).toEqual([0, -0, Math.fround(smallest), 0.5]);
  });
});
