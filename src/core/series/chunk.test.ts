import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  chunkOf,
  chunksOf,
  columnsOfChunks,
  columnsOfPoints,
  packChunks,
  pointsOfChunks,
  touchedBy,
  upsertChunks,
  type MetricChunk,
} from './chunk';
import type { MetricPoint } from './columns';

const points = (from: number, n: number, value = (s: number) => s / 2): MetricPoint[] =>
  Array.from({ length: n }, (_, i) => ({
    step: from + i,
    value: value(from + i),
    ts: 1e9 + from + i,
  }));

/** The bits of a float64, so NaN payloads and -0 compare exactly. */
const bitsOf = (values: ArrayLike<number>) =>
  Array.from(new BigUint64Array(Float64Array.from(values).buffer), (b) => b.toString(16));

/** A store of one series' chunks by key, as the database holds it, written through `upsertChunks`. */
class Series {
  chunks = new Map<number, MetricChunk>();
  constructor(private readonly max: number) {}
  write(batch: readonly MetricPoint[]): void {
    const cols = columnsOfPoints(batch);
    const from = cols.step[0]!;
    const to = cols.step.at(-1)!;
    const sorted = [...this.chunks.values()].sort((a, b) => a.step - b.step);
    const before = sorted.filter((c) => c.step <= from).at(-1);
    const touched = sorted.filter(
      (c) => (c === before || (c.step > from && c.step <= to)) && touchedBy(c, from, to, this.max),
    );
    const { removed, put } = upsertChunks(touched, cols, this.max);
    for (const key of removed) this.chunks.delete(key);
    for (const chunk of put) this.chunks.set(chunk.step, chunk);
  }
  ordered(): MetricChunk[] {
    return [...this.chunks.values()].sort((a, b) => a.step - b.step);
  }
  points(): MetricPoint[] {
    return pointsOfChunks(this.ordered());
  }
}

