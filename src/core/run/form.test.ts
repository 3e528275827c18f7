import { describe, expect, it } from 'vitest';
import type { FlowDocument } from '../flow/document';
import { formParams, planSweep } from './form';
import { resolveRunParams } from './params';
import { MAX_SWEEP_RUNS } from './sweep';

const flow = {
  format: 'flowbench.flow/1',
  name: 'form',
  inputs: [
    { name: 'lr', type: 'number', default: 0.05 },
    { name: 'steps', type: 'int', default: 10 },
    { name: 'shuffle', type: 'boolean', default: false },
    { name: 'seed', type: 'int', default: 0 },
  ],
  outputs: [],
  nodes: [],
  edges: [],
} as unknown as FlowDocument;

describe('formParams', () => {
  it('types each field by its input, keeps the seed apart and leaves empty fields to their defaults', () => {
    expect(formParams(flow, { lr: '0.1', steps: '20', shuffle: 'true', seed: '7' })).toEqual({
      params: { lr: 0.1, steps: 20, shuffle: true },
      seed: 7,
    });
    expect(formParams(flow, { lr: ' ', steps: '' })).toEqual({ params: {} });
  });

  it("leaves an empty seed field to the seed input's default, not 0", () => {
    const seeded = {
      ...flow,
      inputs: [{ name: 'seed', type: 'int', default: 42 }],
    } as unknown as FlowDocument;
    const { params, seed } = formParams(seeded, { seed: '' });
    expect(seed).toBeUndefined();
    expect(resolveRunParams(seeded, params, seed).values).toEqual({ seed: 42 });
  });

  it('keeps text that is no number as text, so the run checks refuse it by name', () => {
    expect(formParams(flow, { lr: 'fast', seed: 'x' })).toEqual({
      params: { lr: 'fast', seed: 'x' },
    });
  });
});

describe('planSweep', () => {
  it('is one run per combination of the fields, each typed like a single run', () => {
    expect(planSweep(flow, { lr: '0.1, 0.2', seed: '0..1' })).toEqual([
      { params: { lr: 0.1 }, seed: 0 },
      { params: { lr: 0.1 }, seed: 1 },
      { params: { lr: 0.2 }, seed: 0 },
      { params: { lr: 0.2 }, seed: 1 },
    ]);
  });

  it('answers with a message for a field it cannot read or a grid too large', () => {
    expect(planSweep(flow, { lr: '0..2' })).toMatch(/^'lr': a range like 0\.\.2 needs an integer/);
    expect(planSweep(flow, { steps: `1..${MAX_SWEEP_RUNS}`, seed: '0..1' })).toBe(
      `This sweep is ${2 * MAX_SWEEP_RUNS} runs; Flowbench runs sweeps of up to ${MAX_SWEEP_RUNS}`,
    );
  });
});
