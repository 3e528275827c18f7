/** A first visit: the default example is on the canvas, in the library, ready to run. */
import { exampleNodes, expect, test } from './fixtures';

test('opens with the default example flow on the canvas', async ({
  toolbar,
  canvas,
  library,
  runs,
}) => {
  await expect(toolbar.flowName).toHaveText('spirals-mlp');
  await expect(canvas.nodes).toHaveCount(exampleNodes.length);
  for (const id of exampleNodes) {
    await expect(canvas.node(id)).toBeVisible();
    await expect(canvas.node(id)).toHaveAttribute('data-status', 'idle');
  }
  await expect(canvas.edges).toHaveCount(5);
  await expect(canvas.edge('data.dataset', 'split.dataset')).toBeAttached();

  // The flow is saved in the library, and it is the one open.
  await expect(library.flows.getByRole('listitem')).toHaveCount(1);
  await expect(library.flow('spirals-mlp')).toHaveAttribute('aria-current', 'true');

  // Nothing has run yet.
  await expect(runs.rows).toHaveCount(0);
  await expect(runs.emptyNote).toBeVisible();
  await expect(toolbar.runButton).toBeEnabled();
  await expect(toolbar.cancelButton).toBeDisabled();
});

test('the canvas has a minimap and working pan and zoom controls', async ({ canvas, alerts }) => {
  await expect(canvas.minimap).toBeVisible();
  await expect(canvas.root.locator('.react-flow__minimap-node')).toHaveCount(exampleNodes.length);

  const start = await canvas.view();
  await canvas.zoomInButton.click();
  await expect.poll(async () => (await canvas.view()).zoom).toBeGreaterThan(start.zoom);
  const zoomed = await canvas.view();
  await canvas.zoomOutButton.click();
  await expect.poll(async () => (await canvas.view()).zoom).toBeLessThan(zoomed.zoom);

  // Dragging the empty pane pans the view, far enough that part of the flow
  // leaves it; Fit View brings the whole flow back.
  const box = await canvas.root.boundingBox();
  if (!box) throw new Error('the canvas is not on screen');
  const before = await canvas.view();
  await canvas.panBy(await canvas.emptyPoint(), box.width / 2, 40);
  await expect.poll(async () => (await canvas.view()).x).toBeGreaterThan(before.x + box.width / 4);
  await expect.poll(() => canvas.shows('eval')).toBe(false);
  await canvas.fitViewButton.click();
  for (const id of exampleNodes) await expect.poll(() => canvas.shows(id)).toBe(true);
  await expect(alerts.all).toHaveCount(0);
});
