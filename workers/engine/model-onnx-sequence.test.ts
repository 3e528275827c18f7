/**
 * `model.onnx` over a sequence, in a flow run on real onnxruntime (WASM):
 * the state-carrying loop gives, frame by frame, what a loop written by hand
 * over onnxruntime-node gives; the carried pairs are proposed from names and
 * shapes; a plan that does not fit is refused naming the param.
 */
import { zipSync } from 'fflate';
import * as ortNode from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import type { NodeFile } from '../../src/core/catalog/kind';
import { FLOW_FORMAT, type FlowDocument } from '../../src/core/flow/document';
import { GraphBuilder } from '../../src/core/onnx/graph';
import { runOnWasm, storedFile } from './testing';

/**
 * A recurrent detector with the inputs of a voice-activity one: a frame
 * [batch × 2], a state h [1 × batch × 3], an int64 rate. hn = tanh(0.9·h +
 * Σ frame + sr/16000); prob = sigmoid(mean of hn) — so each frame's answer
 * depends on every frame before it.
 */
function recurrentModel(): Uint8Array {
  const g = new GraphBuilder('recurrent');
  const input = g.input('input', 'float32', ['batch', 2]);
  const h = g.input('h', 'float32', [1, 'batch', 3]);
  const sr = g.input('sr', 'int64', []);
  const sum = g.op('ReduceSum', [input, g.constant([1], 'int64')], { keepdims: 1 });
  const rate = g.op('Div', [g.op('Cast', [sr], { to: 1 }), g.constant(16000)]);
  const decayed = g.op('Mul', [h, g.constant(0.9)]);
  const hn = g.op('Tanh', [g.op('Add', [g.op('Add', [decayed, sum]), rate])]);
  g.output(hn, 'hn', 'float32', [1, 'batch', 3]);
  const total = g.op('ReduceSum', [hn, g.constant([0, 2], 'int64')], { keepdims: 0 });
  g.output(g.op('Sigmoid', [g.op('Div', [total, g.constant(3)])]), 'prob', 'float32', ['batch']);
  return g.toModel();
}

/** 11 samples: five frames of two, and one sample left over. */
const SAMPLES = [0.1, -0.3, 0.5, 0.2, -0.8, -0.1, 0.05, 0.4, 0.9, -0.2, 0.7];

/** The same loop, written out over onnxruntime-node: each frame's prob, and the last state. */
async function byHand(model: Uint8Array): Promise<{ probs: number[]; state: number[] }> {
  const session = await ortNode.InferenceSession.create(model);
  let h = new ortNode.Tensor('float32', new Float32Array(3), [1, 1, 3]);
  const sr = new ortNode.Tensor('int64', BigInt64Array.from([16000n]), []);
  const probs: number[] = [];
  for (let i = 0; i + 2 <= SAMPLES.length; i += 2) {
    const input = new ortNode.Tensor('float32', Float32Array.from(SAMPLES.slice(i, i + 2)), [1, 2]);
    const out = await session.run({ input, h, sr });
    probs.push((out.prob!.data as Float32Array)[0]!);
    h = out.hn as typeof h;
  }
  const state = Array.from(h.data);
  await session.release();
  return { probs, state };
}

const stored = (name: string, bytes: Uint8Array) => storedFile(name, bytes, 'application/onnx');

