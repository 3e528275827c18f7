import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeIssues } from '../flow/issues';
import { parseFlow } from '../flow/validate';
import { fromRunExport, RUN_FORMAT, toRunExport, type RunRecord } from './export';
import type { FlowId, MetricRow, RunId, RunRow } from './record';

const flowJson: unknown = JSON.parse(
  readFileSync(new URL('../../examples/spirals-mlp.flow.json', import.meta.url), 'utf8'),
);
const parsedFlow = parseFlow(flowJson);
if (!parsedFlow.ok) throw new Error(describeIssues(parsedFlow.issues));
const flow = parsedFlow.flow;

const runId = '01935f6e-8c4a-7000-8000-000000000001' as RunId;

function runRow(overrides: Partial<RunRow> = {}): RunRow {
  return {
    id: runId,
    flowId: null,
    flow: flow.name,
    flowVersion: 3,
    flowSnapshot: flow,
    params: { lr: 0.05, steps: 10, seed: 2 },
    seed: 2,
    paramsDigest: 'ab'.repeat(32),
    groupId: 'group-1',
    cause: 'sweep',
    backendChoice: 'wasm',
    status: 'ok',
    statusReason: '',
    createdAt: '2024-11-29T16:53:20.000Z',
    startedAt: '2024-11-29T16:53:20.100Z',
    finishedAt: '2024-11-29T16:53:21.600Z',
    durationMs: 1500,
    engine: { backend: 'wasm', adapter: 'none', fallback: false },
    result: { accuracy: 0.97 },
    leaseUntil: null,
    cancelRequestedAt: null,
    requires: [],
    rerunOf: null,
    ...overrides,
  };
}

function metric(name: string, step: number, value: number, ts = 1732900000.123 + step): MetricRow {
  return { runId, name, step, value, ts };
}

function record(metrics: MetricRow[], run: RunRow = runRow()): RunRecord {
  return {
    run,
    nodes: [
      {
        runId,
        node: 'data',
        status: 'ok',
        startedAt: '2024-11-29T16:53:20.100Z',
        durationMs: 3,
        error: '',
        logs: '1200 points',
      },
      {
        runId,
        node: 'eval',
        status: 'skipped',
        startedAt: null,
        durationMs: null,
        error: "skipped: upstream node 'train' did not finish",
        logs: '',
      },
    ],
    metrics,
    artifacts: [
      {
        runId,
        name: 'model',
        node: 'train',
        digest: `sha256:${'cd'.repeat(32)}`,
        size: 4,
        mediaType: 'application/onnx',
        bytes: null,
      },
    ],
    intervals: [{ runId, kind: 'data_wait', start: 0, end: 0.1 }],
  };
}

/** What a file on disk gives back: the export written as JSON and read again. */
function throughJson(rec: RunRecord): unknown {
  return JSON.parse(JSON.stringify(toRunExport(rec))) as unknown;
}

function importOf(input: unknown): RunRecord {
  const result = fromRunExport(input);
  if (!result.ok) throw new Error(describeIssues(result.issues));
  return result.record;
}

const byNameStep = (a: MetricRow, b: MetricRow) =>
  a.name === b.name ? a.step - b.step : a.name < b.name ? -1 : 1;

/** Rows equal field for field, numbers compared with Object.is (NaN, -0 included). */
function expectSameMetrics(actual: readonly MetricRow[], expected: readonly MetricRow[]) {
  const a = [...actual].sort(byNameStep);
  const e = [...expected].sort(byNameStep);
  expect(a.length).toBe(e.length);
  a.forEach((row, i) => {
    const want = e[i]!;
    expect(row.runId).toBe(want.runId);
    expect(row.name).toBe(want.name);
    expect(row.step).toBe(want.step);
    if (!Object.is(row.value, want.value) || !Object.is(row.ts, want.ts))
      throw new Error(
        `point ${row.name}[${row.step}] came back as (${row.value}, ${row.ts}), expected (${want.value}, ${want.ts})`,
      );
  });
}

