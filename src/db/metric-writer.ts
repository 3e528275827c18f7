/**
 * The metric writer of a run being driven: the run driver's flushes go
 * through it.
 *
 * A driven run's series start empty (a run is driven once, from `queued`)
 * and only its driver writes them, each flush after the last step written
 * (a step counts a metric's emissions). So the writer keeps each series'
 * open tail chunk as it last wrote it, and a flush that appends fills that
 * chunk and starts new ones without reading any. `putMetrics` reads the
 * tail back first, with a reverse seek per series; in a store where many
 * rows were just deleted (runs removed, say), the store's reverse seek
 * walks every deleted row before the series: the first flush of a run took
 * 1.4 s there, and each flush paid its reads. A write that does not append
 * (a step at or before the last one written) reads what it touches, as
 * `putMetrics` does. The tails are taken as written only once the
 * transaction has committed; one `put` at a time (the metric batcher
 * writes a batch once the one before it has landed).
 */
import type { MetricRow, RunId } from '../core/run/record';
import { columnsOfPoints, type MetricChunk } from '../core/series/chunk';
import { bySeries, lastChunk, putMetrics, rewriteSeries } from './metrics';
import type { FlowbenchDb } from './schema';

export class RunMetricWriter {
  /** Each series written so far: its last chunk as stored. */
  private readonly tails = new Map<string, MetricChunk>();

  constructor(
    private readonly db: FlowbenchDb,
    private readonly runId: RunId,
  ) {}

  /** Write points of this run, in one transaction; a point already stored at its step is replaced. */
  async put(rows: readonly MetricRow[]): Promise<void> {
    if (rows.length === 0) return;
    const other = rows.find((row) => row.runId !== this.runId);
    if (other)
      throw new Error(
        `a metric point of run ${other.runId} given to the writer of run ${this.runId}`,
      );
    const written = new Map<string, MetricChunk | undefined>();
    await this.db.transaction('rw', this.db.metrics, async () => {
      for (const points of bySeries(rows).values())
        written.set(points[0]!.name, await this.putSeries(points));
    });
    for (const [name, tail] of written)
      if (tail) this.tails.set(name, tail);
      else this.tails.delete(name);
  }

  /** One series' points; resolves with the series' last chunk after them. */
  private async putSeries(points: readonly MetricRow[]): Promise<MetricChunk | undefined> {
    const { name } = points[0]!;
    const columns = columnsOfPoints(points);
    const tail = this.tails.get(name);
    if (tail && columns.step[0]! <= tail.last) {
      await putMetrics(this.db, points);
      return lastChunk(this.db, this.runId, name);
    }
    const put = await rewriteSeries(this.db, this.runId, name, tail ? [tail] : [], columns);
    return put.at(-1);
  }
}
