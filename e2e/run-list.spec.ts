/**
 * Hundreds of runs in the runs table: a 300-run sweep of a tiny flow ends
 * with every run ok, its counts and group progress right, and its last row
 * reached by scrolling and selected; a thousand imported runs open with the
 * page and sort and filter right. The table keeps only the rows in view in
 * the page, so counts are read from its count line.
 */
import { expect, test } from './fixtures';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RunFile } from './support/formats';

const SWEEP = 300;
const IMPORTED = 1_000;

test('a 300-run sweep: every run ok, counted and grouped; the last row scrolled to and selected', async ({
  toolbar,
  params,
  runs,
  alerts,
}) => {
  // Under a minute on a loaded machine; the ceiling is for a very loaded one.
  test.setTimeout(300_000);
  // Synthetic rows split in two: the sweep's cost is the run machinery's, not training.
  await toolbar.importFile(fileURLToPath(new URL('./flows/tiny-sweep.flow.json', import.meta.url)));
  await expect(toolbar.flowName).toHaveText('tiny-sweep');
  await params.set('seed', `0..${SWEEP - 1}`);
  await expect(params.sweepButton).toHaveText(`Run sweep (${SWEEP} runs)`);
  await params.runSweep();

  await expect(runs.count).toHaveText(`${SWEEP} runs`);
  await runs.filterStatus('ok');
  await expect(runs.count).toHaveText(`${SWEEP} runs · ${SWEEP} shown`, { timeout: 240_000 });
  await expect(runs.groupCell(runs.newest)).toHaveText(new RegExp(` · ${SWEEP}/${SWEEP}$`));
  await expect(alerts.all).toHaveCount(0);
  // Far fewer rows in the page than runs: only those in view.
  expect(await runs.rows.count()).toBeLessThan(SWEEP / 2);

  // Newest first: the last row is the sweep's first run, seed 0.
  await runs.scrollToEnd();
  const last = runs.rows.last();
  await expect(runs.paramsCells.last()).toHaveText(/^seed=0$/);
  const id = await runs.idOf(last);
  await runs.select(last);
  await expect(runs.detailId).toHaveAttribute('title', id);
  await expect(runs.detailParams).toHaveText(/^seed=0$/);
});

/** The `i`th of the imported runs: accuracy i/1000, every tenth an error, ids in order of i. */
function importedRun(template: RunFile, i: number): { name: string; text: string } {
  const id = `0193a1b2-c3d4-7e5f-8a6b-${i.toString(16).padStart(12, '0')}`;
  const failed = i % 10 === 0;
  const run = {
    ...template.run,
    id,
    params: { lr: (i % 7) / 10, steps: 50 },
    seed: i,
    groupId: 'imported-sweep',
    status: failed ? 'error' : 'ok',
    statusReason: failed ? "node 'train' failed: diverged" : '',
    result: failed ? {} : { accuracy: i / IMPORTED },
  };
  return { name: `${id}.run.json`, text: JSON.stringify({ ...template, run }) };
}

test('a thousand imported runs: the page opens with them, and the table sorts and filters right', async ({
  app,
  toolbar,
  runs,
  alerts,
}) => {
  test.setTimeout(300_000);
  const template = JSON.parse(
    readFileSync(new URL('./flows/non-finite.run.json', import.meta.url), 'utf8'),
  ) as RunFile;
  const files = Array.from({ length: IMPORTED }, (_, i) => importedRun(template, i));
  await toolbar.importInput.setInputFiles(
    files.map((file) => ({
      name: file.name,
      mimeType: 'application/json',
      buffer: Buffer.from(file.text),
    })),
  );
  // The import says how far it has got, and goes when it is done.
  await expect(toolbar.importProgress).toHaveAttribute('max', String(IMPORTED));
  await expect(runs.count).toHaveText('1,000 runs', { timeout: 240_000 });
  await expect(toolbar.importProgress).toBeHidden();
  await expect(alerts.all).toHaveCount(0);
  // The last file imported is the run selected.
  await expect(runs.detailId).toHaveAttribute('title', files.at(-1)!.name.replace('.run.json', ''));

  await app.reload();
  await expect(runs.count).toHaveText('1,000 runs');
  // Newest (greatest id) first.
  await expect(runs.paramsCells.first()).toHaveText(/ seed=999$/);

  // Sort by the result, greatest first: 999 (ok), then 998; the errors, without one, last.
  await runs.sortBy('result accuracy');
  await expect(runs.paramsCells.first()).toHaveText(/ seed=999$/);
  await expect(runs.paramsCells.nth(1)).toHaveText(/ seed=998$/);
  await runs.scrollToEnd();
  await expect(runs.statusCell(runs.rows.last(), 'error')).toBeVisible();

  // Filter by status, then by a param as the table shows it.
  await runs.filterStatus('error');
  await expect(runs.count).toHaveText('1,000 runs · 100 shown');
  await runs.filterStatus('all');
  await runs.filter('lr=0.3');
  // i % 7 === 3 for i in 0..999: 143 runs.
  await expect(runs.count).toHaveText('1,000 runs · 143 shown');
  await runs.sortBy('param seed');
  await expect(runs.paramsCells.first()).toHaveText(/^lr=0\.3 steps=50 seed=997$/);
});
