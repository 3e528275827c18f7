/**
 * The crash fuzzer's own contracts: a seed names one scenario (so a failing
 * seed replays), every scenario can be carried out, and the invariants catch
 * the stores they are meant to catch.
 */
import { describe, expect, it } from 'vitest';
import {
  firstDifference,
  poolOverruns,
  violations,
  type StoredRunRow,
  type StoredState,
} from './invariants';
import { describeScenario, FIXED_SEEDS, scenarioFor } from './scenario';

describe('scenarioFor', () => {
  it('gives the same actions for the same seed, and others for another', () => {
    expect(scenarioFor(7)).toEqual(scenarioFor(7));
    expect(describeScenario(scenarioFor(7))).toEqual(describeScenario(scenarioFor(7)));
    expect(describeScenario(scenarioFor(8))).not.toEqual(describeScenario(scenarioFor(7)));
  });

  it('only asks what can be done: runs from a tab with an engine, never closing the last tab', () => {
    for (let seed = 0; seed < 500; seed++) {
      const { tabs, steps } = scenarioFor(seed);
      const open = new Set(Array.from({ length: tabs }, (_, i) => i));
      const engineless = new Set<number>();
      expect(steps[0]!.action.kind).toMatch(/^(run|sweep)$/);
      for (const { afterMs, action } of steps) {
        expect(afterMs).toBeGreaterThanOrEqual(0);
        if (action.kind === 'open') expect(open.has(action.tab)).toBe(false);
        else
          expect(open.has(action.tab), `seed ${seed}: ${action.kind} on a closed tab`).toBe(true);
        if (action.kind === 'run' || action.kind === 'sweep' || action.kind === 'terminate')
          expect(engineless.has(action.tab), `seed ${seed}: ${action.kind} without an engine`).toBe(
            false,
          );
        if (action.kind === 'close') {
          expect(open.size, `seed ${seed}: closes the last tab`).toBeGreaterThan(1);
          open.delete(action.tab);
          engineless.delete(action.tab);
        }
        if (action.kind === 'open') open.add(action.tab);
        if (action.kind === 'terminate') engineless.add(action.tab);
        if (action.kind === 'reload') engineless.delete(action.tab);
      }
    }
  });
});

describe('FIXED_SEEDS', () => {
  it('between them take every kind of action but a later visit: runs, sweeps and each fault', () => {
    const kinds = new Set(
      FIXED_SEEDS.flatMap((seed) => scenarioFor(seed).steps.map((step) => step.action.kind)),
    );
    expect([...kinds].sort()).toEqual(
      ['cancel', 'close', 'quota', 'reload', 'run', 'sweep', 'terminate'].sort(),
    );
  });
});

