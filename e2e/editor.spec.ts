/**
 * The editor by keyboard and history: undo/redo of every kind of edit, the
 * History list, copy/paste and duplicate, select all, the shortcuts dialog,
 * Ctrl+Enter, and renaming and duplicating flows from the library.
 */
import { exampleNodes, expect, test } from './fixtures';
import type { Workbench } from './pages/workbench';

/** The default example's edges. */
const EXAMPLE_EDGES = 5;

/** Press a shortcut with the focus off every field (where the browser's own undo applies). */
async function press(app: Workbench, keys: string): Promise<void> {
  await app.page.keyboard.press(keys);
}

test('undo and redo add, move, connect, param edit and delete; jump back from History', async ({
  app,
  page,
  canvas,
  library,
  inspector,
}) => {
  const { history } = app;
  await expect(history.entries).toHaveText(['Opened']);
  await expect(history.current).toHaveText('Opened');

  // Five edits, one history entry each.
  await library.addNode('MLP');
  await expect(canvas.node('mlp')).toBeVisible();
  const added = await canvas.position('mlp');
  const box = await canvas.root.boundingBox();
  if (!box) throw new Error('the canvas is not on screen');
  await canvas.dragNodeBy('mlp', 0, box.height * 0.3); // a drag of many mouse moves
  await expect.poll(() => canvas.isClear('mlp')).toBe(true);
  const moved = await canvas.position('mlp');
  expect(await canvas.connect('mlp.model', 'train.model')).toBe('valid');
  await expect(canvas.edge('mlp.model', 'train.model')).toBeAttached();
  await canvas.select('mlp');
  await expect(inspector.param('hidden')).toHaveValue('32');
  await inspector.setParam('hidden', 64);
  await canvas.select('eval');
  await page.keyboard.press('Delete');
  await expect(canvas.node('eval')).toHaveCount(0);

  const labels = [
    'Opened',
    'Add mlp',
    'Move mlp',
    'Connect mlp.model → train.model',
    'Set mlp.hidden',
    'Delete eval',
  ];
  await expect(history.entries).toHaveText(labels);
  await expect(history.current).toHaveText('Delete eval');

  /** What the canvas shows after the first `n` edits. */
  const expectState = async (n: number) => {
    await expect(history.current).toHaveText(labels[n]!);
    await expect(canvas.node('mlp')).toHaveCount(n >= 1 ? 1 : 0);
    if (n >= 1) await expect.poll(() => canvas.position('mlp')).toEqual(n >= 2 ? moved : added);
    await expect(canvas.edge('mlp.model', 'train.model')).toHaveCount(n >= 3 ? 1 : 0);
    await expect(canvas.edge('model.model', 'train.model')).toHaveCount(n >= 3 ? 0 : 1);
    if (n >= 1) {
      await canvas.select('mlp');
      await expect(inspector.param('hidden')).toHaveValue(n >= 4 ? '64' : '32');
      await canvas.clickPane();
    }
    await expect(canvas.node('eval')).toHaveCount(n >= 5 ? 0 : 1);
    // Deleting eval takes its two input edges with it.
    await expect(canvas.edges).toHaveCount(EXAMPLE_EDGES - (n >= 5 ? 2 : 0));
  };

  // Ctrl+Z walks back through every edit; nothing is left to undo at `Opened`.
  await canvas.clickPane();
  for (let n = labels.length - 2; n >= 0; n--) {
    await press(app, 'Control+z');
    await expectState(n);
  }
  await press(app, 'Control+z');
  await expectState(0);
  await expect(history.undoButton).toBeDisabled();
  await expect(history.entries).toHaveText(labels); // undone entries stay listed, to redo

  // Ctrl+Shift+Z and Ctrl+Y both redo.
  for (let n = 1; n < labels.length; n++) {
    await press(app, n % 2 === 1 ? 'Control+Shift+Z' : 'Control+y');
    await expectState(n);
  }
  await expect(history.redoButton).toBeDisabled();

  // Clicking an entry goes straight to the state after it, back or forward.
  await history.jumpTo('Connect mlp.model → train.model');
  await expectState(3);
  await history.jumpTo('Opened');
  await expectState(0);
  await history.jumpTo('Delete eval');
  await expectState(5);

  // A new edit after going back replaces what was undone.
  await history.jumpTo('Move mlp');
  await expectState(2);
  await canvas.select('split');
  await page.keyboard.press('Delete');
  await expect(canvas.node('split')).toHaveCount(0);
  await expect(history.entries).toHaveText(['Opened', 'Add mlp', 'Move mlp', 'Delete split']);
  await expect(history.redoButton).toBeDisabled();
});

