import { describe, expect, it } from 'vitest';
import type { MetricPoint } from './columns';
import { LiveSeries, type SeriesEnds } from './live-series';

/** A stored series, as the store would answer keyed range reads of it. */
class StoredSeries {
  points: MetricPoint[] = [];
  reads: { after: number | undefined; limit: number }[] = [];
  write(from: number, n: number, value = (s: number) => s * 2): void {
    for (let i = 0; i < n; i++)
      this.points.push({ step: from + i, value: value(from + i), ts: from + i });
  }
  ends(): SeriesEnds {
    return { first: this.points[0], last: this.points.at(-1) };
  }
  readAfter = (after: number | undefined, limit: number) => {
    this.reads.push({ after, limit });
    const rest = this.points.filter((p) => after === undefined || p.step > after);
    return Promise.resolve(rest.slice(0, limit));
  };
}

describe('LiveSeries', () => {
  it('reads a long series in chunks, publishing progress between them', async () => {
    const store = new StoredSeries();
    store.write(0, 25);
    let clock = 0;
    const live = new LiveSeries(store, {
      chunk: 10,
      minChunk: 10,
      maxChunk: 10,
      publishEveryMs: 1,
      now: () => (clock += 1),
    });
    const published: number[] = [];
    const all = await live.update(store.ends(), (s) => published.push(s.length));
    expect(all.length).toBe(25);
    expect([...all.value]).toEqual(store.points.map((p) => p.value));
    expect(store.reads.map((r) => r.after)).toEqual([undefined, 9, 19]);
    expect(published).toEqual([10, 20]);
  });

  it('after a flush, reads only the points past the last one held', async () => {
    const store = new StoredSeries();
    store.write(0, 100);
    const live = new LiveSeries(store, { chunk: 1000, minChunk: 1000 });
    await live.update(store.ends());
    store.write(100, 7);
    store.reads = [];
    const now = await live.update(store.ends());
    expect(store.reads).toEqual([{ after: 99, limit: 1000 }]);
    expect(now.length).toBe(107);
    expect(now.step[106]).toBe(106);
  });

  it('drops what it holds and reads again when the series was deleted and imported anew', async () => {
    const store = new StoredSeries();
    store.write(0, 5);
    const live = new LiveSeries(store);
    await live.update(store.ends());
    store.points = [];
    store.write(0, 5, (s) => -s - 1);
    const now = await live.update(store.ends());
    expect([...now.value]).toEqual([-1, -2, -3, -4, -5]);
  });

  it('starts over when the series got shorter, or is gone', async () => {
    const store = new StoredSeries();
    store.write(0, 5);
    const live = new LiveSeries(store);
    await live.update(store.ends());
    store.points = store.points.slice(0, 2);
    expect((await live.update(store.ends())).length).toBe(2);
    store.points = [];
    expect((await live.update(store.ends())).length).toBe(0);
  });

  it('stops between chunks once closed', async () => {
    const store = new StoredSeries();
    store.write(0, 50);
    const live = new LiveSeries(store, { chunk: 10, minChunk: 10, maxChunk: 10 });
    let open = 2;
    await live.update(store.ends(), undefined, () => --open < 0);
    expect(store.reads).toHaveLength(3);
  });

  it('adapts the chunk to how long reads take: bigger while fast, smaller when slow', async () => {
    const limits = async (msPerPoint: number) => {
      const store = new StoredSeries();
      store.write(0, 20_000);
      let clock = 0;
      const timed = {
        readAfter: (after: number | undefined, limit: number) => {
          clock += limit * msPerPoint;
          return store.readAfter(after, limit);
        },
      };
      const live = new LiveSeries(timed, {
        chunk: 1000,
        minChunk: 250,
        targetMs: 24,
        now: () => clock,
      });
      expect((await live.update(store.ends())).length).toBe(20_000);
      return store.reads.slice(0, 4).map((r) => r.limit);
    };
    expect(await limits(0.01)).toEqual([1000, 2000, 2000, 2000]);
    expect(await limits(0.05)).toEqual([1000, 500, 250, 250]);
    expect(await limits(0.001)).toEqual([1000, 2000, 4000, 8000]);
  });
});
