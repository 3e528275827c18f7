import { expect, it } from 'vitest';
import type { RunId, RunRow } from './record';
import { runEntryOf, type RunEntry } from './run-entry';
import {
  defaultRunListQuery,
  describeRunParams,
  groupProgress,
  queryRuns,
  sortableNames,
} from './run-list';

function run(id: string, changes: Partial<RunRow>): RunEntry {
  return runEntryOf(row(id, changes), 0);
}

function row(id: string, changes: Partial<RunRow>): RunRow {
  return {
    id: id as RunId,
    flowId: null,
    flow: 'spirals',
    flowVersion: 1,
    flowSnapshot: {
      format: 'flowbench.flow/1',
      name: 'spirals',
      inputs: [],
      outputs: [],
      nodes: [],
      edges: [],
    },
    params: {},
    seed: 0,
    paramsDigest: '',
    groupId: null,
    cause: 'ui',
    backendChoice: 'auto',
    requires: [],
    rerunOf: null,
    status: 'ok',
    statusReason: '',
    createdAt: '',
    startedAt: null,
    finishedAt: null,
    durationMs: null,
    engine: null,
    result: {},
    leaseUntil: null,
    cancelRequestedAt: null,
    ...changes,
  };
}

const runs = [
  run('a', { params: { lr: 0.1 }, result: { accuracy: 0.9 }, durationMs: 30 }),
  run('b', { params: { lr: 0.01 }, result: { accuracy: 0.95 }, status: 'error', groupId: 'g' }),
  run('c', { params: { lr: 0.03 }, flow: 'moons', status: 'running', groupId: 'g', seed: 2 }),
];
const ids = (rows: RunEntry[]) => rows.map((r) => r.id);

it('lists newest first by default', () => {
  expect(ids(queryRuns(runs, defaultRunListQuery))).toEqual(['c', 'b', 'a']);
});

it('sorts by a param or a result either way, runs without the value last', () => {
  expect(
    ids(queryRuns(runs, { ...defaultRunListQuery, sort: 'param:lr', descending: false })),
  ).toEqual(['b', 'c', 'a']);
  expect(ids(queryRuns(runs, { ...defaultRunListQuery, sort: 'result:accuracy' }))).toEqual([
    'b',
    'a',
    'c',
  ]);
  expect(ids(queryRuns(runs, { ...defaultRunListQuery, sort: 'param:seed' }))).toEqual([
    'c',
    'a',
    'b',
  ]);
});

it('filters by status and by words in flow, params and results', () => {
  expect(ids(queryRuns(runs, { ...defaultRunListQuery, status: 'error' }))).toEqual(['b']);
  expect(ids(queryRuns(runs, { ...defaultRunListQuery, text: 'moons' }))).toEqual(['c']);
  expect(ids(queryRuns(runs, { ...defaultRunListQuery, text: 'lr=0.1' }))).toEqual(['a']);
  expect(ids(queryRuns(runs, { ...defaultRunListQuery, text: 'spirals ok' }))).toEqual(['a']);
});

it('counts finished runs per sweep group', () => {
  expect(groupProgress(runs).get('g')).toEqual({ done: 1, total: 2 });
  expect(sortableNames(runs)).toEqual({ params: ['lr', 'seed'], results: ['accuracy'] });
});

it('lists a run recorded with its defaults left out by the values it ran with', () => {
  const snapshot = {
    ...row('x', {}).flowSnapshot,
    inputs: [
      { name: 'lr', type: 'number' as const, default: 0.1 },
      { name: 'seed', type: 'int' as const, default: 0 },
    ],
  };
  const old = run('d', { flowSnapshot: snapshot, params: {}, seed: 4 });
  expect(describeRunParams(old)).toBe('lr=0.1 seed=4');
  expect(ids(queryRuns([old, runs[1]!], { ...defaultRunListQuery, text: 'lr=0.1' }))).toEqual([
    'd',
  ]);
  expect(
    ids(
      queryRuns([old, runs[1]!], { ...defaultRunListQuery, sort: 'param:lr', descending: false }),
    ),
  ).toEqual(['b', 'd']);
});
