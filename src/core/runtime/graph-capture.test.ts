import { describe, expect, it } from 'vitest';
import { captureRefusal, graphCaptureLine, shapeChange, stepShapes } from './graph-capture';
import type { Tensor } from './tensor-runtime';

const rows = (n: number): Tensor => ({ type: 'int32', data: new Int32Array(n), dims: [n] });
const step = (t: number): Tensor => ({ type: 'float32', data: Float32Array.of(t), dims: [] });

describe('the shapes a captured step fixes', () => {
  it('takes a step whose feeds have the first step’s names, types and dims', () => {
    const fixed = stepShapes({ rows: rows(64), step: step(1) });
    expect(shapeChange(fixed, { rows: rows(64), step: step(2) })).toBeNull();
  });

  it('names the feed whose dims changed, from what to what', () => {
    const fixed = stepShapes({ rows: rows(64) });
    expect(shapeChange(fixed, { rows: rows(32) })).toBe(
      "the step's input rows changed from int32 [64] to int32 [32]; a captured step needs fixed shapes",
    );
  });

  it('names a feed whose type changed', () => {
    const fixed = stepShapes({ rows: rows(4) });
    const asFloats: Tensor = { type: 'float32', data: new Float32Array(4), dims: [4] };
    expect(shapeChange(fixed, { rows: asFloats })).toMatch(/from int32 \[4\] to float32 \[4\]/);
  });

  it('refuses a feed that comes or goes after the first step', () => {
    const fixed = stepShapes({ rows: rows(4) });
    expect(shapeChange(fixed, {})).toBe(
      "the step's input rows was fed at the first step and not now",
    );
    expect(shapeChange(fixed, { rows: rows(4), step: step(1) })).toBe(
      "the step's input step was not fed at the first step",
    );
  });

  it('refuses to capture from a step with an empty feed (it would have no buffer)', () => {
    expect(captureRefusal({ rows: rows(8) })).toBeNull();
    expect(captureRefusal({ rows: rows(0) })).toBe(
      "the step's input rows has no elements (no buffer to fix)",
    );
  });
});

describe('the node’s line on graph capture', () => {
  it('says the step was captured and for how many steps', () => {
    expect(graphCaptureLine({ captured: 12, uncaptured: 0 })).toMatch(
      /^graph capture: the train step was captured once and replayed for 12 of 12 steps/,
    );
  });

  it('says a refusal once, with its reason', () => {
    expect(graphCaptureLine({ captured: 0, uncaptured: 5, refused: 'no' })).toBe(
      'graph capture refused: no; the steps ran uncaptured',
    );
  });

  it('says where a capture stopped part-way', () => {
    expect(graphCaptureLine({ captured: 3, uncaptured: 2, refused: 'shape' })).toBe(
      'graph capture: 3 of 5 steps replayed the captured step, then it stopped: shape; the rest ran uncaptured',
    );
  });

  it('says nothing when nothing ran', () => {
    expect(graphCaptureLine({ captured: 0, uncaptured: 0 })).toBeNull();
  });
});