describe('run export round trip', () => {
  it('gives back the same record, field for field, through JSON text', () => {
    const original = record([
      metric('train.loss', 0, 2.31),
      metric('train.loss', 1, 2.11),
      metric('eval.accuracy', 0, 0.97),
    ]);
    const back = importOf(throughJson(original));
    expect(back.run).toEqual(original.run);
    expect(back.nodes).toEqual(original.nodes);
    expect(back.artifacts).toEqual(original.artifacts);
    expect(back.intervals).toEqual(original.intervals);
    expectSameMetrics(back.metrics, original.metrics);
  });

  it('keeps NaN, ±Infinity, -0 and extreme values bit for bit', () => {
    const values = [
      Number.NaN,
      Infinity,
      -Infinity,
      -0,
      0,
      1e308,
      -1e308,
      Number.MAX_VALUE,
      Number.MIN_VALUE,
      -Number.MIN_VALUE,
      0.1 + 0.2,
    ];
    const original = record(values.map((v, step) => metric('train.loss', step, v)));
    const back = importOf(throughJson(original));
    expectSameMetrics(back.metrics, original.metrics);
    back.metrics.forEach((row, i) => expect(Object.is(row.value, values[i])).toBe(true));
  });

  it('writes a non-finite point as null with the value kept beside it', () => {
    const doc = toRunExport(
      record([metric('train.loss', 0, Number.NaN, 5), metric('train.loss', 1, 1.5, 6)]),
    );
    expect(JSON.parse(JSON.stringify(doc.metrics))).toEqual({
      'train.loss': [
        [0, null, 5, 'NaN'],
        [1, 1.5, 6],
      ],
    });
  });

  it('groups metrics by name in step order, whatever order the rows come in', () => {
    const doc = toRunExport(
      record([metric('b.x', 1, 1), metric('a.y', 0, 2), metric('b.x', 0, 3)]),
    );
    expect(Object.keys(doc.metrics)).toEqual(['a.y', 'b.x']);
    expect(doc.metrics['b.x']!.map((p) => p[0])).toEqual([0, 1]);
  });

  it('drops what is local to this browser: the library flow id, the lease, a cancel request', () => {
    const original = record(
      [],
      runRow({
        flowId: 'f-1' as FlowId,
        leaseUntil: 123,
        cancelRequestedAt: '2024-11-29T16:53:21.000Z',
      }),
    );
    const doc = throughJson(original);
    expect(doc).not.toHaveProperty('run.cancelRequestedAt');
    const back = importOf(doc);
    expect(back.run).toEqual({
      ...original.run,
      flowId: null,
      leaseUntil: null,
      cancelRequestedAt: null,
    });
  });

  it('round-trips any generated metric series (property)', () => {
    const names = fc.constantFrom('train.loss', 'eval.accuracy', 'sim.reward', 'a-b.c_d');
    const point = fc.record({
      name: names,
      value: fc.double(),
      ts: fc.double({ min: 0, max: 4e9, noNaN: true, noDefaultInfinity: true }),
    });
    fc.assert(
      fc.property(fc.array(point, { maxLength: 40 }), (points) => {
        const steps = new Map<string, number>();
        const rows = points.map(({ name, value, ts }) => {
          const step = steps.get(name) ?? 0;
          steps.set(name, step + 1);
          return metric(name, step, value, Object.is(ts, -0) ? 0 : ts);
        });
        const original = record(rows);
        const back = importOf(throughJson(original));
        expectSameMetrics(back.metrics, original.metrics);
        expect(back.run).toEqual(original.run);
      }),
      { numRuns: 3000 },
    );
  });

  it('never throws on arbitrary input, only refuses it (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const result = fromRunExport(value);
        if (!result.ok) expect(result.issues.length).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('run import refuses malformed files, naming the field', () => {
  const valid = () =>
    throughJson(record([metric('train.loss', 0, 1), metric('train.loss', 1, 2)])) as Record<
      string,
      unknown
    > & { run: Record<string, unknown>; metrics?: Record<string, unknown[]>; nodes?: unknown };

  function pathsOf(input: unknown): string[] {
    const result = fromRunExport(input);
    expect(result.ok).toBe(false);
    return result.ok ? [] : result.issues.map((i) => i.path);
  }

  it('accepts the valid document these cases start from', () => {
    expect(fromRunExport(valid()).ok).toBe(true);
  });

  it('refuses another format, and a newer version of its own, by name', () => {
    const expected = `expected "${RUN_FORMAT}" (or an older "flowbench.run/1")`;
    for (const format of ['flowbench.run/3', 'flowbench.flow/1', 'flowbench.run/x', 7]) {
      const doc = valid();
      doc.format = format;
      const result = fromRunExport(doc);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.issues).toEqual([{ path: 'format', message: expected }]);
    }
  });

  it('refuses a truncated document, naming what is missing', () => {
    const doc = valid();
    delete doc.nodes;
    delete doc.metrics;
    expect(pathsOf(doc).sort()).toEqual(['metrics', 'nodes']);
    expect(pathsOf({ format: RUN_FORMAT })).toEqual(
      expect.arrayContaining(['run', 'flow', 'nodes', 'metrics']),
    );
  });

  it('refuses a run without an id', () => {
    const doc = valid();
    delete doc.run.id;
    expect(pathsOf(doc)).toEqual(['run.id']);
    doc.run.id = '';
    expect(pathsOf(doc)).toEqual(['run.id']);
  });

  it('refuses a bad metric point, naming the series and the point', () => {
    for (const bad of [
      [1, 'x', 2],
      [1, null, 2],
      [1, null, 2, 'Inf'],
      [-1, 2, 2],
      [0.5, 2, 2],
      [1, 2],
    ]) {
      const doc = valid();
      doc.metrics!['train.loss']![1] = bad;
      const paths = pathsOf(doc);
      expect(paths.length).toBeGreaterThan(0);
      for (const path of paths) expect(path.startsWith('metrics.train.loss[1]')).toBe(true);
    }
  });

  it('refuses a flow snapshot that is not a flow, naming the field inside it', () => {
    const doc = valid();
    (doc.flow as Record<string, unknown>).format = 'other';
    expect(pathsOf(doc)).toEqual(['flow.format']);
  });

  it('refuses an unknown status', () => {
    const doc = valid();
    doc.run.status = 'done';
    expect(pathsOf(doc)).toEqual(['run.status']);
  });
});
