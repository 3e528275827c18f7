/**
 * A series that only grows, held as typed columns for a live chart.
 *
 * A running run's series gains a batch of points per flush; re-reading and
 * re-copying a million points for each batch would cost the page more with
 * every minute the run trains. So the chart keeps the points it has read in
 * columns with room to grow (doubling, as a vector does) and appends each
 * batch at the end.
 *
 * A snapshot is the columns cut to the current length. Appending writes only
 * past every snapshot's end, and growing copies into new arrays, so a
 * snapshot never changes once taken: React can hold it and compare it by
 * identity like any immutable value, without a second copy of the points.
 */
import { asColumns, type MetricColumns, type MetricPoint, type SeriesInput } from './columns';

const FIRST_CAPACITY = 1024;

export class SeriesBuffer {
  private step = new Float64Array(0);
  private value = new Float64Array(0);
  private ts = new Float64Array(0);
  private count = 0;
  private nonFinite = 0;

  get length(): number {
    return this.count;
  }

  /** The step of the last point held; `undefined` while empty. */
  get lastStep(): number | undefined {
    return this.count > 0 ? this.step[this.count - 1] : undefined;
  }

  /** The `i`-th point held, or `undefined` past the end. */
  at(i: number): MetricPoint | undefined {
    if (i < 0 || i >= this.count) return undefined;
    return { step: this.step[i]!, value: this.value[i]!, ts: this.ts[i]! };
  }

  /**
   * Appends `points` (as points or as columns, which are copied whole), which
   * must come after every point held, in step order. A point out of order is
   * refused whole (nothing is appended): the chart would draw it in the
   * wrong place.
   */
  append(points: SeriesInput): void {
    const added = asColumns(points);
    let last = this.lastStep ?? -Infinity;
    for (const step of added.step) {
      if (!(step > last))
        throw new RangeError(
          `series point at step ${String(step)} comes after step ${String(last)}: expected steps in increasing order`,
        );
      last = step;
    }
    this.reserve(this.count + added.length);
    this.step.set(added.step, this.count);
    this.value.set(added.value, this.count);
    this.ts.set(added.ts, this.count);
    this.nonFinite += added.nonFinite;
    this.count += added.length;
  }

  /** What is held now, as columns that later appends never change. */
  snapshot(): MetricColumns {
    return {
      length: this.count,
      step: this.step.subarray(0, this.count),
      value: this.value.subarray(0, this.count),
      ts: this.ts.subarray(0, this.count),
      nonFinite: this.nonFinite,
    };
  }

  private reserve(needed: number): void {
    if (needed <= this.step.length) return;
    let capacity = Math.max(FIRST_CAPACITY, this.step.length);
    while (capacity < needed) capacity *= 2;
    const grow = (old: Float64Array) => {
      const next = new Float64Array(capacity);
      next.set(old.subarray(0, this.count));
      return next;
    };
    this.step = grow(this.step);
    this.value = grow(this.value);
    this.ts = grow(this.ts);
  }
}
