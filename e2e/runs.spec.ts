/**
 * The runs table as a person uses it after a sweep: one group of runs, with
 * its progress; filter, sort, delete with confirmation (the runs' series go
 * with them); re-run one and see it reproduce its series exactly.
 */
import { expect, test } from './fixtures';
import type { Runs } from './pages/runs';
import { pointSteps } from './support/formats';

/** 20 training steps, a loss every 5: 4 points per run. */
const STEPS = 20;
const LOSS_POINTS = 4;

/**
 * A row's `Params` cell (`lr=0.1 steps=20 seed=2`): every value the run used,
 * exactly as a filter matches it.
 */
const lrSeed = (lr: string, seed: number) =>
  new RegExp(`^lr=${lr.replace('.', '\\.')} steps=${STEPS} seed=${seed}$`);
const lrIs = (lr: string) => new RegExp(`^lr=${lr.replace('.', '\\.')} `);

async function expectRowsOk(runs: Runs, count: number): Promise<void> {
  await expect(runs.rows).toHaveCount(count);
  for (const row of await runs.rows.all()) await runs.expectStatus(row, 'ok');
}

test('a sweep of 6 runs: grouped, filtered, sorted, two deleted, one re-run exactly', async ({
  params,
  runs,
  alerts,
  toolbar,
}) => {
  // lr 0.05, 0.1 × seed 0..2: six runs in one group.
  await expect(params.sweepButton).toBeDisabled();
  await params.set('lr', '0.05, 0.1');
  await params.set('seed', '0..2');
  await params.set('steps', STEPS);
  await expect(params.sweepButton).toHaveText('Run sweep (6 runs)');
  await params.runSweep();

  await expectRowsOk(runs, 6);
  const sweepRows = await runs.rows.all();
  const group = (await runs.groupCell(sweepRows[0]!).textContent()) ?? '';
  expect(group).toMatch(/^sweep \S+ · 6\/6$/);
  for (const row of sweepRows) await expect(runs.groupCell(row)).toHaveText(group);
  await expect(alerts.all).toHaveCount(0);

  // Newest first by default: the grid's last combination (lr 0.1, seed 2) on top.
  await expect(runs.paramsCells).toHaveText([
    lrSeed('0.1', 2),
    lrSeed('0.1', 1),
    lrSeed('0.1', 0),
    lrSeed('0.05', 2),
    lrSeed('0.05', 1),
    lrSeed('0.05', 0),
  ]);

  // Sort by a param (largest first), then by another.
  await runs.sortBy('param seed');
  await expect(runs.paramsCells).toHaveText([
    / seed=2$/,
    / seed=2$/,
    / seed=1$/,
    / seed=1$/,
    / seed=0$/,
    / seed=0$/,
  ]);
  await runs.sortBy('param lr');
  await expect(runs.paramsCells).toHaveText([
    lrIs('0.1'),
    lrIs('0.1'),
    lrIs('0.1'),
    lrIs('0.05'),
    lrIs('0.05'),
    lrIs('0.05'),
  ]);

  // Filter by text: every word must match.
  await runs.filter('lr=0.05');
  await expect(runs.paramsCells).toHaveText([lrIs('0.05'), lrIs('0.05'), lrIs('0.05')]);
  await runs.filter('lr=0.05 seed=1');
  await expect(runs.paramsCells).toHaveText([lrSeed('0.05', 1)]);
  await runs.filter('');
  await expect(runs.rows).toHaveCount(6);

  // A cancelled run beside the sweep, for the status filter to tell apart.
  await runs.sortBy('started');
  await params.set('lr', '0.1');
  await params.set('seed', '0');
  await params.set('steps', 100000);
  await toolbar.run();
  await expect(runs.rows).toHaveCount(7);
  await runs.expectStatus(runs.newest, 'running');
  await expect(runs.newest).toHaveAttribute('aria-selected', 'true');
  await expect.poll(() => runs.chartPoints('train.loss')).toBeGreaterThan(0);
  await toolbar.cancelRun();
  await runs.filterStatus('cancelled');
  await expect(runs.rows).toHaveCount(1);
  await runs.expectStatus(runs.rows.first(), 'cancelled');
  await runs.filterStatus('ok');
  await expectRowsOk(runs, 6);
  await runs.filterStatus('error');
  await expect(runs.rows).toHaveCount(0);
  await runs.filterStatus('all');
  await expect(runs.rows).toHaveCount(7);

  // Pick all shown picks what the filter shows, and only that; ticked again, it unpicks them.
  const ticks = runs.rows.getByRole('checkbox');
  await runs.filterStatus('ok');
  await runs.pickAllShown.check();
  await expect(ticks).toHaveCount(6);
  for (const tick of await ticks.all()) await expect(tick).toBeChecked();
  await runs.filterStatus('all');
  await expect(runs.pickAllShown).not.toBeChecked();
  await expect(runs.pickAllShown).toHaveJSProperty('indeterminate', true);
  await expect(runs.rows.getByRole('checkbox', { checked: true })).toHaveCount(6);
  await runs.pickAllShown.check();
  for (const tick of await ticks.all()) await expect(tick).toBeChecked();
  await runs.pickAllShown.uncheck();
  for (const tick of await ticks.all()) await expect(tick).not.toBeChecked();

  // Pick two runs of the sweep, keep their exports, delete them after confirming.
  await runs.filter('lr=0.05 seed=0');
  await runs.pick(runs.rows.first());
  await runs.filter('lr=0.1 seed=2');
  await runs.pick(runs.rows.first());
  await runs.filter('');
  const exported = await runs.exportPicked(2);
  const doomed = exported.map((file) => file.json.run.id).sort();
  for (const file of exported) {
    expect(file.filename).toBe(`${file.json.run.id}.run.json`);
    expect(pointSteps(file.json.metrics['train.loss'] ?? [])).toEqual([0, 1, 2, 3]);
  }
  await runs.deletePickedButton.click();
  await expect(runs.deleteDialog).toHaveAccessibleName('Delete 2 runs?');
  await runs.deleteDialog.getByRole('button', { name: 'Keep them' }).click();
  await expect(runs.deleteDialog).toBeHidden();
  await expect(runs.rows).toHaveCount(7);
  await runs.deletePicked();
  await expect(runs.rows).toHaveCount(5);
  for (const id of doomed) await expect(runs.row(id)).toHaveCount(0);
  await expect(runs.groupCell(runs.rows.last())).toHaveText(group.replace('6/6', '4/4'));

  // Their node outcomes and series went too: importing the exports again
  // adds them afresh (a leftover point would collide and refuse the import).
  for (const file of exported) {
    await toolbar.importFile({ name: file.filename, text: file.text });
    await runs.expectStatus(runs.row(file.json.run.id), 'ok');
    await expect(runs.chart('train.loss')).toHaveAttribute('data-points', String(LOSS_POINTS));
  }
  await expect(runs.rows).toHaveCount(7);
  await expect(alerts.all).toHaveCount(0);

  // Re-run one run of the sweep: same flow snapshot, params and seed, same backend.
  await runs.filter('lr=0.1 seed=1');
  const original = runs.rows.first();
  const originalId = await runs.idOf(original);
  await runs.select(original);
  await runs.filter('');
  await runs.rerun();
  await expect(runs.rows).toHaveCount(8);
  const rerun = runs.rows.first();
  expect(await runs.idOf(rerun)).not.toBe(originalId);
  await expect(rerun).toHaveAttribute('aria-selected', 'true');
  await expect(runs.paramsCells.first()).toHaveText(lrSeed('0.1', 1));
  await runs.expectStatus(rerun, 'ok');
  await expect(runs.comparison).toContainText(`Compared with run ${originalId.slice(-8)}`);
  await expect(runs.comparison.getByRole('listitem').filter({ hasText: 'train.loss' })).toHaveText(
    `train.loss: identical (${LOSS_POINTS} points)`,
  );
  await expect(runs.comparison).not.toContainText('differs');
  await expect(alerts.all).toHaveCount(0);
});
