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
import type { PoolReport } from './pool-events';
import { EnginePools, engineProgramHost } from './programs';
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

  it('trains and evaluates as programs admitted by the engine pool, and fails up front when they cannot fit', async () => {
    db = new FlowbenchDb(`pendulum-${++counter}`);
    const pools = new EnginePools(() => null);
    const reports: PoolReport[] = [];
    const id = await journalTestRun(db, example, { steps: 20 });
    const status = await driveRun(id, new AbortController().signal, {
      ...testDriverOptions(db),
      programHost: (runtime, runId) =>
        engineProgramHost(runtime, pools, {
          onTick: (node, backend, { mode, tick, pool, requests }, final) =>
            reports.push({ runId, node, backend, mode, tick, final, pool, requests }),
        }),
    });
    expect(status).toBe('ok');
    const during = (node: string) => reports.find((r) => r.node === node && !r.final)!;
    // The train step resident, its weights and Adam's state reserved while it trains.
    expect(during('train').pool.residentModels.map((m) => m.name)).toContain('train train step');
    expect(during('train').pool.reserved).toBeGreaterThan(0);
    expect(during('train').requests[0]).toMatchObject({
      request: 'train',
      step: 'train',
      units: 20,
    });
    expect(during('eval').pool.residentModels.map((m) => m.name)).toContain('eval inference');
    expect(during('eval').requests[0]).toMatchObject({
      request: 'eval',
      step: 'rollout',
      units: 16,
    });
    expect(reports.filter((r) => r.final).map((r) => r.node)).toEqual(['train', 'eval']);
    expect(pools.pool('wasm').used).toBe(0);

    pools.setBudget('wasm', 20_000);
    const small = await journalTestRun(db, example, { steps: 20 });
    expect(
      await driveRun(small, new AbortController().signal, {
        ...testDriverOptions(db),
        programHost: (runtime) => engineProgramHost(runtime, pools),
      }),
    ).toBe('error');
    const record = (await readRunRecord(db, small))!;
    expect(record.nodes.find((n) => n.node === 'train')?.error).toMatch(
      /^train: step needs [\d.]+ KB peak \+ [\d.]+ KB resident \(weights, optimizer state\).* pool is 20 KB$/,
    );
    expect(pools.pool('wasm').used).toBe(0);
  });
});
