/**
 * A person's own table: a CSV picked through the table node's file param is
 * read by the engine, its columns and first rows shown in the inspector; a
 * label picked there trains a classifier that scores well on held-out rows,
 * and the run page draws its confusion matrix. The shipped iris example does
 * the same from the gallery, and its attention twin trains a
 * `model.attention` on the same table.
 * A malformed CSV fails the node with the line at fault.
 */
import path from 'node:path';
import { expect, test } from './fixtures';
import { fixtureFlowPath } from './support/files';

const fixture = (name: string) => path.join(path.dirname(fixtureFlowPath('table-iris')), name);

test('a CSV picked in the inspector shows its columns, and with the label picked it trains to a good accuracy', async ({
  toolbar,
  canvas,
  inspector,
  runs,
}) => {
  await toolbar.importFlow(fixtureFlowPath('table-iris'));
  await expect(toolbar.flowName).toHaveText('table-iris');
  await canvas.select('data');
  await inspector.pickFile(fixture('iris-collected.csv'));
  const columns = inspector.root.getByRole('table', { name: 'Table columns' });
  await expect(columns.getByRole('row', { name: /^species/ })).toContainText('category');
  await expect(columns.getByRole('row', { name: /^petal_width/ })).toContainText('number');
  await expect(inspector.root.getByRole('table', { name: 'Table preview' })).toContainText('5.1');
  // The last non-numeric column is the default label; the person picks another.
  const label = inspector.param('label');
  await expect(label.locator('option').first()).toHaveText('auto (collector)');
  await label.selectOption('species');
  await inspector.root.getByRole('checkbox', { name: 'collector' }).uncheck();

  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');
  const { json: record } = await runs.exportRun();
  expect(record.run.result.accuracy).toBeGreaterThan(0.85);
  const data = record.nodes.find((n) => n.node === 'data') as { logs?: string } | undefined;
  expect(data?.logs).toContain("label 'species' (classification: setosa, versicolor, virginica)");
  // The evaluation's confusion matrix, drawn as a heat map labelled with the class names.
  const heatMap = runs.detail.getByRole('table', { name: 'Confusion matrix: eval' });
  await expect(heatMap.getByRole('rowheader')).toHaveText(['setosa', 'versicolor', 'virginica']);
  await expect(heatMap.getByRole('columnheader')).toHaveText(['setosa', 'versicolor', 'virginica']);
});

test('the iris table example opens with its CSV and trains to a good score', async ({
  toolbar,
  runs,
}) => {
  await toolbar.openExample('iris-table');
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');
  const { json: record } = await runs.exportRun();
  expect(record.run.result.accuracy).toBeGreaterThan(0.9);
  expect(record.run.result.val_loss).toBeLessThan(0.5);
  const heatMap = runs.detail.getByRole('table', { name: 'Confusion matrix: eval' });
  // 15 flowers of each species held out (the split is stratified).
  await expect(heatMap.getByRole('row', { name: /^setosa \d/ })).toContainText('15');
});

test('the iris attention example trains a self-attention model on the table to a good score', async ({
  toolbar,
  runs,
}) => {
  await toolbar.openExample('iris-attention');
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');
  const { json: record } = await runs.exportRun();
  expect(record.run.result.accuracy).toBeGreaterThan(0.85);
  const heatMap = runs.detail.getByRole('table', { name: 'Confusion matrix: eval' });
  await expect(heatMap.getByRole('rowheader')).toHaveText(['setosa', 'versicolor', 'virginica']);
});

test('a malformed CSV fails the table node naming the line', async ({
  toolbar,
  canvas,
  inspector,
  runs,
}) => {
  await toolbar.importFlow(fixtureFlowPath('table-iris'));
  await canvas.select('data');
  await inspector.pickFile(fixture('iris-malformed.csv'));
  await expect(inspector.root.getByRole('alert')).toContainText(
    'iris-malformed.csv, line 43: 7 fields where the header names 6',
  );
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'error');
  await canvas.expectStatus(['data'], 'error');
  const { json: failed } = await runs.exportRun();
  expect(failed.nodes.find((n) => n.node === 'data')?.error).toMatch(
    /^iris-malformed\.csv, line 43: 7 fields/,
  );
});
