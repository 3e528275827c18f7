/**
 * The writer of the write-to-pixel bench: a worker with its own Dexie
 * connection that commits metric points the way the run driver does
 * (a `RunMetricWriter` per run, one transaction per batch) and says when
 * each committed.
 */
import type { MetricRow, RunId } from '../../src/core/run/record';
import { RunMetricWriter } from '../../src/db/metric-writer';
import { FlowbenchDb } from '../../src/db/schema';
import type { WriterReply, WriterRequest } from './chart-api';

const db = new FlowbenchDb();
/** Rows per transaction while writing the untimed base series. */
const BASE_SLICE = 5_000;
const writers = new Map<string, RunMetricWriter>();
const writerOf = (runId: string) => {
  let writer = writers.get(runId);
  if (!writer) writers.set(runId, (writer = new RunMetricWriter(db, runId as RunId)));
  return writer;
};

const rows = (runId: string, name: string, from: number, n: number): MetricRow[] =>
  Array.from({ length: n }, (_, i) => ({
    runId: runId as RunId,
    name,
    step: from + i,
    value: 1 / (1 + (from + i) / 1000) + 0.01 * Math.sin(from + i),
    ts: Date.now() / 1000,
  }));

async function write(request: WriterRequest): Promise<WriterReply> {
  const writer = writerOf(request.runId);
  if (request.type === 'base')
    for (let from = 0; from < request.points; from += BASE_SLICE)
      await writer.put(
        rows(request.runId, request.name, from, Math.min(BASE_SLICE, request.points - from)),
      );
  else await writer.put(rows(request.runId, request.name, request.from, request.points));
  return {
    committedAt: performance.timeOrigin + performance.now(),
    total: request.type === 'base' ? request.points : request.from + request.points,
  };
}

self.onmessage = (event: MessageEvent<WriterRequest>) => {
  write(event.data).then(
    (reply) => self.postMessage(reply),
    (error: unknown) => self.postMessage({ error: String(error) }),
  );
};
