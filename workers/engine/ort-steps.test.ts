import { describe, expect, it } from 'vitest';
import * as ortNode from 'onnxruntime-node';
import type * as Ort from 'onnxruntime-common';
import { GraphBuilder } from '../../src/core/onnx/graph';
import { openSessionLoop } from '../../src/core/runtime/session-loop';
import type { Tensor } from '../../src/core/runtime/tensor-runtime';
import type { OrtModule } from './ort-loader';
import { ortSteps } from './ort-steps';

const ort = ortNode as unknown as OrtModule;
const vector = (...values: number[]): Tensor => ({
  type: 'float32',
  data: Float32Array.from(values),
  dims: [values.length],
});

/** A "step" on onnxruntime: next.w = w + x·lr, loss = the first of next.w. */
async function counterSession(): Promise<Ort.InferenceSession> {
  const g = new GraphBuilder('counter');
  const w = g.input('w', 'float32', [2]);
  const x = g.input('x', 'float32', [2]);
  const lr = g.input('lr', 'float32', [1]);
  const next = g.op('Add', [w, g.op('Mul', [x, lr])]);
  g.output(next, 'next.w', 'float32', [2]);
  g.output(g.op('ReduceMax', [next], { keepdims: 0 }), 'loss', 'float32', []);
  return await ortNode.InferenceSession.create(g.toModel());
}

describe('a session loop on onnxruntime’s own tensors', () => {
  it.each([
    ['as onnxruntime makes them', false],
    ['written over the tensors the step before read', true],
  ])(
    'feeds each step the last one’s outputs, %s, and reads every step’s loss',
    async (_, writesInto) => {
      const session = await counterSession();
      const initial = vector(1, 0);
      const loop = openSessionLoop(ortSteps(ort, session, writesInto), {
        carried: [{ input: 'w', output: 'next.w' }],
        initial: { w: initial },
        constants: { lr: vector(2) },
        read: ['loss'],
      });
      const signal = new AbortController().signal;
      const result = await loop.run([{ x: vector(1, 0) }, null, { x: vector(3, 0) }], signal);
      expect(result.ran).toBe(3);
      expect([...result.values.loss!]).toEqual([3, Number.NaN, 9]);
      const again = await loop.run([{ x: vector(0.5, 10) }], signal);
      expect([...again.values.loss!]).toEqual([20]);
      const { w } = await loop.carried(['w']);
      expect(w).toMatchObject({ type: 'float32', dims: [2] });
      expect([...w!.data]).toEqual([10, 20]);
      // Three more steps: the weights handed out are never a step's output after.
      const more = await loop.run(
        [{ x: vector(1, 1) }, { x: vector(1, 1) }, { x: vector(1, 1) }],
        signal,
      );
      expect([...more.values.loss!]).toEqual([22, 24, 26]);
      expect([...w!.data]).toEqual([10, 20]);
      expect([...(await loop.carried(['w'])).w!.data]).toEqual([16, 26]);
      // The first weights were fed, not written over.
      expect([...initial.data]).toEqual([1, 0]);
      await loop.close();
      await session.release();
    },
  );
});
