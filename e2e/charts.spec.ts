/**
 * Live charts and run comparison (issue 7, "Tests"): a running run's chart
 * grows while it runs; a 3-run sweep overlaid, one curve and one legend entry
 * per run named by what differs; log scale and smoothing; the CSV export holds
 * every run's points; a series with NaN is drawn and its non-finite values
 * counted; the data engine's waits as timeline lanes under the loss, and its
 * cache fill as a series.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from './fixtures';
import { fixtureRunPath } from './support/files';
import type { RunFile } from './support/formats';

const LOSS = 'train.loss';

test('a running run’s chart gains points while it runs', async ({
  toolbar,
  params,
  runs,
  charts,
}) => {
  await params.set('steps', 100000);
  await toolbar.run();
  const row = runs.newest;
  await runs.expectStatus(row, 'running');

  await expect.poll(() => runs.chartPoints(LOSS)).toBeGreaterThan(0);
  const first = await runs.chartPoints(LOSS);
  // No refresh, no button: the same chart shows more points as they are committed.
  await expect.poll(() => runs.chartPoints(LOSS)).toBeGreaterThan(first);
  await runs.expectStatus(row, 'running');
  await charts.expectDrawn(LOSS);

  await toolbar.cancelRun();
  await runs.expectStatus(row, 'cancelled');
});

test.describe('a 3-run sweep over lr, compared', () => {
  /** 40 steps, a loss every 5: 8 points per run. */
  const STEPS = 40;
  const POINTS = 8;
  const LRS = ['0.05', '0.1', '0.2'];

  test.beforeEach(async ({ params, runs }) => {
    await params.set('lr', LRS.join(', '));
    await params.set('steps', STEPS);
    await expect(params.sweepButton).toHaveText(`Run sweep (${LRS.length} runs)`);
    await params.runSweep();
    await expect(runs.rows).toHaveCount(LRS.length);
    for (const row of await runs.rows.all()) await runs.expectStatus(row, 'ok');
  });

  test('picked runs are overlaid: 3 curves, a legend naming each run and its lr', async ({
    runs,
    charts,
    alerts,
  }) => {
    // The selected run alone: one curve.
    await runs.select(runs.rows.last());
    await expect(charts.chart(LOSS)).toHaveAttribute('data-series', '1');
    await expect(charts.legendEntries(LOSS)).toHaveCount(1);

    // Compare sweep picks every run of the sweep.
    await expect(charts.compareSweepButton).toHaveText(`Compare sweep (${LRS.length} runs)`);
    await charts.compareSweepButton.click();
    await expect(charts.compareSweepButton).toBeDisabled();
    for (const row of await runs.rows.all()) await expect(row.getByRole('checkbox')).toBeChecked();

    const chart = charts.chart(LOSS);
    await expect(chart).toHaveAttribute('data-series', String(LRS.length));
    const entries = charts.legendEntries(LOSS);
    await expect(entries).toHaveCount(LRS.length);
    // Each entry names its run (the id's tail) and lr, the only param that differs.
    const named: string[] = [];
    for (const row of await runs.rows.all()) {
      const id = await runs.idOf(row);
      const entry = entries.filter({ hasText: id.slice(-8) });
      await expect(entry).toHaveCount(1);
      const text = (await entry.textContent()) ?? '';
      const lr = /\blr=(\S+)/.exec(text)?.[1];
      expect(lr, `legend entry of ${id}: ${text}`).toBeDefined();
      named.push(String(Number(lr)));
      expect(text).not.toMatch(/\b(steps|seed)=/);
    }
    expect(named.sort()).toEqual([...LRS].sort());

    // Every curve is drawn, each in a colour of its own.
    const colours = await charts.legendColours(LOSS);
    expect(new Set(colours).size).toBe(LRS.length);
    const picture = await charts.expectDrawn(LOSS);
    for (const [i, count] of picture.inColour.entries())
      expect(count, `pixels of curve ${i} (${colours[i]})`).toBeGreaterThan(0);
    await expect(chart).toHaveAccessibleDescription(
      new RegExp(LRS.map(() => `lr=\\S+: ${POINTS} points\\b`).join('.*')),
    );

    // Unpicking one run takes its curve away.
    await runs.rows.first().getByRole('checkbox').uncheck();
    await expect(entries).toHaveCount(LRS.length - 1);
    await expect(chart).toHaveAttribute('data-series', String(LRS.length - 1));
    await expect(alerts.all).toHaveCount(0);
  });

  test('log scales and smoothing change the drawing, which still renders', async ({
    runs,
    charts,
  }) => {
    await runs.select(runs.rows.last());
    await charts.compareSweepButton.click();
    const chart = charts.chart(LOSS);
    await expect(chart).toHaveAttribute('data-series', String(LRS.length));
    await expect(chart).toHaveAttribute('data-y-scale', 'linear');
    await expect(chart).toHaveAttribute('data-smoothing', '0');
    const linear = await charts.expectDrawn(LOSS);

    await charts.setYAxis('log');
    await expect(charts.yAxis).toHaveValue('log');
    await expect(chart).toHaveAttribute('data-y-scale', 'log');
    await expect.poll(async () => (await charts.picture(LOSS)).image).not.toBe(linear.image);
    const log = await charts.expectDrawn(LOSS);

    await charts.setSmoothing(0.9);
    await expect(chart).toHaveAttribute('data-smoothing', '0.9');
    await expect(charts.smoothing).toHaveValue('0.9');
    await expect.poll(async () => (await charts.picture(LOSS)).image).not.toBe(log.image);
    await charts.expectDrawn(LOSS);
    // Smoothed, each legend entry says where its smoothed line ends, beside its raw value.
    await expect(charts.legendEntries(LOSS)).toHaveCount(LRS.length);

    // Back to linear and unsmoothed: the first drawing again.
    await charts.setYAxis('linear');
    await charts.setSmoothing(0);
    await expect(chart).toHaveAttribute('data-y-scale', 'linear');
    await expect(chart).toHaveAttribute('data-smoothing', '0');
    await expect.poll(async () => (await charts.picture(LOSS)).image).toBe(linear.image);
    // The points charted do not change with the view.
    await expect(chart).toHaveAttribute('data-points', String(POINTS));

    // Steps on a log scale: another drawing, still drawn.
    await charts.xScale.selectOption('log');
    await expect(chart).toHaveAttribute('data-x-scale', 'log');
    await expect.poll(async () => (await charts.picture(LOSS)).image).not.toBe(linear.image);
    await charts.expectDrawn(LOSS);
  });

  test('the CSV export holds every run’s points, one column per run', async ({ runs, charts }) => {
    await runs.select(runs.rows.last());
    await charts.compareSweepButton.click();
    await expect(charts.chart(LOSS)).toHaveAttribute('data-series', String(LRS.length));
    const records = (await runs.exportPicked(LRS.length)).map((file) => file.json);

    const csv = await charts.downloadCsv(LOSS);
    expect(csv.filename).toBe(`${LOSS}.csv`);
    const [header = '', ...lines] = csv.text.trimEnd().split('\n');
    const columns = header.split(',');
    expect(columns[0]).toBe('step');
    expect(columns).toHaveLength(1 + LRS.length);
    // One row per step the runs logged: they share steps 0 … POINTS-1.
    expect(lines).toHaveLength(POINTS);
    const cells = lines.map((line) => line.split(','));
    expect(cells.map((row) => Number(row[0]))).toEqual([...Array(POINTS).keys()]);

    // Each column is one run's loss, point for point, at full precision.
    for (const record of records) {
      const column = columns.findIndex((label) => label.includes(record.run.id.slice(-8)));
      expect(column, `a column for run ${record.run.id}`).toBeGreaterThan(0);
      expect(columns[column]).toBe(`${record.run.id.slice(-8)} lr=${String(record.run.params.lr)}`);
      const loss = record.metrics[LOSS] ?? [];
      expect(loss).toHaveLength(POINTS);
      expect(cells.map((row) => Number(row[column]))).toEqual(loss.map(([, value]) => value));
    }

    // The JSON download holds the same series.
    const json = (await charts.downloadJson(LOSS)).json;
    expect(json.metric).toBe(LOSS);
    expect(json.series.map((s) => s.run).sort()).toEqual(records.map((r) => r.run.id).sort());
    for (const series of json.series) expect(series.points).toHaveLength(POINTS);
  });
});

