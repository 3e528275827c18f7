import { describe, expect, it } from 'vitest';
import { SeriesBuffer } from './series-buffer';

const points = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({ step: from + i, value: (from + i) / 2, ts: 1000 + i }));

describe('SeriesBuffer', () => {
  it('appends batches in order and counts non-finite values', () => {
    const buffer = new SeriesBuffer();
    buffer.append(points(0, 3));
    buffer.append([{ step: 3, value: NaN, ts: 2000 }]);
    const s = buffer.snapshot();
    expect(s.length).toBe(4);
    expect([...s.step]).toEqual([0, 1, 2, 3]);
    expect([...s.value]).toEqual([0, 0.5, 1, NaN]);
    expect(s.nonFinite).toBe(1);
    expect(buffer.lastStep).toBe(3);
  });

  it('never changes a snapshot already taken, across appends that grow the columns', () => {
    const buffer = new SeriesBuffer();
    buffer.append(points(0, 1000));
    const before = buffer.snapshot();
    buffer.append(points(1000, 5000));
    const after = buffer.snapshot();
    expect(before.length).toBe(1000);
    expect(before.step).toHaveLength(1000);
    expect(before.step[999]).toBe(999);
    expect(after.length).toBe(6000);
    expect(after.value[5999]).toBe(5999 / 2);
  });

  it('refuses a point that does not come after the last one held, appending nothing', () => {
    const buffer = new SeriesBuffer();
    buffer.append(points(0, 3));
    expect(() =>
      buffer.append([
        { step: 3, value: 0, ts: 0 },
        { step: 2, value: 0, ts: 0 },
      ]),
    ).toThrow('series point at step 2 comes after step 3: expected steps in increasing order');
    expect(buffer.length).toBe(3);
  });
});
