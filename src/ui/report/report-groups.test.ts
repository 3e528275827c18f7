import { describe, expect, it } from 'vitest';
import type { MetricPoint } from '../../core/series/columns';
import { reportHtml } from './html';
import type { ReportData } from './report-data';
import { reportGroups } from './report-groups';
import { defaultChartSettings, type ShownRun } from '../charts/plot-model';

/** Three runs of a sweep: two seeds at lr 0.1, one at lr 0.2. */
const runs: ShownRun[] = [
  { id: 'a', label: 'a', colour: '#4e79a7', params: { lr: 0.1 }, seed: 1 },
  { id: 'b', label: 'b', colour: '#f28e2b', params: { lr: 0.1 }, seed: 2 },
  { id: 'c', label: 'c', colour: '#e15759', params: { lr: 0.2 }, seed: 1 },
];
const points = (values: number[]): MetricPoint[] =>
  values.map((value, step) => ({ step, value, ts: 1000 + step }));
const series = [points([4, 2, 1]), points([2, NaN, 3]), points([5, 5])];

describe('a report’s grouped curves', () => {
  it('are the charts’ groups: the mean at each step, the min–max band of a group of several runs', () => {
    expect(reportGroups(runs, series, defaultChartSettings)).toBeUndefined();
    const groups = reportGroups(runs, series, { ...defaultChartSettings, groupBy: 'lr' })!;
    expect(groups).toEqual([
      {
        label: 'lr=0.1',
        colour: '#4e79a7',
        runs: ['a', 'b'],
        x: [0, 1, 2],
        // A non-finite value stays out of the mean and the band, as on screen.
        mean: [3, 2, 2],
        band: { low: [2, 2, 1], high: [4, 2, 3] },
      },
      {
        label: 'lr=0.2',
        colour: '#f28e2b',
        runs: ['c'],
        x: [0, 1],
        mean: [5, 5],
        band: null,
      },
    ]);
  });

  it('carry the smoothed mean, and x in the chart’s unit', () => {
    const [group] = reportGroups(runs.slice(0, 2), series.slice(0, 2), {
      ...defaultChartSettings,
      groupBy: 'lr',
      smoothing: 0.5,
      xMode: 'relative',
    })!;
    expect(group!.x).toEqual([0, 1, 2]);
    expect(group!.smoothed).toHaveLength(3);
    expect(group!.smoothed![0]).toBeCloseTo(3);
    expect(group!.smoothed![2]).not.toBe(group!.mean[2]);
  });

  it('are drawn in the report in place of the runs’ curves, a legend entry per group', () => {
    const groups = reportGroups(runs, series, { ...defaultChartSettings, groupBy: 'lr' })!;
    const run = (r: ShownRun) => ({
      id: r.id,
      label: r.label,
      colour: r.colour,
      flow: 'f',
      status: 'ok',
      seed: r.seed,
      params: r.params as Record<string, number>,
      result: {},
      facts: [],
      finals: {},
    });
    const report: ReportData = {
      title: 'sweep',
      created: '2026-12-02T00:00:00.000Z',
      settings: { xMode: 'step', log: false, logX: false, smoothing: 0, groupBy: 'lr' },
      runs: runs.map(run),
      parallel: null,
      diff: null,
      metrics: [
        {
          name: 'loss',
          series: runs.map((r, i) => ({
            run: r.id,
            step: series[i]!.map((p) => p.step),
            value: series[i]!.map((p) => (Number.isFinite(p.value) ? p.value : null)),
            ts: series[i]!.map((p) => p.ts),
          })),
          groups: [...groups, { ...groups[1]!, label: 'lr=0.3', colour: 'red;x:url(y)' }],
        },
      ],
    };
    const html = reportHtml(report, { uplotScript: '', uplotStyle: '' });
    expect(html).toContain('Runs grouped by lr: each group’s mean, its min–max band shaded.');
    const legend = /aria-label="Legend: loss">(.*?)<\/ul>/s.exec(html)?.[1] ?? '';
    const entries = [...legend.matchAll(/<li>(.*?)<\/li>/gs)].map((m) =>
      m[1]!.replace(/<[^>]+>/g, ''),
    );
    expect(entries).toEqual([
      'lr=0.1 · mean of 2 runs, min–max band last 2',
      'lr=0.2 · mean of 1 run last 5',
      'lr=0.3 · mean of 1 run last 5',
    ]);
    // A group's colour that is not one never reaches a style attribute nor the viewer.
    expect(html).not.toContain('url(y)');
    const inlined = JSON.parse(
      /id="flowbench-report-data">([^<]*)<\/script>/.exec(html)![1]!,
    ) as ReportData;
    expect(inlined.metrics[0]!.groups!.map((g) => g.colour)).toEqual([
      '#4e79a7',
      '#f28e2b',
      '#888888',
    ]);
    expect(inlined.metrics[0]!.groups![0]!.band).toEqual({ low: [2, 2, 1], high: [4, 2, 3] });
  });
});