/** A mono WAV file of float32 samples at `rate`. */
function floatWav(samples: readonly number[], rate: number): Uint8Array {
  const out = new Uint8Array(44 + 4 * samples.length);
  const v = new DataView(out.buffer);
  const text = (at: number, s: string) => out.set(new TextEncoder().encode(s), at);
  text(0, 'RIFF');
  v.setUint32(4, out.length - 8, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  v.setUint32(16, 16, true);
  v.setUint16(20, 3, true); // IEEE float
  v.setUint16(22, 1, true);
  v.setUint32(24, rate, true);
  v.setUint32(28, rate * 4, true);
  v.setUint16(32, 4, true);
  v.setUint16(34, 32, true);
  text(36, 'data');
  v.setUint32(40, 4 * samples.length, true);
  samples.forEach((x, i) => v.setFloat32(44 + 4 * i, x, true));
  return out;
}

/** A node feeding the model's `samples` port (or `to`) from a file: data.audio or data.tensor. */
interface Source {
  readonly kind: 'data.audio' | 'data.tensor';
  readonly file: NodeFile;
  readonly port: string;
  readonly to?: 'samples' | 'tensor';
}

async function runSequence(
  file: NodeFile,
  params: Record<string, string | number>,
  source?: Source,
) {
  const flow: FlowDocument = {
    format: FLOW_FORMAT,
    name: 'sequence',
    inputs: [],
    outputs: ['outputs', 'frames'],
    nodes: [
      { id: 'vad', kind: 'model.onnx', params, position: { x: 300, y: 0 } },
      ...(source
        ? [
            {
              id: 'source',
              kind: source.kind,
              params: { file: source.file.digest },
              position: { x: 0, y: 0 },
            },
          ]
        : []),
    ],
    edges: source ? [{ from: `source.${source.port}`, to: `vad.${source.to ?? 'samples'}` }] : [],
  };
  const files = source ? [file, source.file] : [file];
  const { result, emitted, logs, errors } = await runOnWasm(flow, files);
  const frames = emitted.filter((e) => e.port === 'frames').map((e) => e.value as number);
  return { result, frames, logs: logs.map((l) => l.message), errors };
}

describe('model.onnx over a sequence (real onnxruntime, WASM)', () => {
  it('carries the state frame by frame as a loop written by hand over onnxruntime-node does', async () => {
    const model = recurrentModel();
    const file = await stored('recurrent.onnx', model);
    const expected = await byHand(model);
    const { frames, logs, errors, result } = await runSequence(file, {
      file: file.digest,
      inputs: JSON.stringify({ input: SAMPLES, h: 0, sr: 16000 }),
      sequence: 'input',
      frame: 2,
    });
    expect(errors).toEqual({});
    expect(logs).toContain(
      'sequence input ← its constant: 5 frames of 2 samples (the last 1 left out), frame [1×2]; carried hn→h; charted prob',
    );
    expect(logs).toContain('ran on wasm');
    expect(frames).toHaveLength(5);
    frames.forEach((value, i) => expect(value).toBeCloseTo(expected.probs[i]!, 6));
    // The probabilities differ frame to frame only through the carried state's history.
    expect(new Set(frames.map((v) => v.toFixed(4))).size).toBe(5);
    const outputs = String(result.outputs.outputs).split('\n');
    expect(outputs[0]).toBe(
      `hn: float32 [1×1×3] = [${expected.state.map((v) => Number(v.toPrecision(4))).join(', ')}]`,
    );
    expect(outputs[1]).toBe(`prob: float32 [1] = [${Number(frames[4]!.toPrecision(4))}]`);
  });

  it('runs over a WAV file’s samples from data.audio as over the same sequence typed in', async () => {
    const model = recurrentModel();
    const file = await stored('recurrent.onnx', model);
    const audio = {
      ...(await stored('speech.wav', floatWav(SAMPLES, 16000))),
      mediaType: 'audio/wav',
    };
    const expected = await byHand(model);
    const { frames, logs, errors } = await runSequence(
      file,
      {
        file: file.digest,
        inputs: JSON.stringify({ h: 0, sr: 16000 }),
        sequence: 'input',
        frame: 2,
      },
      { kind: 'data.audio', file: audio, port: 'samples' },
    );
    expect(errors).toEqual({});
    expect(logs).toContain(
      'speech.wav: 1 channel of 32-bit float at 16000 Hz: 11 samples (0.00 s)',
    );
    expect(logs).toContain(
      'sequence input ← the samples of speech.wav at 16000 Hz: 5 frames of 2 samples (the last 1 left out), frame [1×2]; carried hn→h; charted prob',
    );
    expect(frames).toHaveLength(5);
    frames.forEach((value, i) => expect(value).toBeCloseTo(expected.probs[i]!, 6));
  });

  it('runs over a NumPy array from data.tensor (big-endian, Fortran order) read row-major', async () => {
    const model = recurrentModel();
    const file = await stored('recurrent.onnx', model);
    // The first ten samples as a (5, 2) float64 array: one frame a row, stored column by column.
    const body = new Uint8Array(80);
    const view = new DataView(body.buffer);
    for (let r = 0; r < 5; r++)
      for (let c = 0; c < 2; c++) view.setFloat64(8 * (c * 5 + r), SAMPLES[2 * r + c]!, false);
    const header = "{'descr': '>f8', 'fortran_order': True, 'shape': (5, 2), }";
    const text = header + ' '.repeat(64 - ((10 + header.length + 1) % 64)) + '\n';
    const npy = new Uint8Array(10 + text.length + body.length);
    npy.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, text.length, 0]);
    npy.set(new TextEncoder().encode(text), 10);
    npy.set(body, 10 + text.length);
    const frames = await stored('frames.npz', zipSync({ 'speech.npy': npy }));
    const expected = await byHand(model);
    const run = await runSequence(
      file,
      {
        file: file.digest,
        inputs: JSON.stringify({ h: 0, sr: 16000 }),
        sequence: 'input',
        frame: 2,
      },
      { kind: 'data.tensor', file: frames, port: 'tensor' },
    );
    expect(run.errors).toEqual({});
    expect(run.logs).toContain('frames.npz/speech: >f8 (5, 2) as float64');
    expect(run.frames).toHaveLength(5);
    run.frames.forEach((value, i) => expect(value).toBeCloseTo(expected.probs[i]!, 6));
    // The same array on the `tensor` port, the sequence input mapped to it.
    const mapped = await runSequence(
      file,
      {
        file: file.digest,
        inputs: JSON.stringify({ input: 'tensor', h: 0, sr: 16000 }),
        sequence: 'input',
        frame: 2,
      },
      { kind: 'data.tensor', file: frames, port: 'tensor', to: 'tensor' },
    );
    expect(mapped.errors).toEqual({});
    expect(mapped.logs).toContain(
      'sequence input ← the tensor frames.npz/speech [5×2] read row-major: 5 frames of 2 samples, frame [1×2]; carried hn→h; charted prob',
    );
    expect(mapped.frames).toEqual(run.frames);
    // Wired, but no input named to take it: said, not ignored.
    const unnamed = await runSequence(
      file,
      { file: file.digest, inputs: JSON.stringify({ h: 0, sr: 16000 }) },
      { kind: 'data.tensor', file: frames, port: 'tensor' },
    );
    expect(unnamed.errors.vad).toBe(
      "a sequence is wired to port 'samples': name the model input it feeds frame by frame in param 'sequence' (the model's inputs: input, h, sr)",
    );
  });

  it('without its state carried the model forgets: every frame starts from the constant', async () => {
    const file = await stored('recurrent.onnx', recurrentModel());
    const carried = await runSequence(file, {
      file: file.digest,
      inputs: JSON.stringify({ input: SAMPLES, h: 0, sr: 16000 }),
      sequence: 'input',
      frame: 2,
      carry: 'hn→h',
    });
    const first = await runSequence(file, {
      file: file.digest,
      inputs: JSON.stringify({ input: SAMPLES.slice(2, 4), h: 0, sr: 16000 }),
      sequence: 'input',
      frame: 2,
    });
    expect(first.frames).toHaveLength(1);
    // Frame 2 alone is not frame 2 after frame 1.
    expect(Math.abs(first.frames[0]! - carried.frames[1]!)).toBeGreaterThan(1e-3);
  });

  it('refuses a plan that does not fit, naming the param and what the model has', async () => {
    const file = await stored('recurrent.onnx', recurrentModel());
    const base = {
      file: file.digest,
      inputs: JSON.stringify({ input: SAMPLES, h: 0, sr: 16000 }),
      sequence: 'input',
    };
    expect((await runSequence(file, { ...base, frame: 3 })).errors.vad).toBe(
      "the model's input 'input' takes float32 [batch×2]; its last dimension is 2, the frame has 3 samples (param 'frame')",
    );
    expect((await runSequence(file, { ...base, carry: 'prob→h' })).errors.vad).toBe(
      "param 'carry': output 'prob' is float32 [batch]; input 'h' takes float32 [1×batch×3]",
    );
    expect(
      (await runSequence(file, { ...base, inputs: JSON.stringify({ input: SAMPLES, sr: 16000 }) }))
        .errors.vad,
    ).toBe(
      "the model's input 'h' is not fed: map it to the dataset, a tensor or a constant in the inspector",
    );
  });
});
