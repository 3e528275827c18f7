/**
 * The `sequence` row: a model run over a sequence with its state carried,
 * as `model.onnx` runs it — `sequenceLoop` through the program host over
 * `OrtRuntime` (one unit per frame, the state kept as device tensors, the
 * charted value emitted per frame) — versus a bare onnxruntime-web loop
 * feeding each frame's state straight back. Same model, same frames, same
 * one WASM thread, trials alternated. The model has a voice-activity
 * detector's shapes (frames of 512 samples, a state [2 × 1 × 128], an int64
 * rate) and a small graph, so the row shows what the loop adds per frame.
 */
import * as ortWeb from 'onnxruntime-web';
import { GraphBuilder } from '../../src/core/onnx/graph';
import { planSequence } from '../../src/core/onnx/sequence';
import { readOnnxSignature } from '../../src/core/onnx/signature';
import {
  modelId,
  nodeRequest,
  sequenceLoop,
  sequenceSession,
  unboundedProgramHost,
} from '../../src/core/programs';
import type { TypedConstant } from '../../src/core/runtime/tensor-runtime';
import { OrtRuntime } from '../../workers/engine/ort-runtime';
import { engineInfo } from '../../workers/engine/adapter';
import { WASM_THREADS } from '../../workers/engine/ort-loader';
import { compareRow, ratioAtMost, type BenchRow } from '../lib/rows';
import { alternate } from '../lib/stats';

ortWeb.env.wasm.numThreads = WASM_THREADS;
ortWeb.env.logLevel = 'error';

const FRAME = 512;
const FRAMES = 500;

/** stateN = tanh(0.9·state + mean(frame) + sr/16000); output = sigmoid(mean(stateN)). */
function model(): Uint8Array {
  const g = new GraphBuilder('vad-like');
  const input = g.input('input', 'float32', ['batch', FRAME]);
  const state = g.input('state', 'float32', [2, 'batch', 128]);
  const sr = g.input('sr', 'int64', []);
  const mean = g.op('Div', [
    g.op('ReduceSum', [input, g.constant([1], 'int64')], { keepdims: 1 }),
    g.constant(FRAME),
  ]);
  const rate = g.op('Div', [g.op('Cast', [sr], { to: 1 }), g.constant(16000)]);
  const next = g.op('Tanh', [
    g.op('Add', [g.op('Add', [g.op('Mul', [state, g.constant(0.9)]), mean]), rate]),
  ]);
  g.output(
    g.op('Sigmoid', [
      g.op('Div', [
        g.op('ReduceSum', [next, g.constant([0, 2], 'int64')], { keepdims: 0 }),
        g.constant(256),
      ]),
    ]),
    'output',
    'float32',
    ['batch'],
  );
  g.output(next, 'stateN', 'float32', [2, 'batch', 128]);
  return g.toModel();
}

const bytes = model();
const sequence = Float32Array.from({ length: FRAME * FRAMES }, (_, i) => Math.sin(i / 40) * 0.3);
const plan = planSequence(readOnnxSignature(bytes), { input: 'input', frame: 0, carry: '' });
const state: TypedConstant = {
  location: 'constant',
  type: 'float32',
  dims: [2, 1, 128],
  values: new Array<number>(256).fill(0),
};
const sr: TypedConstant = { location: 'constant', type: 'int64', dims: [], values: [16000] };

/** Ms per frame of the loop as model.onnx runs it. */
async function ours(): Promise<number> {
  const runtime = new OrtRuntime(engineInfo(null), () => Promise.resolve(ortWeb), 'wasm');
  const host = unboundedProgramHost(runtime);
  const id = modelId('bench/model');
  let emitted = 0;
  const start = performance.now();
  await host.run({
    node: 'bench',
    backend: 'wasm',
    models: [
      { id, model: bytes, backend: 'wasm', session: sequenceSession(plan), residentBytes: 0 },
    ],
    requests: [
      nodeRequest(
        'bench',
        sequenceLoop({
          name: 'frames',
          model: id,
          plan,
          sequence,
          feeds: { state, sr },
          residentBytes: 0,
          peakBytes: 0,
        }),
        new AbortController().signal,
      ),
    ],
    onEmit: () => {
      emitted++;
    },
  });
  const ms = (performance.now() - start) / FRAMES;
  if (emitted !== FRAMES) throw new Error(`the loop emitted ${emitted} of ${FRAMES} frames`);
  await runtime.releaseAll();
  return ms;
}

/** Ms per frame of the same loop written out over onnxruntime-web. */
async function bare(): Promise<number> {
  const start = performance.now();
  const session = await ortWeb.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
  let carried = new ortWeb.Tensor('float32', new Float32Array(256), [2, 1, 128]);
  const rate = new ortWeb.Tensor('int64', BigInt64Array.from([16000n]), []);
  const frame = new Float32Array(FRAME);
  let sum = 0;
  for (let i = 0; i < FRAMES; i++) {
    frame.set(sequence.subarray(i * FRAME, (i + 1) * FRAME));
    const out = await session.run({
      input: new ortWeb.Tensor('float32', frame, [1, FRAME]),
      state: carried,
      sr: rate,
    });
    sum += (out.output!.data as Float32Array)[0]!;
    carried = out.stateN as typeof carried;
  }
  const ms = (performance.now() - start) / FRAMES;
  await session.release();
  if (!Number.isFinite(sum)) throw new Error('the bare loop gave no numbers');
  return ms;
}

export async function run(): Promise<BenchRow[]> {
  const { a, b } = await alternate({
    a: ours,
    b: bare,
    warmups: 1,
    minTrials: 5,
    maxTrials: 15,
    budgetMs: 20_000,
  });
  return [
    compareRow({
      name: `model over a sequence: ms per frame (${FRAMES} frames of ${FRAME}, state carried)`,
      unit: 'ms/frame',
      lowerIsBetter: true,
      ours: a,
      reference: b,
      target: ratioAtMost(1.5, 'vs a bare onnxruntime-web loop'),
      note: 'sequenceLoop through the program host and OrtRuntime (session load included), vs a hand-written loop over onnxruntime-web feeding stateN back as state (session load included); one WASM thread',
    }),
  ];
}
