/**
 * Portable reports: one whose every name is hostile (script, markup,
 * `javascript:` URLs), made by the app's own report writer with uPlot as
 * shipped, opens offline in Chromium, shows the names as text and runs
 * nothing; runs grouped by a param are drawn as the charts draw them, a mean
 * with its min–max band filled. (The report of a real comparison, its charts drawn and its numbers
 * the runs', is checked at the end of export-metrics.spec.ts, on the two runs
 * that spec makes.)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect, test } from './fixtures';
import { openOffline } from './support/report';
import { reportHtml } from '../src/ui/report/html';
import type { ReportData } from '../src/ui/report/report-data';

test('a report whose names hold script, markup and javascript: URLs shows them and runs nothing', async ({
  context,
}, testInfo) => {
  const hostile =
    '</script><script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">';
  const url = 'javascript:window.pwned = 3';
  const run = (id: string, lr: number) => ({
    id,
    label: `${hostile} ${id}`,
    colour: '#4e79a7',
    flow: hostile,
    status: 'ok',
    seed: 0,
    params: { [url]: lr },
    result: {},
    facts: [{ label: hostile, value: url }],
    finals: { [hostile]: lr },
  });
  const data: ReportData = {
    title: hostile,
    created: '2026-12-02T00:00:00.000Z',
    settings: { xMode: 'step', log: false, logX: false, smoothing: 0, groupBy: url },
    runs: [run('a', 0.1), run('b', 0.2)],
    parallel: null,
    metrics: [
      {
        name: hostile,
        series: ['a', 'b'].map((id) => ({ run: id, step: [1, 2], value: [2, 1], ts: [1, 2] })),
      },
      {
        name: `${hostile} grouped`,
        series: [],
        groups: [
          {
            label: `${url}=${hostile}`,
            colour: '#4e79a7',
            runs: ['a', 'b'],
            x: [1, 2, 3],
            mean: [2, 1.5, 1],
            band: { low: [1, 1, 0.5], high: [3, 2, 1.5] },
          },
        ],
      },
    ],
    diff: {
      a: 'a',
      b: 'b',
      params: [{ name: url, a: hostile, b: 0.2, same: false }],
      flow: [`${hostile}: added (${url})`],
      fingerprints: [{ key: 'k', label: hostile, a: url, b: url, same: true }],
      metrics: [{ metric: hostile, a: 1, b: 1, aPoints: 2, bPoints: 2, identical: true }],
    },
  };
  const uplot = (file: string) =>
    readFileSync(createRequire(import.meta.url).resolve(`uplot/dist/${file}`), 'utf8');
  const path = testInfo.outputPath('hostile.html');
  writeFileSync(
    path,
    reportHtml(data, {
      uplotScript: uplot('uPlot.iife.min.js'),
      uplotStyle: uplot('uPlot.min.css'),
    }),
  );

  const report = await openOffline(context, path);
  await expect(report.getByRole('heading', { level: 1 })).toHaveText(hostile);
  await expect(report.getByRole('img', { name: `Chart: ${hostile}`, exact: true })).toHaveAttribute(
    'data-drawn',
    'true',
  );
  const grouped = report.getByRole('img', { name: `Chart: ${hostile} grouped` });
  await expect(grouped).toHaveAttribute('data-drawn', 'true');
  await expect(grouped).toHaveAttribute('data-bands', '1');
  await expect(grouped).toHaveAttribute('data-points', '3');
  await expect(report.getByRole('list', { name: `Legend: ${hostile} grouped` })).toContainText(
    `${url}=${hostile} · mean of 2 runs, min–max band last 1`,
  );
  await expect(report.getByRole('table', { name: 'Runs' })).toContainText(url);
  await expect(report.getByRole('region', { name: 'Flow changes' })).toContainText(hostile);
  expect(await report.evaluate(() => 'pwned' in window)).toBe(false);
  expect(await report.locator('img, a').count()).toBe(0);
});
