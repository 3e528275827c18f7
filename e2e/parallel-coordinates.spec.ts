/**
 * A sweep over the learning rate, read as parallel coordinates: an axis for
 * lr and for each final metric; brushing the top of the lr axis leaves only
 * the largest lr's run in the Runs table, flipping the axis turns it upside
 * down, a report exported then draws them as set, and clearing the brushes
 * gives the table all its runs back.
 */
import { expect, test } from './fixtures';
import { ParallelCoordinates } from './pages/parallel-coordinates';
import { exportReport, openOffline } from './support/report';

test('brushing an axis filters the Runs table; clearing restores it', async ({
  page,
  context,
  params,
  runs,
  alerts,
}, testInfo) => {
  const pc = new ParallelCoordinates(page);
  await params.set('lr', '0.05, 0.1, 0.3');
  await params.set('steps', 10);
  await params.runSweep();
  await expect(runs.rows).toHaveCount(3);
  for (const row of await runs.rows.all()) await runs.expectStatus(row, 'ok');
  await runs.select(runs.newest);
  // All three compared: the charts (and a report of them) take the picked runs.
  for (const row of await runs.rows.all()) await runs.pick(row);

  // lr varies, steps and seed do not: lr is the only param axis; the metrics follow it.
  await expect(pc.plot).toHaveAttribute('data-runs', '3');
  await expect(pc.axes.first()).toHaveAccessibleName('Axis lr');
  await expect(pc.axis('steps')).toHaveCount(0);
  await expect(pc.axis('accuracy')).toBeVisible();
  await expect(pc.axis('train.loss')).toBeVisible();
  await expect(pc.summary).toHaveText(/^3 runs/);

  // The top of lr (0.05 at the bottom, 0.3 at the top): only lr=0.3.
  await pc.brush('lr', 0.6, 1);
  await expect(pc.summary).toHaveText('1 of 3 runs inside the brushes');
  await expect(runs.rows).toHaveCount(1);
  await expect(runs.paramsCells).toHaveText([/^lr=0\.3 /]);
  await expect(runs.count).toHaveText('3 runs · 1 shown');

  // Flipped, the top holds the smallest lr (0.1 sits at 0.8; a flip clears the axis's brush).
  await pc.flip('lr');
  await expect(runs.rows).toHaveCount(3);
  await pc.brush('lr', 0.9, 1);
  await expect(runs.paramsCells).toHaveText([/^lr=0\.05 /]);

  // A report draws the view as it is set: lr flipped, its brush, two runs outside it.
  const report = await openOffline(
    context,
    await exportReport(page, testInfo.outputPath('pc.html')),
  );
  const drawn = report.getByRole('img', { name: 'Parallel coordinates' });
  await expect(drawn.getByRole('group', { name: 'Axis lr (flipped)' })).toBeVisible();
  await expect(drawn.locator('polyline')).toHaveCount(3);
  await expect(drawn.locator('polyline.outside')).toHaveCount(2);
  await expect(report.getByText('1 of 3 runs inside the brushes')).toBeVisible();
  await report.close();
  await context.setOffline(false);

  await pc.clearButton.click();
  await expect(runs.rows).toHaveCount(3);
  await expect(runs.count).toHaveText('3 runs');
  await expect(alerts.all).toHaveCount(0);
});

test('parameter importance ranks the swept params for a metric, with a scatter of each', async ({
  page,
  params,
  runs,
  alerts,
}) => {
  const pc = new ParallelCoordinates(page);
  await params.set('lr', '0.05, 0.3');
  await params.set('seed', '0..1');
  await params.set('steps', 10);
  await params.runSweep();
  await expect(runs.rows).toHaveCount(4);
  for (const row of await runs.rows.all()) await runs.expectStatus(row, 'ok');
  await runs.select(runs.newest);

  // The flow's result first: a bar per swept param, its importance and correlation.
  await expect(pc.importanceFor).toHaveValue('result:accuracy');
  const ranking = pc.ranking('accuracy');
  await expect(ranking).toHaveCount(2);
  const shares = (await ranking.allInnerTexts()).map((text) => {
    const match = /^(lr|seed)\s*([01]\.\d\d) · r −?[01]\.\d\d$/.exec(
      text.replace(/\s+/g, ' ').trim(),
    );
    expect(match, text).not.toBeNull();
    return Number(match![2]);
  });
  expect(shares[0]).toBeGreaterThanOrEqual(shares[1]!);
  expect(shares[0]! + shares[1]!).toBeCloseTo(1, 1);

  // The top param's scatter, a dot per run; picking the other shows it instead.
  const [top, other] = (await ranking.allInnerTexts()).map((t) => t.trim().split(/\s/)[0]!);
  await expect(pc.scatter('accuracy', top!)).toHaveAttribute('data-points', '4');
  await ranking.filter({ hasText: other! }).getByRole('button').click();
  await expect(pc.scatter('accuracy', other!)).toHaveAttribute('data-points', '4');

  // Another metric: the final loss.
  await pc.importanceFor.selectOption({ label: 'train.loss' });
  await expect(pc.ranking('train.loss')).toHaveCount(2);
  await expect(alerts.all).toHaveCount(0);
});
