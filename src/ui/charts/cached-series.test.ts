import { describe, expect, it } from 'vitest';
import type { RunId, RunNodeRow } from '../../core/run/record';
import { cachedSources, isCachedSeries, runsForMetric } from './cached-series';
import type { ShownRun } from './plot-model';

const node = (name: string, status: RunNodeRow['status'], from?: string): RunNodeRow => ({
  runId: 'run-b' as RunId,
  node: name,
  status,
  startedAt: null,
  durationMs: null,
  error: '',
  logs: '',
  ...(from !== undefined && { cachedFrom: { runId: from as RunId, node: name } }),
});

describe("a cached node's series", () => {
  const sources = cachedSources([node('train', 'cached', 'run-a'), node('eval', 'ok')]);
  const shown = [
    { id: 'run-b', label: 'run-b', colour: '#111' },
    { id: 'run-c', label: 'run-c', colour: '#222' },
  ] as unknown as ShownRun[];

  it('are read from the run that computed the node, labelled so', () => {
    expect(isCachedSeries('train.loss', sources)).toBe(true);
    expect(isCachedSeries('eval.accuracy', sources)).toBe(false);
    const runs = runsForMetric(shown, 'run-b' as RunId, 'train.loss', sources);
    expect(runs.map((r) => [r.id, r.label])).toEqual([
      ['run-a', 'run-b (cached from run-a)'],
      ['run-c', 'run-c'],
    ]);
  });

  it("leave a node that ran, and the other shown runs' series, as they are", () => {
    expect(runsForMetric(shown, 'run-b' as RunId, 'eval.loss', sources)).toBe(shown);
  });
});
