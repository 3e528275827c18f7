/** Layout on the canvas: align, auto-layout and groups, each one undo; groups persist. */
import { exampleNodes, expect, test } from './fixtures';
import type { Canvas } from './pages/canvas';
import { LayoutBar } from './pages/layout';
import { Workbench } from './pages/workbench';

/** Every node's screen box, by id. */
async function boxes(canvas: Canvas, ids: readonly string[]) {
  const out = new Map<string, { x: number; y: number; width: number; height: number }>();
  for (const id of ids) {
    const box = await canvas.node(id).boundingBox();
    if (!box) throw new Error(`${id} is not on screen`);
    out.set(id, box);
  }
  return out;
}

const edges = [
  ['data', 'split'],
  ['split', 'train'],
  ['model', 'train'],
  ['train', 'eval'],
  ['split', 'eval'],
] as const;

test('align the selected nodes left, then one undo puts them back', async ({
  page,
  app,
  canvas,
}) => {
  const layout = new LayoutBar(page);
  const picked = ['split', 'model', 'eval'];
  const before = await Promise.all(picked.map((id) => canvas.position(id)));
  expect(new Set(before.map((p) => p.x)).size).toBeGreaterThan(1);

  await canvas.selectMany(picked);
  await layout.use('Align left');
  await expect
    .poll(
      async () =>
        new Set((await Promise.all(picked.map((id) => canvas.position(id)))).map((p) => p.x)).size,
    )
    .toBe(1);
  const left = Math.min(...before.map((p) => p.x));
  expect((await canvas.position('split')).x).toBeCloseTo(left, -1);
  // Only x moved, and nodes outside the selection stayed.
  for (const [i, id] of picked.entries()) expect((await canvas.position(id)).y).toBe(before[i]!.y);
  await expect(app.history.current).toHaveText(/Align left/);

  await page.keyboard.press('Control+z');
  for (const [i, id] of picked.entries())
    await expect.poll(() => canvas.position(id)).toEqual(before[i]);

  // The shortcut does the same (Alt+W: align top).
  await canvas.selectMany(['data', 'model']);
  await page.keyboard.press('Alt+w');
  await expect
    .poll(async () => (await canvas.position('data')).y === (await canvas.position('model')).y)
    .toBe(true);
});

test('auto-layout sends every edge left to right; undo restores the drawing', async ({
  page,
  app,
  canvas,
}) => {
  const layout = new LayoutBar(page);
  // Drag `data` to the right of everything, so data → split runs backwards.
  const start = await boxes(canvas, exampleNodes);
  const rightmost = Math.max(...[...start.values()].map((b) => b.x + b.width));
  await canvas.dragNodeBy('data', rightmost - start.get('data')!.x + 40, 0);
  const jumbled = await boxes(canvas, exampleNodes);
  expect(jumbled.get('data')!.x).toBeGreaterThan(jumbled.get('split')!.x);

  await canvas.clickPane();
  await layout.use('Auto-layout');
  await expect(app.history.current).toHaveText(/Auto-layout/);
  const after = await boxes(canvas, exampleNodes);
  for (const [from, to] of edges)
    expect(after.get(from)!.x + after.get(from)!.width, `${from} → ${to}`).toBeLessThan(
      after.get(to)!.x,
    );

  await page.keyboard.press('Control+z');
  await expect
    .poll(() => canvas.position('data'))
    .toEqual({
      x: Math.round(jumbled.get('data')!.x),
      y: Math.round(jumbled.get('data')!.y),
    });
  await expect(app.history.current).not.toHaveText(/Auto-layout/);
});

test('a group frames its nodes, drags them together, keeps its title through reload and export → import', async ({
  page,
  app,
  canvas,
  toolbar,
  library,
}) => {
  const layout = new LayoutBar(page);
  await canvas.selectMany(['data', 'split']);
  await page.keyboard.press('Control+g');
  await expect(layout.frame('group')).toBeVisible();
  await layout.rename('group', 'Data prep');

  // Drag the frame: both members move by the frame's delta; the others stay.
  const before = await boxes(canvas, exampleNodes);
  const frameBefore = await layout.frame('group').boundingBox();
  await layout.dragFrameBy('group', 60, 90);
  const after = await boxes(canvas, exampleNodes);
  const frameAfter = await layout.frame('group').boundingBox();
  const moved = { x: frameAfter!.x - frameBefore!.x, y: frameAfter!.y - frameBefore!.y };
  // React Flow starts a drag once the pointer has moved a little: most of the 60 × 90 arrives.
  expect(moved.x).toBeGreaterThan(40);
  expect(moved.y).toBeGreaterThan(60);
  for (const id of ['data', 'split']) {
    expect(after.get(id)!.x - before.get(id)!.x).toBeCloseTo(moved.x, 0);
    expect(after.get(id)!.y - before.get(id)!.y).toBeCloseTo(moved.y, 0);
  }
  for (const id of ['model', 'train', 'eval']) {
    expect(after.get(id)!.x).toBeCloseTo(before.get(id)!.x, 0);
    expect(after.get(id)!.y).toBeCloseTo(before.get(id)!.y, 0);
  }
  await expect(app.history.current).toHaveText(/Move 2 nodes/);

  // The group is in the autosaved flow: another tab opens it, then a reload keeps it.
  const other = new Workbench(await page.context().newPage());
  await expect(async () => {
    await other.open();
    await expect(new LayoutBar(other.page).title('group')).toHaveText('Data prep', {
      timeout: 2_000,
    });
  }).toPass();
  await other.page.close();
  await app.reload();
  await expect(layout.title('group')).toHaveText('Data prep');

  // Export → import: the imported copy has the same group.
  const exported = await toolbar.exportFlow();
  expect(exported.json.groups).toEqual([
    { id: 'group', title: 'Data prep', nodes: ['data', 'split'] },
  ]);
  await toolbar.importFile({ name: 'grouped.flow.json', text: exported.text });
  await expect(library.items).toHaveCount(2);
  await expect(layout.title('group')).toHaveText('Data prep');

  // Deleting the frame dissolves the group and keeps its nodes; undo brings it back.
  await layout.title('group').click();
  await page.keyboard.press('Delete');
  await expect(layout.frame('group')).toHaveCount(0);
  await expect(canvas.nodes).toHaveCount(exampleNodes.length);
  await page.keyboard.press('Control+z');
  await expect(layout.title('group')).toHaveText('Data prep');
});

test('a layout command without a fitting selection says what it needs and changes nothing', async ({
  page,
  app,
  alerts,
}) => {
  const layout = new LayoutBar(page);
  await app.canvas.select('data');
  await layout.use('Distribute horizontally');
  await alerts.expectMessage('Distribute horizontally', 'three or more nodes');
  await expect(app.history.entries).toHaveCount(1);
});

test('the help dialog lists the layout shortcuts', async ({ page, app }) => {
  await app.canvas.clickPane();
  await page.keyboard.press('?');
  await expect(app.shortcutsDialog).toBeVisible();
  for (const [keys, action] of [
    ['Alt + A', 'Align left'],
    ['Alt + Shift + H', 'Distribute horizontally'],
    ['Alt + L', 'Auto-layout'],
    ['Ctrl/⌘ + G', 'Group'],
  ] as const)
    await expect(app.shortcutsDialog.getByRole('row', { name: keys })).toContainText(action);
});