test('copy and paste two connected nodes as one edit; Ctrl+D duplicates', async ({
  app,
  canvas,
}) => {
  const { history } = app;
  await canvas.selectMany(['data', 'split']);
  await press(app, 'Control+c');
  await press(app, 'Control+v');

  // Two new nodes with fresh ids, and the edge between them rewired to them.
  await expect(canvas.nodes).toHaveCount(exampleNodes.length + 2);
  await expect(canvas.node('data2')).toBeVisible();
  await expect(canvas.node('split2')).toBeVisible();
  await expect(canvas.edge('data2.dataset', 'split2.dataset')).toBeAttached();
  await expect(canvas.edges).toHaveCount(EXAMPLE_EDGES + 1);
  // The originals are untouched.
  await expect(canvas.edge('data.dataset', 'split.dataset')).toBeAttached();
  await expect(history.entries).toHaveText(['Opened', 'Paste']);

  // One undo takes the whole paste away; one redo brings it back.
  await canvas.clickPane();
  await press(app, 'Control+z');
  await expect(canvas.nodes).toHaveCount(exampleNodes.length);
  await expect(canvas.edges).toHaveCount(EXAMPLE_EDGES);
  await expect(history.current).toHaveText('Opened');
  await press(app, 'Control+Shift+Z');
  await expect(canvas.nodes).toHaveCount(exampleNodes.length + 2);
  await expect(canvas.edge('data2.dataset', 'split2.dataset')).toBeAttached();

  // Ctrl+D: the selected node, copied beside itself under a fresh id.
  await canvas.select('model');
  await press(app, 'Control+d');
  await expect(canvas.node('model2')).toBeVisible();
  await expect(canvas.nodes).toHaveCount(exampleNodes.length + 3);
  await expect(history.entries).toHaveText(['Opened', 'Paste', 'Duplicate']);
});

test('Ctrl+A on the canvas selects every node; in a field it selects the text', async ({
  app,
  page,
  canvas,
  params,
}) => {
  /** Whether each of the example's nodes is selected on the canvas. */
  const selection = () =>
    Promise.all(
      exampleNodes.map(async (id) =>
        /\bselected\b/.test((await canvas.node(id).locator('..').getAttribute('class')) ?? ''),
      ),
    );
  await expect(canvas.nodes).toHaveCount(exampleNodes.length);
  expect(await selection()).toEqual(exampleNodes.map(() => false));

  await canvas.clickPane();
  await press(app, 'Control+a');
  await expect.poll(selection).toEqual(exampleNodes.map(() => true));
  // The nodes, not the page's text.
  expect(await page.evaluate(() => String(window.getSelection()))).toBe('');
  // The selection is the editor's own: one Delete removes every node.
  await press(app, 'Delete');
  await expect(canvas.nodes).toHaveCount(0);
  await press(app, 'Control+z');
  await expect(canvas.nodes).toHaveCount(exampleNodes.length);

  // In a field, Ctrl+A selects the field's text and leaves the nodes alone.
  await canvas.clickPane();
  const lr = params.field('lr');
  await lr.fill('0.25');
  await lr.press('Control+a');
  expect(await lr.evaluate((el: HTMLInputElement) => [el.selectionStart, el.selectionEnd])).toEqual(
    [0, 4],
  );
  expect(await selection()).toEqual(exampleNodes.map(() => false));
});

test('? lists the shortcuts; Ctrl+Enter runs the open flow', async ({
  app,
  canvas,
  params,
  runs,
}) => {
  await canvas.clickPane();
  await press(app, '?');
  const dialog = app.shortcutsDialog;
  await expect(dialog).toBeVisible();
  for (const [keys, action] of [
    ['Ctrl/⌘ + Enter', 'Run the open flow'],
    ['Ctrl/⌘ + Z', 'Undo'],
    ['Ctrl/⌘ + Shift + Z, Ctrl + Y', 'Redo'],
    ['Ctrl/⌘ + D', 'Duplicate the selected nodes'],
    ['?', 'Show these shortcuts'],
  ])
    await expect(dialog.getByRole('row', { name: `${keys} ${action}` })).toBeVisible();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();

  await params.set('steps', 10);
  await canvas.clickPane();
  await press(app, 'Control+Enter');
  await expect(runs.rows).toHaveCount(1);
  await runs.expectStatus(runs.newest, 'ok');
  // Every value the run used, the ones left to their defaults too.
  await expect(runs.paramsCells).toHaveText(['lr=0.1 steps=10 seed=0']);
  await expect(runs.detailParams).toHaveText('lr=0.1 steps=10 seed=0');
});

test('rename and duplicate a flow from its menu in Flows; both survive a reload', async ({
  app,
  toolbar,
  library,
  canvas,
}) => {
  await library.renameFlow('spirals-mlp', 'spirals-renamed');
  await expect(library.flow('spirals-renamed')).toHaveAttribute('aria-current', 'true');
  await expect(library.flow('spirals-mlp')).toHaveCount(0);
  await expect(toolbar.flowName).toHaveText('spirals-renamed');

  await library.duplicateFlow('spirals-renamed');
  await expect(library.items).toHaveCount(2);
  await expect(library.flow('spirals-renamed copy')).toHaveAttribute('aria-current', 'true');
  await expect(library.flow('spirals-renamed')).not.toHaveAttribute('aria-current', 'true');
  await expect(toolbar.flowName).toHaveText('spirals-renamed copy');
  await expect(canvas.nodes).toHaveCount(exampleNodes.length);
  await expect(canvas.edges).toHaveCount(EXAMPLE_EDGES);

  await app.reload();
  await expect(library.items).toHaveCount(2);
  await expect(library.flow('spirals-renamed')).toBeVisible();
  await expect(library.flow('spirals-renamed copy')).toHaveAttribute('aria-current', 'true');
  await expect(toolbar.flowName).toHaveText('spirals-renamed copy');
});
