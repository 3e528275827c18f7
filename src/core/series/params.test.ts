import { describe, expect, it } from 'vitest';
import { describeParams, differingParams, groupByParam } from './params';

const run = (params: Record<string, unknown>, seed = 0) => ({ params, seed });

describe('differingParams', () => {
  it('names only the params whose values differ, seed last', () => {
    const runs = [run({ lr: 0.05, steps: 100 }, 0), run({ lr: 0.1, steps: 100 }, 1)];
    expect(differingParams(runs)).toEqual(['lr', 'seed']);
  });

  it('counts a param one run lacks as differing', () => {
    expect(differingParams([run({ lr: 0.1 }), run({})])).toEqual(['lr']);
  });

  it('names nothing for one run or identical runs', () => {
    expect(differingParams([run({ lr: 0.1 })])).toEqual([]);
    expect(differingParams([run({ lr: 0.1 }), run({ lr: 0.1 })])).toEqual([]);
  });

  it('reads a seed set in the params instead of the run seed', () => {
    expect(differingParams([run({ seed: 3 }, 0), run({ seed: 3 }, 1)])).toEqual([]);
  });
});

describe('describeParams', () => {
  it('writes key=value for each key', () => {
    expect(describeParams(run({ lr: 0.05, act: 'relu' }, 2), ['lr', 'act', 'seed'])).toBe(
      'lr=0.05 act=relu seed=2',
    );
  });
});

describe('groupByParam', () => {
  it('puts runs with the same value together, ordered by value', () => {
    const a = run({ lr: 0.1 }, 0);
    const b = run({ lr: 0.05 }, 0);
    const c = run({ lr: 0.1 }, 1);
    expect(groupByParam([a, b, c], 'lr')).toEqual([
      { label: 'lr=0.05', members: [b] },
      { label: 'lr=0.1', members: [a, c] },
    ]);
  });
});
