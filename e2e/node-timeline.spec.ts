/**
 * Where a run's time went: after a short run of the default example, its
 * panel draws a lane per node in the order they started, each bar the colour
 * of its outcome; hovering a lane says when the node started and how long it
 * took, and each node on the canvas wears its duration.
 */
import { expect, exampleNodes, test } from './fixtures';
import { NodeTimeline } from './pages/node-timeline';

const DURATION = /^\d+(\.\d)? (ms|s)$/;

test('a finished run shows a lane per node; hovering one shows its timings', async ({
  page,
  params,
  toolbar,
  runs,
  alerts,
}) => {
  const timeline = new NodeTimeline(page);
  await params.set('steps', 10);
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');

  await expect(timeline.lanes).toHaveCount(exampleNodes.length);
  for (const node of exampleNodes)
    await expect(timeline.lane(node)).toHaveAttribute('data-status', 'ok');
  // The order they started in: the trainer after what it reads, the evaluation last.
  const order = await timeline.order();
  expect(order.indexOf('train')).toBeGreaterThan(order.indexOf('model'));
  expect(order.indexOf('train')).toBeGreaterThan(order.indexOf('split'));
  expect(order.at(-1)).toBe('eval');

  await expect(timeline.tooltip).toBeHidden();
  await timeline.hover('train');
  await expect(timeline.tooltip).toHaveText(
    /^train · ok · (waited \S+ (ms|s) · )?started \+\S+ (ms|s) · took \S+ (ms|s)$/,
  );
  await expect(timeline.lane('train')).toHaveAccessibleDescription(/^train · ok/);
  // The canvas shows the same run: each node wears its duration.
  for (const node of exampleNodes) await expect(timeline.canvasDuration(node)).toHaveText(DURATION);
  await expect(alerts.all).toHaveCount(0);
});
