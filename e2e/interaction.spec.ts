/**
 * Working the canvas with menus and the keyboard: the context menu, quick
 * add, bypass, binding a param to a flow input, two tabs on one flow, and
 * the sweep and ONNX examples.
 */
import { expect, test } from './fixtures';
import { openTab } from './support/tabs';
import type { Workbench } from './pages/workbench';

const mod = process.platform === 'darwin' ? 'Meta' : 'Control';
/** Runs train in the engine worker; on a busy machine that takes a while (a wait, not a measure). */
const RUN_WAIT = { timeout: 120_000 };

/** A point on the empty canvas, below the example's nodes and clear of the minimap and controls. */
async function emptySpot(app: Workbench): Promise<{ x: number; y: number }> {
  const box = await app.canvas.root.boundingBox();
  if (!box) throw new Error('the canvas is not on screen');
  return { x: box.x + box.width * 0.45, y: box.y + box.height * 0.88 };
}

test('the context menu duplicates a node as one undoable edit, and opens from the keyboard', async ({
  app,
  page,
  canvas,
}) => {
  await canvas.node('model').click({ button: 'right', position: { x: 12, y: 8 } });
  const menu = page.getByRole('menu', { name: 'Node model menu' });
  await expect(menu.getByRole('menuitem')).toHaveText([
    /^Copy/,
    /^Cut/,
    /^Paste/,
    /^Duplicate/,
    /^Delete/,
    /^Run to here/,
    /^Run from here/,
  ]);
  await expect(menu.getByRole('menuitemcheckbox', { name: 'Bypass' })).toBeVisible();
  await menu.getByRole('menuitem', { name: 'Duplicate' }).click();
  await expect(menu).toHaveCount(0);
  await expect(canvas.nodes).toHaveCount(6);
  await expect(canvas.node('model2')).toBeVisible();
  await expect(app.history.list).toContainText('Duplicate');

  await page.keyboard.press(`${mod}+z`);
  await expect(canvas.node('model2')).toHaveCount(0);
  await expect(canvas.nodes).toHaveCount(5);

  // Shift+F10 on a focused node opens its menu; arrows move, Escape closes.
  await canvas.node('eval').locator('..').focus();
  await page.keyboard.press('Shift+F10');
  const evalMenu = page.getByRole('menu', { name: 'Node eval menu' });
  await expect(evalMenu.getByRole('menuitem', { name: 'Copy' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(evalMenu.getByRole('menuitem', { name: 'Cut' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(evalMenu).toHaveCount(0);

  // Copy from the menu, paste from the canvas's menu where it was opened.
  await canvas.node('eval').click({ button: 'right', position: { x: 12, y: 8 } });
  await evalMenu.getByRole('menuitem', { name: 'Copy' }).click();
  const spot = await emptySpot(app);
  await page.mouse.click(spot.x, spot.y, { button: 'right' });
  await page
    .getByRole('menu', { name: 'Canvas menu' })
    .getByRole('menuitem', { name: 'Paste' })
    .click();
  await expect(canvas.node('eval2')).toBeVisible();
  const pasted = await canvas.position('eval2');
  expect(Math.abs(pasted.x - spot.x)).toBeLessThan(4);
  expect(Math.abs(pasted.y - spot.y)).toBeLessThan(4);
});

test('double-click on the canvas adds the searched kind where it was clicked', async ({
  app,
  page,
  canvas,
}) => {
  const spot = await emptySpot(app);
  await page.mouse.dblclick(spot.x, spot.y);
  const quick = page.getByRole('dialog', { name: 'Quick add' });
  const search = quick.getByRole('combobox', { name: 'Find a node kind' });
  await expect(search).toBeFocused();
  await search.fill('classifier share');
  await expect(quick.getByRole('option', { selected: true })).toContainText('eval.accuracy');
  await page.keyboard.press('Enter');
  await expect(quick).toHaveCount(0);
  await expect(canvas.nodes).toHaveCount(6);
  const added = await canvas.position('accuracy');
  expect(Math.abs(added.x - spot.x)).toBeLessThan(4);
  expect(Math.abs(added.y - spot.y)).toBeLessThan(4);
  await page.keyboard.press(`${mod}+z`);
  await expect(canvas.node('accuracy')).toHaveCount(0);

  // Escape closes it and adds nothing; so does the canvas menu's `Add node…` opened then left.
  await page.mouse.click(spot.x, spot.y, { button: 'right' });
  await page
    .getByRole('menu', { name: 'Canvas menu' })
    .getByRole('menuitem', { name: 'Add node…' })
    .click();
  await expect(search).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(quick).toHaveCount(0);
  await expect(canvas.nodes).toHaveCount(5);
});

test('a bypassed node is skipped and passes its dataset on; what needs its model is skipped', async ({
  page,
  canvas,
  params,
  toolbar,
  runs,
  inspector,
}) => {
  test.setTimeout(400_000);
  await params.set('steps', 20);
  await canvas.select('split');
  await page.keyboard.press(`${mod}+b`);
  await expect(canvas.node('split')).toHaveAttribute('data-bypass', 'true');
  await expect(canvas.node('split')).toContainText('bypassed');
  const { json: exported } = await toolbar.exportFlow();
  expect(exported.format).toBe('flowbench.flow/2');
  expect(exported.nodes.find((n) => n.id === 'split')?.bypass).toBe(true);

  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok', RUN_WAIT);
  await canvas.expectStatus(['data', 'model', 'train', 'eval'], 'ok');
  await canvas.expectStatus(['split'], 'skipped');
  const { json: first } = await runs.exportRun();
  expect(first.nodes.find((n) => n.node === 'split')?.error).toBe('bypassed');

  // The model has no input to pass on: train and eval are skipped, naming it.
  await canvas.select('model');
  await inspector.root.getByRole('checkbox', { name: /^Bypass/ }).check();
  await toolbar.run();
  await expect(runs.rows).toHaveCount(2);
  await runs.expectStatus(runs.newest, 'ok', RUN_WAIT);
  await canvas.expectStatus(['split', 'model', 'train', 'eval'], 'skipped');
  const { json: second } = await runs.exportRun();
  expect(second.nodes.find((n) => n.node === 'train')?.error).toBe(
    "skipped: node 'model' is bypassed and has no model input to pass on as 'model'",
  );
  expect(second.flow.format).toBe('flowbench.flow/2');

  // The menu's checkbox says so, and turns it off again (one undoable edit each).
  await canvas.node('model').click({ button: 'right', position: { x: 12, y: 8 } });
  const bypass = page.getByRole('menuitemcheckbox', { name: 'Bypass' });
  await expect(bypass).toHaveAttribute('aria-checked', 'true');
  await bypass.click();
  await expect(canvas.node('model')).not.toHaveAttribute('data-bypass', 'true');
  await page.keyboard.press(`${mod}+z`);
  await expect(canvas.node('model')).toHaveAttribute('data-bypass', 'true');
});

test('bind a param to a flow input: Run parameters show it and a run uses it', async ({
  page,
  canvas,
  inspector,
  params,
  toolbar,
  runs,
}) => {
  test.setTimeout(400_000);
  await canvas.select('train');
  await inspector.root.getByRole('button', { name: 'Bind to flow input (batch_size)' }).click();
  await expect(inspector.param('batch_size')).toHaveValue("← flow input 'batch_size'");
  await expect(params.field('batch_size')).toHaveValue('64');
  await expect(params.form).toContainText('int ≥ 1');

  await params.set('batch_size', 16);
  await params.set('steps', 10);
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok', RUN_WAIT);
  const { json: record } = await runs.exportRun();
  expect(record.run.params).toMatchObject({ batch_size: 16, steps: 10 });
  expect(record.flow.nodes.find((n) => n.id === 'train')?.params.batch_size).toEqual({
    $input: 'batch_size',
  });

  await inspector.root.getByRole('button', { name: 'Unbind batch_size' }).click();
  await expect(inspector.param('batch_size')).toHaveValue('64');
  // Binding was one edit: undoing the unbind and then the bind takes the input away.
  await page.keyboard.press(`${mod}+z`);
  await page.keyboard.press(`${mod}+z`);
  await expect(params.field('batch_size')).toHaveCount(0);
  await expect(inspector.param('batch_size')).toHaveValue('64');
});

test('two tabs editing one flow: the later one is told, and nothing is lost', async ({
  app,
  page,
}) => {
  const other = (await openTab(page.context())).app;
  for (const tab of [app, other]) await expect(tab.canvas.nodes).toHaveCount(5);
  await app.canvas.select('eval');
  await other.canvas.select('model');
  // Both tabs duplicate a node at once, before either has saved.
  await Promise.all([app.page.keyboard.press(`${mod}+d`), other.page.keyboard.press(`${mod}+d`)]);
  await expect(app.canvas.node('eval2')).toBeVisible();
  await expect(other.canvas.node('model2')).toBeVisible();

  const conflict = (tab: Workbench) =>
    tab.page.getByRole('alert').filter({ hasText: 'Another tab saved' });
  await expect
    .poll(async () => (await conflict(app).count()) + (await conflict(other).count()))
    .toBe(1);
  const [told, first] = (await conflict(app).count()) === 1 ? [app, other] : [other, app];
  const mine = told === app ? 'eval2' : 'model2';
  const theirs = told === app ? 'model2' : 'eval2';
  await conflict(told).getByRole('button', { name: 'Keep mine as a copy' }).click();
  await expect(told.toolbar.flowName).toHaveText('spirals-mlp (copy)');
  await expect(told.canvas.node(mine)).toBeVisible();
  await expect(conflict(told)).toHaveCount(0);

  // The original holds the other tab's edit, the copy this one's; both survive a reload.
  await told.library.flow('spirals-mlp').click();
  await expect(told.toolbar.flowName).toHaveText('spirals-mlp');
  await expect(told.canvas.node(theirs)).toBeVisible();
  await expect(told.canvas.node(mine)).toHaveCount(0);
  await first.reload();
  await first.library.flow('spirals-mlp (copy)').click();
  await expect(first.canvas.node(mine)).toBeVisible();
  await expect(first.canvas.node(theirs)).toHaveCount(0);
});

test('two tabs editing different flows both keep their edits', async ({ app, page }) => {
  const other = (await openTab(page.context())).app;
  await other.toolbar.openExample('pendulum-world-model');
  await app.canvas.select('eval');
  await other.canvas.select('sample');
  await Promise.all([app.page.keyboard.press(`${mod}+d`), other.page.keyboard.press(`${mod}+d`)]);
  await expect(app.canvas.node('eval2')).toBeVisible();
  await expect(other.canvas.node('sample2')).toBeVisible();
  await expect(app.page.getByRole('alert')).toHaveCount(0);
  await expect(other.page.getByRole('alert')).toHaveCount(0);
  // The first tab opens the other flow from the library: it shows the other tab's edit
  // (once saved there, a clean tab takes it up), and its own edit was saved on the way.
  await app.library.flow('pendulum-world-model').click();
  await expect(app.canvas.node('sample2')).toBeVisible();
  await app.reload();
  await app.library.flow('spirals-mlp').click();
  await expect(app.canvas.node('eval2')).toBeVisible();
  await app.library.flow('pendulum-world-model').click();
  await expect(app.canvas.node('sample2')).toBeVisible();
});

test('the sweep and ONNX examples open as new flows and run', async ({
  canvas,
  inspector,
  library,
  params,
  toolbar,
  runs,
}) => {
  test.setTimeout(400_000);
  await toolbar.openExample('spirals-lr-sweep');
  await expect(params.field('lr')).toHaveValue('0.03, 0.1, 0.3');
  await expect(params.sweepButton).toHaveText('Run sweep (3 runs)');
  await params.set('steps', 20); // the example's lr list stays; fewer steps keep the test short
  await params.runSweep();
  await expect(runs.rows).toHaveCount(3);
  for (const row of await runs.rows.all()) await runs.expectStatus(row, 'ok', RUN_WAIT);

  await toolbar.openExample('onnx-inference');
  await expect(library.flow('onnx-inference')).toBeVisible();
  // The model's card, read by the engine from the stored file: what it takes and gives.
  await canvas.select('infer');
  const card = inspector.root.getByRole('region', { name: 'Model card' });
  await expect(card).toContainText('flowbench · IR 8 · opset ai.onnx 17');
  await expect(card.getByRole('list', { name: 'Model inputs' })).toHaveText('x float32 [batch×2]');
  await expect(card.getByRole('list', { name: 'Model outputs' }).getByRole('listitem')).toHaveText([
    'logits float32 [batch×2]',
    'probabilities float32 [batch×2]',
  ]);
  await expect(card.getByLabel('Model operators')).toHaveText('2 nodes: Gemm ×1, Softmax ×1');
  await toolbar.run();
  await expect(runs.rows).toHaveCount(4);
  await runs.expectStatus(runs.newest, 'ok', RUN_WAIT);
  const { json: record } = await runs.exportRun();
  expect(record.run.result.accuracy).toBe(1);
  expect(record.run.result.outputs).toMatch(/^logits: float32 \[200×2\] = \[/);
});
