/**
 * The node-output cache: change only the evaluation and only it runs again;
 * the cache survives a reload; a change above the training runs it again;
 * `Run to here` and `Clear cache`.
 */
import { exampleNodes, expect, test } from './fixtures';
import { RunRecord } from './pages/run-record';

const aboveEval = ['data', 'split', 'model', 'train'] as const;

test('a run after changing only the evaluation takes everything above it from the cache', async ({
  app,
  toolbar,
  canvas,
  runs,
  params,
  inspector,
  page,
}) => {
  test.slow(); // five runs of the default example
  await params.set('steps', 100);
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');
  await canvas.expectStatus(exampleNodes, 'ok');
  const first = (await runs.exportRun()).json;
  await expect(runs.cache).toContainText('5 entries');

  // Only the evaluation's param changes: the training is the first run's.
  await canvas.select('eval');
  await inspector.setParam('requests', 2);
  await toolbar.run();
  await expect(runs.rows).toHaveCount(2);
  await runs.expectStatus(runs.newest, 'ok');
  await canvas.expectStatus(aboveEval, 'cached');
  await canvas.expectStatus(['eval'], 'ok');
  const warm = (await runs.exportRun()).json;
  const train = warm.nodes.find((n) => n.node === 'train');
  expect(train).toMatchObject({ status: 'cached', cachedFrom: { runId: first.run.id } });
  expect(warm.nodes.find((n) => n.node === 'eval')?.status).toBe('ok');
  // The run page says so too: its node timings name the run the training came from.
  await expect(new RunRecord(page).nodeRow('train')).toContainText(
    `cached from ${first.run.id.slice(-8)}`,
  );
  // The cached training's loss is the first run's series, shown for this run too.
  await canvas.select('train');
  await expect(runs.chart('train.loss')).toHaveAttribute('data-points', '20');

  // A cold run with the same params gives the same accuracy, bit for bit.
  await toolbar.useCache.uncheck();
  await toolbar.run();
  await expect(runs.rows).toHaveCount(3);
  await runs.expectStatus(runs.newest, 'ok');
  await canvas.expectStatus(exampleNodes, 'ok');
  const cold = (await runs.exportRun()).json;
  expect(Object.is(cold.run.result.accuracy, warm.run.result.accuracy)).toBe(true);

  // The cache is in the database: after a reload the training still comes from it.
  // `Use cache` is kept as the person left it, across the reload.
  await app.reload();
  await expect(toolbar.useCache).not.toBeChecked();
  await toolbar.useCache.check();
  await params.set('steps', 100); // the form starts from the flow's defaults again
  await toolbar.run();
  await expect(runs.rows).toHaveCount(4);
  await runs.expectStatus(runs.newest, 'ok');
  await canvas.expectStatus(exampleNodes, 'cached');

  // A new learning rate changes what the training computes: it runs again, and what is below it.
  await params.set('lr', 0.05);
  await toolbar.run();
  await expect(runs.rows).toHaveCount(5);
  await runs.expectStatus(runs.newest, 'ok');
  await canvas.expectStatus(['data', 'split', 'model'], 'cached');
  await canvas.expectStatus(['train', 'eval'], 'ok');

  // Run to here on the training runs no evaluation.
  await params.set('lr', 0.07);
  await canvas.menu('train', 'Run to here');
  await expect(runs.rows).toHaveCount(6);
  await runs.expectStatus(runs.newest, 'ok');
  await canvas.expectStatus(['train'], 'ok');
  await canvas.expectStatus(['eval'], 'skipped');

  await runs.clearCacheButton.click();
  await expect(runs.cache).toContainText('0 entries');
});