describe('violations', () => {
  const run = (id: string, status: string, steps = 10): StoredRunRow => ({
    id,
    status,
    leaseUntil: null,
    paramsDigest: `digest-${steps}`,
    params: { steps },
    engine: { backend: 'wasm' },
    flowSnapshot: { nodes: [{ id: 'train' }] },
    finishedAt: '2026-01-01T00:00:10.000Z',
    cancelRequestedAt: null,
  });
  const node = (runId: string, status: string) => ({
    runId,
    node: 'train',
    status,
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 5,
    error: status === 'error' ? 'boom' : '',
  });
  const loss = (runId: string, values: number[]) =>
    values.map((value, step) => ({ runId, name: 'train.loss', step, value }));
  const store = (over: Partial<StoredState>): StoredState => ({
    now: 0,
    runs: [run('a', 'ok')],
    nodes: [node('a', 'ok')],
    metrics: loss('a', [0.9, 0.7]),
    ...over,
  });

  it('finds nothing in a consistent store', () => {
    expect(violations(store({}))).toEqual([]);
  });

  it("reads a cached node's series from the run that computed it", () => {
    const cached = { ...node('b', 'cached'), cachedFrom: { runId: 'a', node: 'train' } };
    const both = { runs: [run('a', 'ok'), run('b', 'ok')], nodes: [node('a', 'ok'), cached] };
    expect(violations(store(both))).toEqual([]);
    // Taken from a run whose series is short, the cached run's is short too.
    expect(violations(store({ ...both, metrics: loss('a', [0.9]) }))).toContain(
      'run b (ok) train.loss has 1 points, its 10 steps emit 2',
    );
  });

  it('names a run that never ended', () => {
    expect(violations(store({ runs: [run('a', 'queued')], nodes: [] }))).toEqual([
      'run a (queued) never ended (no lease)',
    ]);
  });

  it('names a gap, a duplicate and a short ok series', () => {
    const gap = [...loss('a', [0.9]), { runId: 'a', name: 'train.loss', step: 2, value: 0.5 }];
    expect(violations(store({ metrics: gap }))).toContain(
      'run a (ok) train.loss: point 1 has step 2 (gap or duplicate)',
    );
    const twice = [...loss('a', [0.9, 0.7]), ...loss('a', [0.9])];
    expect(violations(store({ metrics: twice })).join('\n')).toMatch(/gap or duplicate/);
    expect(violations(store({ metrics: loss('a', [0.9]) }))).toEqual([
      'run a (ok) train.loss has 1 points, its 10 steps emit 2',
    ]);
  });

  it('names a half-written node outcome and a node left running in an ended run', () => {
    const half = { ...node('a', 'ok'), durationMs: null };
    expect(violations(store({ nodes: [half] }))).toEqual([
      'run a (ok) node train (ok) has no duration',
    ]);
    expect(
      violations(store({ runs: [run('a', 'abandoned')], nodes: [node('a', 'running')] })),
    ).toEqual(['run a (abandoned) node train (running) is still running in an ended run']);
  });

  it('names runs of equal params whose series are not prefixes of one another', () => {
    const runs = [run('a', 'ok'), run('b', 'cancelled')];
    const nodes = [node('a', 'ok'), node('b', 'cancelled')];
    expect(
      violations(store({ runs, nodes, metrics: [...loss('a', [0.9, 0.7]), ...loss('b', [0.9])] })),
    ).toEqual([]);
    expect(
      violations(store({ runs, nodes, metrics: [...loss('a', [0.9, 0.7]), ...loss('b', [0.8])] })),
    ).toEqual(['runs a and b share params but train.loss differs at step 0: 0.9 vs 0.8']);
  });

  it('names a run that ended ok long after a tab asked to cancel it', () => {
    const late = { ...run('a', 'ok'), cancelRequestedAt: '2026-01-01T00:00:01.000Z' };
    expect(violations(store({ runs: [late] }))).toEqual([
      'run a (ok) ended 9000 ms after a cancel request (2026-01-01T00:00:01.000Z)',
    ]);
    const lost = { ...late, cancelRequestedAt: '2026-01-01T00:00:09.000Z' };
    expect(violations(store({ runs: [lost] }))).toEqual([]);
  });

  it('names points and outcomes of a run that has no record', () => {
    expect(violations(store({ metrics: [...loss('a', [0.9, 0.7]), ...loss('z', [1])] }))).toEqual([
      'metric points of run z, which has no record',
    ]);
  });
});

describe('firstDifference', () => {
  it('names the first path where two files differ, ignoring key order', () => {
    expect(firstDifference({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBeNull();
    expect(firstDifference({ run: { x: [1, 2] } }, { run: { x: [1, 3] } })).toBe('run.x.1: 2 vs 3');
    expect(firstDifference({ a: 0 }, { a: -0 })).toBe('a: 0 vs 0');
    expect(firstDifference({ a: 1 }, {})).toBe('a: 1 vs undefined');
  });
});

describe('poolOverruns', () => {
  const booking = (engine: string, bytes: number, leaseUntil = 100) => ({
    engine,
    backend: 'wasm',
    bytes,
    leaseUntil,
  });

  it('finds nothing while the tabs together hold no more than the budget', () => {
    const sample = { now: 50, live: ['a', 'b'], bookings: [booking('a', 60), booking('b', 40)] };
    expect(poolOverruns([sample], { wasm: 100 })).toEqual([]);
  });

  it('names a look where two tabs together held more than the budget', () => {
    const sample = { now: 50, live: ['a'], bookings: [booking('a', 60), booking('b', 41)] };
    expect(poolOverruns([sample], { wasm: 100 })).toEqual([
      'the wasm pool held 101 bytes (2 engines) at 50, its budget is 100',
    ]);
  });

  it('leaves out a dead tab’s booking that no lease or lock vouches for any more', () => {
    const sample = { now: 150, live: ['a'], bookings: [booking('a', 60), booking('b', 60)] };
    expect(poolOverruns([sample], { wasm: 100 })).toEqual([]);
  });
});