test('a series with NaN and ±Infinity is drawn, and the legend counts them', async ({
  toolbar,
  runs,
  charts,
  alerts,
}) => {
  const path = fixtureRunPath('non-finite');
  const record = JSON.parse(readFileSync(path, 'utf8')) as RunFile;
  const loss = record.metrics[LOSS] ?? [];
  const nonFinite = loss.filter(([, v, , special]) => v === null && special !== '-0').length;
  expect(nonFinite).toBe(3); // NaN, Infinity, -Infinity; -0 is finite

  await toolbar.importFile(path);
  await runs.expectStatus(runs.row(record.run.id), 'ok');
  const chart = charts.chart(LOSS);
  await expect(chart).toHaveAttribute('data-points', String(loss.length));
  await expect(chart).toHaveAttribute('data-series', '1');
  const entry = charts.legendEntries(LOSS);
  await expect(entry).toHaveCount(1);
  await expect(entry).toContainText(`${nonFinite} non-finite`);
  await charts.expectDrawn(LOSS);

  // On a log axis too (where -0 and the non-finite values are gaps).
  await charts.setYAxis('log');
  await expect(chart).toHaveAttribute('data-y-scale', 'log');
  await charts.expectDrawn(LOSS);
  await expect(entry).toContainText(`${nonFinite} non-finite`);
  await expect(alerts.all).toHaveCount(0);
});