describe('metric chunks', () => {
  it('round-trip every float64 bit pattern in values and wall times', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.double()), {
          minLength: 1,
          maxLength: 300,
        }),
        (raw) => {
          const bits = new BigUint64Array(raw.map(([b]) => b));
          const value = new Float64Array(bits.buffer);
          const ts = Float64Array.from(raw, ([, t]) => t);
          const step = Float64Array.from(raw, (_, i) => i);
          const back = columnsOfChunks(chunksOf({ step, value, ts }, 64));
          expect(bitsOf(back.value)).toEqual(bitsOf(value));
          expect(bitsOf(back.ts)).toEqual(bitsOf(ts));
          expect([...back.step]).toEqual([...step]);
        },
      ),
    );
  });

  it('keep NaN, ±Infinity and -0 exact through point objects', () => {
    const special = [NaN, Infinity, -Infinity, -0, 0, Number.MIN_VALUE];
    const back = pointsOfChunks(chunksOf(columnsOfPoints(points(0, 6, (s) => special[s]!))));
    back.forEach((p, i) => expect(Object.is(p.value, special[i])).toBe(true));
  });

  it('store consecutive steps as a first step and a count, gaps as Int32 steps', () => {
    const plain = chunkOf(columnsOfPoints(points(10, 5)));
    expect(plain).toMatchObject({ step: 10, last: 14, steps: null });
    const gappy = columnsOfPoints([...points(0, 3), ...points(7, 2), ...points(100, 1)]);
    const chunk = chunkOf(gappy);
    expect(chunk.steps).toBeInstanceOf(Int32Array);
    expect(chunk).toMatchObject({ step: 0, last: 100 });
    expect(pointsOfChunks([chunk]).map((p) => p.step)).toEqual([0, 1, 2, 7, 8, 100]);
    // Steps past what an Int32Array holds stay exact.
    const far = chunkOf(columnsOfPoints([...points(0, 1), ...points(2 ** 40, 1)]));
    expect(pointsOfChunks([far]).map((p) => p.step)).toEqual([0, 2 ** 40]);
  });

  it('read only the points within a step range, across chunks and gaps', () => {
    const chunks = chunksOf(columnsOfPoints([...points(0, 10), ...points(20, 10)]), 4);
    expect(pointsOfChunks(chunks, 3, 21).map((p) => p.step)).toEqual([3, 4, 5, 6, 7, 8, 9, 20, 21]);
    expect(pointsOfChunks(chunks, 10, 19)).toEqual([]);
    expect(pointsOfChunks(chunks, 29).map((p) => p.step)).toEqual([29]);
  });

  it('a step given twice in one write keeps the later point', () => {
    const cols = columnsOfPoints([...points(0, 3), { step: 1, value: 42, ts: 5 }]);
    expect([...cols.step]).toEqual([0, 1, 2]);
    expect(cols.value[1]).toBe(42);
  });

  it('fill the open tail chunk, and cut a flush at the chunk boundary inside it', () => {
    const series = new Series(8);
    series.write(points(0, 5));
    expect(series.ordered().map((c) => [c.step, c.last])).toEqual([[0, 4]]);
    // 5 more: 3 fill the open chunk, 2 start the next one.
    series.write(points(5, 5));
    expect(series.ordered().map((c) => [c.step, c.last])).toEqual([
      [0, 7],
      [8, 9],
    ]);
    // A full chunk is never rewritten by a later flush.
    const full = series.chunks.get(0);
    series.write(points(10, 20));
    expect(series.chunks.get(0)).toBe(full);
    expect(series.ordered().map((c) => [c.step, c.last])).toEqual([
      [0, 7],
      [8, 15],
      [16, 23],
      [24, 29],
    ]);
    expect(series.points()).toEqual(points(0, 30));
  });

  it('upsert an earlier step within a chunk and across chunks, each step once', () => {
    const series = new Series(8);
    series.write(points(0, 20));
    series.write([{ step: 3, value: -1, ts: 1 }]);
    series.write([
      { step: 7, value: -2, ts: 2 },
      { step: 8, value: -3, ts: 3 },
      { step: 19, value: -4, ts: 4 },
    ]);
    const expected = points(0, 20);
    expected[3] = { step: 3, value: -1, ts: 1 };
    expected[7] = { step: 7, value: -2, ts: 2 };
    expected[8] = { step: 8, value: -3, ts: 3 };
    expected[19] = { step: 19, value: -4, ts: 4 };
    expect(series.points()).toEqual(expected);
    const steps = series.ordered().flatMap((c) => pointsOfChunks([c]).map((p) => p.step));
    expect(new Set(steps).size).toBe(20);
  });

  it('fill a gap between chunks, keeping every chunk within its size', () => {
    const series = new Series(4);
    series.write([...points(0, 4), ...points(10, 4)]);
    series.write(points(4, 6));
    expect(series.points()).toEqual(points(0, 14));
    for (const chunk of series.ordered()) expect(chunk.values.length).toBeLessThanOrEqual(4);
  });

  it('agree with a store keyed by step, for any sequence of writes', () => {
    const batch = fc.array(
      fc.record({ step: fc.nat(60), value: fc.double(), ts: fc.double({ noNaN: true }) }),
      { minLength: 1, maxLength: 30 },
    );
    fc.assert(
      fc.property(
        fc.array(batch, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 9 }),
        (batches, max) => {
          const series = new Series(max);
          const byStep = new Map<number, MetricPoint>();
          for (const b of batches) {
            series.write(b);
            for (const p of b) byStep.set(p.step, p);
          }
          const expected = [...byStep.values()].sort((x, y) => x.step - y.step);
          const got = series.points();
          expect(got.map((p) => p.step)).toEqual(expected.map((p) => p.step));
          expect(bitsOf(got.map((p) => p.value))).toEqual(bitsOf(expected.map((p) => p.value)));
          for (const chunk of series.ordered()) {
            expect(chunk.values.length).toBeGreaterThan(0);
            expect(chunk.values.length).toBeLessThanOrEqual(Math.max(max, 1));
          }
        },
      ),
    );
  });

  it('pack one-point chunks into full ones (the database upgrade)', () => {
    const single = points(0, 10).map((p) => chunkOf(columnsOfPoints([p])));
    const packed = packChunks(single, 4);
    expect(packed.map((c) => [c.step, c.last])).toEqual([
      [0, 3],
      [4, 7],
      [8, 9],
    ]);
    expect(pointsOfChunks(packed)).toEqual(points(0, 10));
  });
});
