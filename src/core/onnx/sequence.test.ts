import { describe, expect, it } from 'vitest';
import { isFlowbenchError } from '../errors';
import { formatCarry, parseCarry, planSequence, proposeCarry, sequenceOf } from './sequence';
import type { OnnxSignature } from './signature';

/** A voice-activity detector: samples and a state in; a probability, the next state and its shape out. */
const vad: OnnxSignature = {
  irVersion: 8,
  producer: 'test',
  opsets: [],
  nodeCount: 0,
  operators: [],
  inputs: [
    { name: 'input', type: 'float32', shape: ['batch', 'samples'] },
    { name: 'state', type: 'float32', shape: [2, 'batch', 128] },
    { name: 'sr', type: 'int64', shape: [] },
  ],
  outputs: [
    { name: 'output', type: 'float32', shape: ['batch', 1] },
    { name: 'stateShape', type: 'int64', shape: [3] },
    { name: 'stateN', type: 'float32', shape: [2, 'batch', 128] },
  ],
};

/** A GRU's step: h carried as hn, beside an output that merely starts with "h". */
const gru: OnnxSignature = {
  ...vad,
  inputs: [
    { name: 'x', type: 'float32', shape: [1, 'batch', 16] },
    { name: 'h', type: 'float32', shape: [1, 'batch', 32] },
  ],
  outputs: [
    { name: 'y', type: 'float32', shape: [1, 'batch', 32] },
    { name: 'hidden_logits', type: 'float32', shape: ['batch', 5] },
    { name: 'hn', type: 'float32', shape: [1, 'batch', 32] },
  ],
};

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (isFlowbenchError(error)) return error.message;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('running a model over a sequence', () => {
  it('proposes the carried pairs from names, types and shapes', () => {
    expect(proposeCarry(vad, 'input')).toEqual([{ output: 'stateN', input: 'state' }]);
    expect(proposeCarry(gru, 'x')).toEqual([{ output: 'hn', input: 'h' }]);
    // The sequence input is never carried into.
    expect(proposeCarry(gru, 'h')).toEqual([]);
  });

  it('plans frames of one batch, the frame length from param or model, and the charted output', () => {
    expect(planSequence(vad, { input: 'input', frame: 512, carry: '' })).toEqual({
      input: 'input',
      frame: 512,
      frameDims: [1, 512],
      carried: [{ output: 'stateN', input: 'state' }],
      charted: 'output',
    });
    const plan = planSequence(gru, { input: 'x', frame: 0, carry: 'hn -> h' });
    expect(plan.frameDims).toEqual([1, 1, 16]);
    expect(plan.charted).toBe('y');
  });

  it('refuses a frame or a pair that does not fit, naming the param and the shapes', () => {
    expect(refusal(() => planSequence(vad, { input: 'input', frame: 0, carry: '' }))).toBe(
      "param 'frame': the samples per frame are not known: input 'input' takes float32 [batch×samples]; set a whole number ≥ 1",
    );
    expect(refusal(() => planSequence(gru, { input: 'x', frame: 8, carry: '' }))).toBe(
      "the model's input 'x' takes float32 [1×batch×16]; its last dimension is 16, the frame has 8 samples (param 'frame')",
    );
    expect(refusal(() => planSequence(vad, { input: 'sr', frame: 1, carry: '' }))).toBe(
      "the model's input 'sr' takes int64 []; a sequence gives float32 frames",
    );
    expect(
      refusal(() => planSequence(vad, { input: 'input', frame: 4, carry: 'stateShape→state' })),
    ).toBe(
      "param 'carry': output 'stateShape' is int64 [3]; input 'state' takes float32 [2×batch×128]",
    );
    expect(refusal(() => planSequence(vad, { input: 'input', frame: 4, carry: 'stateN→h' }))).toBe(
      "param 'carry': the model has no input 'h'; its inputs are input float32 [batch×samples], state float32 [2×batch×128], sr int64 []",
    );
    expect(refusal(() => parseCarry('stateN state'))).toBe(
      "param 'carry': 'stateN state' is not a pair output→input (e.g. \"stateN→state, hn→h\")",
    );
  });

  it('reads and writes the carry param; reads an array constant as one sequence', () => {
    const pairs = parseCarry(' stateN→state , hn->h');
    expect(pairs).toEqual([
      { output: 'stateN', input: 'state' },
      { output: 'hn', input: 'h' },
    ]);
    expect(parseCarry(formatCarry(pairs))).toEqual(pairs);
    expect(
      Array.from(
        sequenceOf('input', [
          [1, 2],
          [3, 4.5],
        ]),
      ),
    ).toEqual([1, 2, 3, 4.5]);
    expect(refusal(() => sequenceOf('input', [1, 'two']))).toBe(
      "the model's input 'input' is the sequence; its constant's element 1 (\"two\") is not a number",
    );
  });
});
