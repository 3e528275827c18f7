import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunId } from '../core/run/record';
import type { RunNodeRow } from '../core/records/run-node';
import { finalValues, seriesOfRun } from './cache-links';
import { addMetrics } from './metrics';
import { addRunNodes } from './run-nodes';
import { FlowbenchDb } from './schema';

const opened: FlowbenchDb[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.delete();
});

const first = 'run-first' as RunId;
const second = 'run-second' as RunId;

const node = (runId: RunId, id: string, extra: Partial<RunNodeRow> = {}): RunNodeRow => ({
  runId,
  node: id,
  status: 'ok',
  startedAt: null,
  durationMs: 1,
  error: '',
  logs: '',
  ...extra,
});

const series = (runId: RunId, name: string, values: number[]) =>
  values.map((value, step) => ({ runId, name, step, value, ts: step }));

/** Two runs of one flow: the second took `train` from the first's cache and ran `eval` itself. */
async function cachedPair(): Promise<FlowbenchDb> {
  const db = new FlowbenchDb(`flowbench-test-links-${crypto.randomUUID()}`);
  opened.push(db);
  await addRunNodes(db, [
    node(first, 'train'),
    node(first, 'eval'),
    node(second, 'train', { status: 'cached', cachedFrom: { runId: first, node: 'train' } }),
    node(second, 'eval'),
  ]);
  await addMetrics(db, [
    ...series(first, 'train.loss', [0.9, 0.5, 0.25]),
    ...series(first, 'eval.accuracy', [0.7]),
    ...series(second, 'eval.accuracy', [0.8, Number.NaN]),
  ]);
  return db;
}

describe("a run's series through the cache's links", () => {
  it("names a cached node's series and reads them from the run that computed it", async () => {
    const db = await cachedPair();
    const linked = await seriesOfRun(db, second);
    expect(linked.names).toEqual(['eval.accuracy', 'train.loss']);
    expect(linked.runOf('train.loss')).toBe(first);
    expect(linked.runOf('eval.accuracy')).toBe(second);
  });

  it("gives each run's last value of every metric, a cached node's included", async () => {
    const db = await cachedPair();
    const finals = await finalValues(db, [first, second], second);
    expect(finals.get(first)).toEqual({ 'train.loss': 0.25, 'eval.accuracy': 0.7 });
    // Its accuracy ended on NaN: no final value to draw.
    expect(finals.get(second)).toEqual({ 'train.loss': 0.25 });
  });
});
