/**
 * The autosave waits for a pause in editing, but a page that goes away does
 * not wait for it: an edit made just before the tab is closed is saved.
 */
import { exampleNodes, expect, test } from './fixtures';
import { openTab } from './support/tabs';

test('an edit made just before the tab closes is there when the flow is reopened', async ({
  page,
  canvas,
  inspector,
}) => {
  await canvas.select('split');
  await expect(inspector.showing('split')).toBeVisible();
  await page.keyboard.press('Delete');
  await expect(canvas.node('split')).toHaveCount(0);
  // Closed at once, well inside the autosave's pause (a quarter second).
  await page.close({ runBeforeUnload: true });

  const { app, errors } = await openTab(page.context());
  await expect(app.toolbar.flowName).toHaveText('spirals-mlp');
  await expect(app.canvas.nodes).toHaveCount(exampleNodes.length - 1);
  await expect(app.canvas.node('split')).toHaveCount(0);
  await expect(app.library.items).toHaveCount(1);
  expect(errors).toEqual([]);
});
