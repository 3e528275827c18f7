/**
 * Two runs of the default example, side by side: between them the person
 * lowers `lr`, halves the model's hidden units and drags a node aside. The
 * diff highlights exactly that param and that node's param; the drag is no
 * change; the digests differ, and so do the loss series. The same experiment
 * run twice differs in nothing it computed.
 */
import { expect, test } from './fixtures';
import { RunDiff } from './pages/run-diff';

const STEPS = 10;

test('the diff of two runs highlights exactly the changed param and node, not a moved node', async ({
  page,
  params,
  toolbar,
  runs,
  canvas,
  inspector,
  alerts,
}) => {
  const diff = new RunDiff(page);
  await params.set('steps', STEPS);
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');

  // Between the runs: another lr, another hidden size, and a node moved (layout only).
  await params.set('lr', 0.05);
  await canvas.select('model');
  await inspector.setParam('hidden', 16);
  const before = await canvas.position('data');
  await canvas.dragNodeBy('data', 0, 60);
  await expect.poll(() => canvas.position('data')).not.toEqual(before);
  await toolbar.run();
  await expect(runs.rows).toHaveCount(2);
  for (const row of await runs.rows.all()) await runs.expectStatus(row, 'ok');

  await expect(diff.button).toBeDisabled();
  await runs.pick(runs.rows.nth(0));
  await expect(diff.button).toBeDisabled();
  await runs.pick(runs.rows.nth(1));
  await diff.open();

  // Params: only lr differs (A is the older run); the seed is there, the same.
  expect(await diff.differing(diff.params)).toEqual(['lr']);
  await expect(diff.row(diff.params, 'lr').getByRole('cell')).toHaveText([
    '0.1',
    '0.05',
    'differs',
  ]);
  await expect(diff.row(diff.params, 'steps').getByRole('cell')).toHaveText(['10', '10', 'same']);
  await expect(diff.row(diff.params, 'seed').getByRole('cell')).toHaveText(['0', '0', 'same']);
  // Another lr is another experiment: the digests differ.
  await expect(diff.row(diff.facts, 'Params digest').getByRole('cell').last()).toHaveText(
    'differs',
  );

  // The flows: exactly the model's hidden size; the dragged node is not mentioned.
  await expect(diff.flowChanges).toHaveText(['model: hidden 32 → 16']);

  // Each metric's final value; trained otherwise, the loss series are not identical.
  const loss = diff.row(diff.metrics, 'train.loss').getByRole('cell');
  await expect(loss).toHaveText([/^\d/, /^\d/, 'differs']);
  // Both ran here, on the same browser and build: nothing differs in what they ran on.
  await expect(diff.row(diff.fingerprints, 'Backend').getByRole('cell')).toHaveText([
    'wasm',
    'wasm',
    'same',
  ]);
  expect(await diff.differing(diff.fingerprints)).toEqual([]);
  await diff.close();
  await expect(alerts.all).toHaveCount(0);
});

test('the diff of the same experiment run twice finds nothing changed and identical series', async ({
  page,
  params,
  toolbar,
  runs,
}) => {
  const diff = new RunDiff(page);
  // Computed twice, not taken from the node-output cache: the series are the runs' own.
  await toolbar.useCache.uncheck();
  await params.set('steps', STEPS);
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');
  await toolbar.run();
  await expect(runs.rows).toHaveCount(2);
  for (const row of await runs.rows.all()) await runs.expectStatus(row, 'ok');
  await runs.pick(runs.rows.nth(0));
  await runs.pick(runs.rows.nth(1));
  await diff.open();

  expect(await diff.differing(diff.params)).toEqual([]);
  await expect(diff.row(diff.facts, 'Params digest').getByRole('cell').last()).toHaveText('same');
  await expect(diff.flowsAlike).toBeVisible();
  await expect(diff.flowChanges).toHaveCount(0);
  expect(await diff.differing(diff.metrics)).toEqual([]);
  await expect(diff.row(diff.metrics, 'train.loss').getByRole('cell').last()).toHaveText('same');
});
