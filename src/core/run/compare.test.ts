import { expect, it } from 'vitest';
import { compareSeries, describeComparison, ENGINE_TOLERANCE, toleranceFor } from './compare';

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

it('says series of runs on different engines agree within the tolerance, and by how much', () => {
  const recorded = [0.6971344828605652, 0.27305779, NaN];
  const rerun = [0.6971344828605652, 0.27305777, NaN];
  const c = compareSeries('train.loss', recorded, rerun, ENGINE_TOLERANCE);
  expect(c).toMatchObject({ same: false, step: 1, within: { tolerance: 1e-4 } });
  expect(describeComparison(c)).toBe(
    'train.loss: agrees within 0.0001 relative (largest 7.3e-8; different engines, so not bit for bit)',
  );
  // No tolerance asked for (the same engine): still plainly different.
  expect(compareSeries('train.loss', recorded, rerun)).not.toHaveProperty('within');
});

it('calls series beyond the tolerance, of other lengths or NaN on one side only, different', () => {
  const beyond = compareSeries('m', [1, 2], [1, 2.001], ENGINE_TOLERANCE);
  expect(beyond).not.toHaveProperty('within');
  expect(describeComparison(beyond)).toBe('m: differs from step 1 (recorded 2, re-run 2.001)');
  expect(compareSeries('m', [1, 2], [1, 2, 3], ENGINE_TOLERANCE)).not.toHaveProperty('within');
  expect(compareSeries('m', [1, NaN], [1, 2], ENGINE_TOLERANCE)).not.toHaveProperty('within');
  expect(compareSeries('m', [1, 0], [1, -0], ENGINE_TOLERANCE)).toHaveProperty('within');
});

it('holds runs to the tolerance only when they say they ran on different backends', () => {
  const on = (backend: string) => ({ engine: { backend } });
  expect(toleranceFor(on('cpu'), on('wasm'))).toBe(ENGINE_TOLERANCE);
  expect(toleranceFor(on('webgpu'), on('wasm'))).toBe(ENGINE_TOLERANCE);
  expect(toleranceFor(on('wasm'), on('wasm'))).toBeUndefined();
  expect(toleranceFor({ engine: null }, on('wasm'))).toBeUndefined();
  expect(toleranceFor(undefined, on('cpu'))).toBeUndefined();
});
