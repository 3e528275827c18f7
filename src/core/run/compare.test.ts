import { expect, it } from 'vitest';
import { compareSeries, describeComparison } from './compare';

it('calls series identical only when every value is the same bit for bit', () => {
  expect(compareSeries('m', [1, NaN, -0], [1, NaN, -0])).toEqual({
    metric: 'm',
    same: true,
    count: 3,
  });
  expect(compareSeries('m', [1, 0], [1, -0])).toMatchObject({ same: false, step: 1 });
  expect(compareSeries('m', [1, 2], [1, 2.0000001])).toMatchObject({
    same: false,
    step: 1,
    recorded: 2,
  });
});

it('reports where a shorter series ends', () => {
  const c = compareSeries('train.loss', [1, 2, 3], [1, 2]);
  expect(describeComparison(c)).toBe(
    'train.loss: differs from step 2 (recorded 3, re-run no point)',
  );
});
