/**
 * Every metric of the picked runs as one file a notebook reads: two short
 * runs of the default example, picked, exported as CSV and JSON in long
 * format; each run's points are there, value for value as its own export.
 * Then the same comparison as a portable report (report.spec.ts says more).
 */
import { expect, test } from './fixtures';
import { MetricsExport } from './pages/metrics-export';
import { exportReport, openOffline } from './support/report';

test('the picked runs export every metric in long format and as a report, the numbers those of the runs', async ({
  page,
  context,
  params,
  toolbar,
  runs,
  alerts,
}, testInfo) => {
  const exporter = new MetricsExport(page);
  await params.set('steps', 10);
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');
  await params.set('lr', 0.05);
  await toolbar.run();
  await expect(runs.rows).toHaveCount(2);
  for (const row of await runs.rows.all()) await runs.expectStatus(row, 'ok');

  await expect(exporter.csvButton).toBeDisabled();
  await runs.pick(runs.rows.nth(0));
  await runs.pick(runs.rows.nth(1));
  const files = await runs.exportPicked(2);

  const csv = await exporter.csv();
  expect(csv.filename).toBe('flowbench-metrics-2-runs.csv');
  const [header, ...lines] = csv.text.trimEnd().split('\n');
  expect(header).toBe('run,metric,step,value,wall_time');
  const rows = lines.map((line) => {
    const [run, metric, step, value, wallTime] = line.split(',');
    return { run, metric, step: Number(step), value: Number(value), wallTime: Number(wallTime) };
  });
  // Each run's series, point for point as its run file holds them.
  for (const file of files) {
    const id = file.json.run.id;
    const loss = file.json.metrics['train.loss'] ?? [];
    expect(loss.length).toBe(2);
    expect(
      rows.filter((r) => r.run === id && r.metric === 'train.loss').map((r) => [r.step, r.value]),
    ).toEqual(loss.map((point) => [point[0], point[1]]));
    for (const metric of Object.keys(file.json.metrics))
      expect(
        rows.some((r) => r.run === id && r.metric === metric),
        metric,
      ).toBe(true);
  }
  expect(rows.every((r) => r.wallTime > 1.7e9)).toBe(true);

  const json = await exporter.json();
  expect(json.filename).toBe('flowbench-metrics-2-runs.json');
  expect(json.json.format).toBe('flowbench.metrics-long/1');
  expect(json.json.rows.map((r) => [r.run, r.metric, r.step, r.value])).toEqual(
    rows.map((r) => [r.run, r.metric, r.step, r.value]),
  );
  await expect(alerts.all).toHaveCount(0);

  // The comparison as one HTML file: offline, drawn, interactive, the runs' numbers.
  const report = await openOffline(
    context,
    await exportReport(page, testInfo.outputPath('r.html')),
  );
  const chart = report.getByRole('img', { name: 'Chart: train.loss', exact: true });
  await expect(chart).toHaveAttribute('data-drawn', 'true');
  const losses = files.map((f) => f.json.metrics['train.loss'] ?? []);
  await expect(chart).toHaveAttribute('data-points', String(losses[0]!.length + losses[1]!.length));
  const legend = report.getByRole('list', { name: 'Legend: train.loss' });
  const lasts = await legend
    .locator('data')
    .evaluateAll((els) => els.map((el) => Number(el.getAttribute('value'))));
  expect(lasts.sort()).toEqual(losses.map((l) => l.at(-1)![1]).sort());
  await chart.locator('.u-over').hover();
  await expect(chart.locator('.u-legend .u-value').nth(1)).not.toHaveText('--');
  // The run diff marks lr, the one param that differs; a line per run across the axes.
  const diffParams = report.getByRole('table', { name: 'Params' });
  await expect(diffParams.getByRole('row', { name: /^lr\b/ })).toContainText('differs');
  await expect(diffParams.getByText('differs')).toHaveCount(1);
  await expect(
    report.getByRole('img', { name: 'Parallel coordinates' }).locator('polyline'),
  ).toHaveCount(2);
  await expect(report.getByRole('table', { name: 'Fingerprints' })).toContainText('wasm');
});
