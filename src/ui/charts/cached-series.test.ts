import { describe, expect, it } from 'vitest';
import type { RunId } from '../../core/run/record';
import { cachedSources, isCachedSeries, runsForMetric, sourceRuns } from './cached-series';
import type { ShownRun } from './plot-model';

const id = (s: string) => s as RunId;

describe("a cached node's series", () => {
  const sources = cachedSources([
    [id('run-b'), 'train', id('run-a')],
    [id('run-c'), 'train', id('run-x')],
  ]);
  const shown = [
    { id: 'run-b', label: 'run-b', colour: '#111' },
    { id: 'run-c', label: 'run-c', colour: '#222' },
    { id: 'run-d', label: 'run-d', colour: '#333' },
  ] as unknown as ShownRun[];

  it('are read, for each shown run, from the run that computed the node, labelled so', () => {
    expect(isCachedSeries('train.loss', sources)).toBe(true);
    expect(isCachedSeries('eval.accuracy', sources)).toBe(false);
    expect(sourceRuns(sources).sort()).toEqual(['run-a', 'run-x']);
    const runs = runsForMetric(shown, 'train.loss', sources);
    expect(runs.map((r) => [r.id, r.label])).toEqual([
      ['run-a', 'run-b (cached from run-a)'],
      ['run-x', 'run-c (cached from run-x)'],
      ['run-d', 'run-d'],
    ]);
  });

  it('leave a node no shown run has cached as it is', () => {
    expect(runsForMetric(shown, 'eval.loss', sources)).toBe(shown);
  });
});
