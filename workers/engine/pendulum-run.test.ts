/**
 * The "Pendulum world model" example driven as the engine worker drives it
 * (producers in-process here): the run's record keeps the loss, the data
 * engine's telemetry and every wait interval, and a producer failure ends
 * the record with the producer's message.
 */
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { waitKinds } from '../../src/core/data/telemetry';
import { watchedHost } from '../../src/core/live/testing';
import { metricSeries } from '../../src/db/metrics';
import { readRunRecord } from '../../src/db/runs';
import { FlowbenchDb } from '../../src/db/schema';
import { driveRun } from './run-driver';
import { journalTestRun, loadFlow, testDriverOptions } from './testing';

const example = loadFlow('src/examples/pendulum-world-model.flow.json');

let db: FlowbenchDb;
let counter = 0;
afterEach(async () => {
  db.close();
  await db.delete();
});

describe('driveRun on the Pendulum world model example', () => {
  it('records the loss, the data engine telemetry and every wait interval', async () => {
    db = new FlowbenchDb(`pendulum-${++counter}`);
    const id = await journalTestRun(db, example, { steps: 60 });
    expect(await driveRun(id, new AbortController().signal, testDriverOptions(db))).toBe('ok');
    const record = (await readRunRecord(db, id))!;
    expect(record.nodes.map((n) => [n.node, n.status]).sort()).toEqual([
      ['engine', 'ok'],
      ['env', 'ok'],
      ['eval', 'ok'],
      ['model', 'ok'],
      ['sample', 'ok'],
      ['train', 'ok'],
    ]);
    const loss = await metricSeries(db, id, 'train.loss');
    expect(loss).toHaveLength(12);
    expect(loss[0]!.value).toBeGreaterThan(loss.at(-1)!.value);
    expect((await metricSeries(db, id, 'engine.consumed_chunks')).at(-1)?.value).toBe(60 * 32);
    expect((await metricSeries(db, id, 'engine.cache_fill')).length).toBeGreaterThan(60);
    expect(await metricSeries(db, id, 'eval.horizon_error')).toHaveLength(16);
    expect(record.run.result.prediction_error).toBeGreaterThan(0);

    const kinds = new Set(record.intervals.map((i) => i.kind));
    expect([...kinds].every((k) => (waitKinds as readonly string[]).includes(k))).toBe(true);
    expect(kinds).toContain('data_wait'); // for the first generation
    expect(kinds).toContain('usage_throttle'); // held to the planned 4000 chunks/s
    for (const i of record.intervals) expect(i.end).toBeGreaterThanOrEqual(i.start);
    expect(record.nodes.find((n) => n.node === 'engine')?.logs).toMatch(
      /generation 1: requested at \+[\d.]+ s, ready [\d.]+ s later with 32 episodes/,
    );
  });

  it("ends the record with the producer's error when a producer throws", async () => {
    db = new FlowbenchDb(`pendulum-${++counter}`);
    const host = watchedHost((request) =>
      request.generation === 2
        ? Promise.reject(new Error('NaN in the dynamics'))
        : Promise.resolve(),
    );
    const id = await journalTestRun(db, example, {});
    const options = { ...testDriverOptions(db), producers: host };
    expect(await driveRun(id, new AbortController().signal, options)).toBe('error');
    const record = (await readRunRecord(db, id))!;
    expect(record.run.statusReason).toMatch(
      /^node 'train' failed: Producer [01] failed while producing generation 2: NaN in the dynamics$/,
    );
    for (const producer of host.made) expect(producer.closed).toBe(true);
  });
});
