import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import type { FlowDocument } from '../../src/core/flow/document';
import { seriesOfRun } from '../../src/db/cache-links';
import { cacheStats, clearCache, nodeCacheStore } from '../../src/db/node-cache';
import { metricSeries } from '../../src/db/metrics';
import { deleteRuns, importRunRecord, readRunRecord } from '../../src/db/runs';
import { FlowbenchDb } from '../../src/db/schema';
import { driveRun } from './run-driver';
import { journalTestRun, loadFlow, testDriverOptions } from './testing';

const example = loadFlow('src/examples/spirals-mlp.flow.json');

/** The default example with its evaluation split into `requests` requests. */
function withEvalRequests(requests: number): FlowDocument {
  const flow = structuredClone(example);
  flow.nodes.find((n) => n.id === 'eval')!.params.requests = requests;
  return flow;
}

let db: FlowbenchDb;
let counter = 0;
afterEach(async () => {
  db.close();
  await db.delete();
});

/** One store a database, as an engine has one: an entry it was given may not be kept yet. */
const stores = new WeakMap<FlowbenchDb, ReturnType<typeof nodeCacheStore>>();
const cached = () => {
  if (!stores.has(db)) stores.set(db, nodeCacheStore(db, { budgetBytes: () => 1 << 30 }));
  return { ...testDriverOptions(db), nodeCache: stores.get(db)! };
};

async function drive(flow: FlowDocument, changes: Parameters<typeof journalTestRun>[3] = {}) {
  const id = await journalTestRun(db, flow, { steps: 60 }, changes);
  expect(await driveRun(id, new AbortController().signal, cached())).toBe('ok');
  return (await readRunRecord(db, id))!;
}
const statuses = (record: Awaited<ReturnType<typeof drive>>) =>
  Object.fromEntries(record.nodes.map((n) => [n.node, n.status]));

describe('the node-output cache across runs of the default example', () => {
  it('re-runs only the evaluation after its param changed, and its accuracy is a cold run’s', async () => {
    db = new FlowbenchDb(`run-cache-${++counter}`);
    const first = await drive(example);
    const second = await drive(withEvalRequests(2));
    expect(statuses(second)).toEqual({
      data: 'cached',
      split: 'cached',
      model: 'cached',
      train: 'cached',
      eval: 'ok',
    });
    const train = second.nodes.find((n) => n.node === 'train')!;
    expect(train.cachedFrom).toEqual({ runId: first.run.id, node: 'train' });
    // The trained model is the cached run's: its artifact is recorded in this run too.
    expect(second.artifacts.find((a) => a.name === 'model')?.digest).toBe(
      first.artifacts.find((a) => a.name === 'model')?.digest,
    );
    const cold = await drive(withEvalRequests(2), { cache: { use: false } });
    expect(Object.values(statuses(cold))).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(Object.is(second.run.result.accuracy, cold.run.result.accuracy)).toBe(true);
    expect((await cacheStats(db)).entries).toBeGreaterThanOrEqual(5);

    // The first run deleted: the series its cached training links to stay.
    const loss = await metricSeries(db, first.run.id, 'train.loss');
    expect(loss.length).toBeGreaterThan(0);
    await deleteRuns(db, [first.run.id]);
    expect(await readRunRecord(db, first.run.id)).toBeUndefined();
    expect(await metricSeries(db, first.run.id, 'train.loss')).toEqual(loss);
    // Imported again, the run brings its own series, which take the place of those kept.
    await importRunRecord(db, first);
    expect(await metricSeries(db, first.run.id, 'train.loss')).toEqual(loss);

    // The second run's charts and comparisons read its training's series from the first run.
    const series = await seriesOfRun(db, second.run.id);
    expect(series.names).toContain('train.loss');
    expect(series.runOf('train.loss')).toBe(first.run.id);
    expect(series.runOf('eval.accuracy')).toBe(second.run.id);

    // Kept while anything links to them; gone once nothing does.
    await deleteRuns(db, [first.run.id]);
    await clearCache(db);
    expect(await metricSeries(db, first.run.id, 'train.loss')).toEqual(loss);
    await deleteRuns(db, [second.run.id]);
    expect(await metricSeries(db, first.run.id, 'train.loss')).toEqual([]);
  });

  it('runs to the training node without either evaluation, and from it recomputes what is below', async () => {
    db = new FlowbenchDb(`run-cache-${++counter}`);
    const to = await drive(example, { cache: { use: true, to: 'train' } });
    expect(statuses(to)).toMatchObject({ train: 'ok', eval: 'skipped' });
    const from = await drive(example, { cache: { use: true, from: 'train' } });
    expect(statuses(from)).toMatchObject({ data: 'cached', train: 'ok', eval: 'ok' });
    expect(from.run.result.accuracy).toBeGreaterThan(0.5);
  });
});
