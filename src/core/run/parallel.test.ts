import { describe, expect, it } from 'vitest';
import {
  axisPosition,
  axisValueAt,
  parallelAxes,
  runsInBrushes,
  type ParallelRun,
} from './parallel';

const run = (id: string, lr: number, act: string, seed: number, accuracy: number): ParallelRun => ({
  id,
  params: { lr, steps: 10, act },
  seed,
  result: { accuracy, note: 'text' },
  finals: { 'train.loss': 1 - accuracy },
});

const runs = [
  run('a', 0.01, 'relu', 0, 0.6),
  run('b', 0.1, 'tanh', 1, 0.8),
  run('c', 1, 'relu', 2, 0.9),
];

describe('parallel coordinates of a sweep', () => {
  it('has an axis per varying param (seed last), then per numeric result and final metric', () => {
    const axes = parallelAxes(runs);
    expect(axes.map((a) => a.key)).toEqual([
      'param:act',
      'param:lr',
      'seed',
      'result:accuracy',
      'metric:train.loss',
    ]);
    expect(axes[0]).toMatchObject({ categories: ['relu', 'tanh'], canLog: false });
    expect(axes[1]).toMatchObject({ min: 0.01, max: 1, canLog: true, source: 'param' });
    expect(axes[2]).toMatchObject({ canLog: false });
  });

  it('places runs on linear, log and flipped axes', () => {
    const lr = parallelAxes(runs).find((a) => a.key === 'param:lr')!;
    expect(runs.map((r) => axisPosition(lr, r))).toEqual([0, (0.1 - 0.01) / 0.99, 1]);
    const log = runs.map((r) => axisPosition(lr, r, { log: true })!);
    expect(log[0]).toBe(0);
    expect(log[1]).toBeCloseTo(0.5);
    expect(log[2]).toBe(1);
    expect(runs.map((r) => axisPosition(lr, r, { flip: true }))).toEqual([1, 1 - 0.09 / 0.99, 0]);
    expect(axisValueAt(lr, 0.5, { log: true })).toBeCloseTo(0.1);
  });

  it('keeps exactly the runs inside every brush, and all of them with no brush', () => {
    const axes = parallelAxes(runs);
    expect(runsInBrushes(runs, axes, {})).toEqual(['a', 'b', 'c']);
    // The top half of lr on a log scale: 0.1 and 1.
    expect(
      runsInBrushes(runs, axes, { 'param:lr': [0.5, 1] }, { 'param:lr': { log: true } }),
    ).toEqual(['b', 'c']);
    // And accuracy above 0.85 as well.
    const accuracy = axes.find((a) => a.key === 'result:accuracy')!;
    const cut = axisPosition(accuracy, run('x', 0, '', 0, 0.85))!;
    expect(
      runsInBrushes(
        runs,
        axes,
        { 'param:lr': [0.5, 1], 'result:accuracy': [cut, 1] },
        {
          'param:lr': { log: true },
        },
      ),
    ).toEqual(['c']);
    // A categorical axis: tanh is its top.
    expect(runsInBrushes(runs, axes, { 'param:act': [0.9, 1] })).toEqual(['b']);
  });
});
