/** Editing a flow on the canvas: add, connect, refuse a bad connection, delete, autosave. */
import { exampleNodes, expect, test } from './fixtures';
import type { Canvas } from './pages/canvas';
import { Workbench } from './pages/workbench';

/** Move a freshly added node (it lands in the middle of the view) below the flow, clear of the others. */
async function moveClear(canvas: Canvas, id: string): Promise<void> {
  const box = await canvas.root.boundingBox();
  if (!box) throw new Error('the canvas is not on screen');
  await canvas.dragNodeBy(id, 0, box.height * 0.3);
  await expect
    .poll(() => canvas.isClear(id), { message: `${id} is clear of the other nodes` })
    .toBe(true);
}

test('add a node from the palette, connect its ports, refuse a type mismatch', async ({
  canvas,
  library,
  inspector,
  alerts,
}) => {
  await expect(canvas.nodes).toHaveCount(exampleNodes.length);
  await expect(canvas.edges).toHaveCount(5);

  await library.addNode('Train classifier');
  await expect(canvas.nodes).toHaveCount(exampleNodes.length + 1);
  await expect(canvas.node('classifier')).toBeVisible();
  await expect(canvas.node('classifier')).toHaveAttribute('data-status', 'idle');
  await expect(inspector.showing('classifier')).toBeVisible();
  await moveClear(canvas, 'classifier');

  // model (model) → classifier.model (model): accepted.
  expect(await canvas.connect('model.model', 'classifier.model')).toBe('valid');
  await expect(canvas.edges).toHaveCount(6);
  await expect(canvas.edge('model.model', 'classifier.model')).toBeAttached();

  // data (dataset) → classifier.model (model): refused while dragging, no edge after the drop.
  expect(await canvas.connect('data.dataset', 'classifier.model')).toBe('invalid');
  await expect(canvas.edges).toHaveCount(6);
  await expect(canvas.edge('data.dataset', 'classifier.model')).toHaveCount(0);
  await expect(canvas.edge('model.model', 'classifier.model')).toBeAttached();
  // Should a drop get through anyway, the message names both types.
  for (const message of await alerts.all.allInnerTexts()) {
    expect(message).toContain('dataset');
    expect(message).toContain('model');
  }

  // split.train (dataset) → classifier.dataset (dataset): accepted.
  expect(await canvas.connect('split.train', 'classifier.dataset')).toBe('valid');
  await expect(canvas.edges).toHaveCount(7);
  await expect(canvas.edge('split.train', 'classifier.dataset')).toBeAttached();
});

test('delete nodes with the Delete key and the inspector; edits survive a reload', async ({
  app,
  page,
  canvas,
  library,
  inspector,
}) => {
  await library.addNode('MLP');
  await expect(canvas.node('mlp')).toBeVisible();
  await moveClear(canvas, 'mlp');
  expect(await canvas.connect('mlp.model', 'train.model')).toBe('valid');
  // An input takes one edge: the new one replaces model → train.
  await expect(canvas.edge('mlp.model', 'train.model')).toBeAttached();
  await expect(canvas.edge('model.model', 'train.model')).toHaveCount(0);
  await expect(canvas.edges).toHaveCount(5);

  // Select `split` and press Delete: it goes, with its three edges.
  await canvas.select('split');
  await expect(inspector.showing('split')).toBeVisible();
  await page.keyboard.press('Delete');
  await expect(canvas.node('split')).toHaveCount(0);
  await expect(canvas.edges).toHaveCount(2);
  await expect(canvas.edge('data.dataset', 'split.dataset')).toHaveCount(0);

  // Select `eval` and use the inspector's button: it goes, with train → eval.
  await canvas.select('eval');
  await expect(inspector.showing('eval')).toBeVisible();
  await inspector.deleteNode();
  await expect(canvas.node('eval')).toHaveCount(0);
  await expect(canvas.edges).toHaveCount(1);
  await expect(canvas.edge('train.model', 'eval.model')).toHaveCount(0);

  const edited = ['data', 'model', 'train', 'mlp'];
  const expectEdited = async (c: Canvas, timeout?: number) => {
    await expect(c.nodes).toHaveCount(edited.length, { timeout });
    for (const id of edited) await expect(c.node(id)).toBeVisible({ timeout });
    await expect(c.edges).toHaveCount(1, { timeout });
    await expect(c.edge('mlp.model', 'train.model')).toBeAttached({ timeout });
  };

  // The autosave is debounced: wait until another tab of the same browser
  // opens the edited flow (reloading this tab too early would drop the edit).
  const other = new Workbench(await page.context().newPage());
  await expect(async () => {
    await other.open();
    await expectEdited(other.canvas, 2_000);
  }).toPass();
  await other.page.close();

  await app.reload();
  await expect(app.toolbar.flowName).toHaveText('spirals-mlp');
  await expectEdited(canvas);
  await expect(library.flows.getByRole('listitem')).toHaveCount(1);
});
