/**
 * Run bundles: a run of the iris table example, exported as a bundle, is
 * imported in a fresh browser profile that has never seen its CSV; the
 * table file comes with it, and Re-run there trains again to the very same
 * series. A bundle whose bytes were changed is refused whole.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { unzipSync, zipSync } from 'fflate';
import { expect, test } from './fixtures';

test('a bundle carries a table run to a fresh profile, where Re-run reproduces it', async ({
  toolbar,
  runs,
  openFreshApp,
}) => {
  await toolbar.openExample('iris-table');
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');
  const originalId = await runs.idOf(runs.newest);
  const bundle = await runs.exportBundle();
  expect(bundle.filename).toBe(`${originalId}.flowbench.zip`);
  const entries = Object.keys(unzipSync(new Uint8Array(await readFile(bundle.path))));
  expect(entries).toEqual(expect.arrayContaining(['run.json', 'bundle.json']));
  expect(entries.filter((name) => name.startsWith('files/'))).toHaveLength(1);

  const elsewhere = await openFreshApp();
  await elsewhere.toolbar.importFile(bundle.path);
  await expect(elsewhere.runs.rows).toHaveCount(1);
  await elsewhere.runs.expectStatus(elsewhere.runs.newest, 'ok');
  await elsewhere.runs.rerun();
  await expect(elsewhere.runs.rows).toHaveCount(2);
  await elsewhere.runs.expectStatus(elsewhere.runs.newest, 'ok');
  await expect(elsewhere.runs.comparison).toContainText(
    `Compared with run ${originalId.slice(-8)}`,
  );
  await expect(
    elsewhere.runs.comparison.getByRole('listitem').filter({ hasText: 'train.loss' }),
  ).toContainText('train.loss: identical');
  await expect(elsewhere.runs.comparison).not.toContainText('differs');
  await expect(elsewhere.alerts.all).toHaveCount(0);
});

test('a bundle whose file was changed is refused whole, naming the entry', async ({
  toolbar,
  runs,
  openFreshApp,
}) => {
  await toolbar.openExample('iris-table');
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');
  const bundle = await runs.exportBundle();
  const entries = unzipSync(new Uint8Array(await readFile(bundle.path)));
  const file = Object.keys(entries).find((name) => name.startsWith('files/'))!;
  entries[file] = entries[file]!.map((byte, i) => (i === 0 ? byte ^ 1 : byte));

  const changed = test.info().outputPath('changed.flowbench.zip');
  await writeFile(changed, zipSync(entries));

  const elsewhere = await openFreshApp();
  await elsewhere.toolbar.importFile(changed);
  await expect(elsewhere.alerts.all).toContainText(`changed.flowbench.zip holds ${file}`);
  await expect(elsewhere.runs.rows).toHaveCount(0);
});