test('selecting a node narrows the charts to the series it emitted', async ({
  toolbar,
  canvas,
  runs,
  page,
}) => {
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');
  await expect(runs.chart('train.loss')).toBeVisible();
  await canvas.select('eval');
  await expect(runs.chart('train.loss')).toHaveCount(0);
  await expect(page.getByText("Node 'eval' emitted no series in this run.")).toBeVisible();
  await canvas.select('train');
  await expect(runs.chart('train.loss')).toBeVisible();
  await canvas.clickPane();
  await expect(runs.chart('train.loss')).toBeVisible();
});

test('the data engine’s waits are timeline lanes under the loss, its cache fill a series', async ({
  app,
  params,
  toolbar,
  runs,
  charts,
  alerts,
}) => {
  await app.page.getByRole('button', { name: 'Examples', exact: true }).click();
  const gallery = app.page.getByRole('dialog', { name: 'Examples' });
  await gallery.getByRole('button', { name: 'pendulum-world-model', exact: true }).click();
  await expect(gallery).toBeHidden();
  await params.set('steps', 40);
  await toolbar.run();
  const row = runs.newest;
  await runs.expectStatus(row, 'ok', { timeout: 90_000 });

  const { json } = await runs.exportRun();
  const intervals = (json as RunFile & { intervals: { kind: string }[] }).intervals;
  const kinds = [...new Set(intervals.map((i) => i.kind))];
  expect(kinds).toContain('data_wait');
  // One lane per kind recorded, each counting that kind's intervals and saying so in words.
  await expect(charts.timelines()).toHaveCount(kinds.length);
  for (const kind of kinds) {
    const count = intervals.filter((i) => i.kind === kind).length;
    const lane = charts.timeline(kind);
    await expect(lane).toHaveAttribute('data-intervals', String(count));
    await expect(lane).toHaveAccessibleDescription(
      new RegExp(`^${count} intervals? · [\\d.e-]+ s waiting in all$`),
    );
    await expect(lane.locator('rect')).toHaveCount(count);
  }
  // The lanes sit with the loss chart, in its card.
  const lossCard = app.page.locator('.fb-chart').filter({ has: charts.chart(LOSS) });
  await expect(lossCard.getByRole('img', { name: 'Timeline: data_wait' })).toBeVisible();

  const fill = json.metrics['engine.cache_fill'] ?? [];
  expect(fill.length).toBeGreaterThan(0);
  await expect(charts.chart('engine.cache_fill')).toHaveAttribute(
    'data-points',
    String(fill.length),
  );
  await charts.expectDrawn('engine.cache_fill');
  await expect(alerts.all).toHaveCount(0);
});
