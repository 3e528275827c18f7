/** Cancel run: a long run stops when asked, says so, and keeps what it streamed. */
import { expect, test } from './fixtures';

test('cancel a long run: it ends cancelled and its chart keeps its points', async ({
  toolbar,
  params,
  canvas,
  runs,
  alerts,
}) => {
  await params.set('steps', 100000);
  await toolbar.run();
  await expect(runs.rows).toHaveCount(1);
  const row = runs.newest;
  await runs.expectStatus(row, 'running');
  await expect(canvas.node('train')).toHaveAttribute('data-status', 'running');

  // Let it stream a few losses, then cancel.
  await expect.poll(() => runs.chartPoints('train.loss')).toBeGreaterThanOrEqual(5);
  await expect(toolbar.cancelButton).toBeEnabled();
  await toolbar.cancelRun();
  const streamed = await runs.chartPoints('train.loss');

  await runs.expectStatus(row, 'cancelled');
  await expect(canvas.node('train')).toHaveAttribute('data-status', 'cancelled');
  await expect(canvas.node('eval')).not.toHaveAttribute('data-status', 'ok');
  await expect(toolbar.cancelButton).toBeDisabled();
  await expect(alerts.all).toHaveCount(0);

  // The chart keeps what was logged before the cancel; the record holds the same points.
  const { json: record } = await runs.exportRun();
  expect(record.run.status).toBe('cancelled');
  expect(record.nodes.find((n) => n.node === 'train')?.status).toBe('cancelled');
  const kept = record.metrics['train.loss']?.length ?? 0;
  expect(kept).toBeGreaterThanOrEqual(streamed);
  expect(kept).toBeLessThan(100000 / 5);
  await expect(runs.chart('train.loss')).toHaveAttribute('data-points', String(kept));
});
