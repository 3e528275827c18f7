/**
 * What a newcomer sees first: the default flow once in the library, and each
 * example opened laid out (no node over another) and fitted to the view
 * (every node inside the canvas), whatever positions its file holds.
 */
import { expect, test } from './fixtures';
import type { Canvas } from './pages/canvas';

const EXAMPLES = [
  'spirals-mlp',
  'pendulum-world-model',
  'spirals-lr-sweep',
  'onnx-inference',
  'iris-table',
  'iris-attention',
  'digits-images',
  'digits-cnn',
];

/** Ids of the nodes drawn, and those that overlap another or leave the canvas. */
async function misplaced(canvas: Canvas): Promise<{ ids: string[]; bad: string[] }> {
  const ids: string[] = [];
  for (const node of await canvas.nodes.all())
    ids.push(((await node.getAttribute('data-testid')) ?? '').replace(/^node-/, ''));
  const bad: string[] = [];
  for (const id of ids) if (!(await canvas.isClear(id)) || !(await canvas.shows(id))) bad.push(id);
  return { ids, bad };
}

test('the first screen shows the default flow once, every node clear and in view', async ({
  canvas,
  library,
}) => {
  await expect(library.items).toHaveCount(1);
  await expect(library.flow('spirals-mlp')).toBeVisible();
  await expect.poll(async () => (await misplaced(canvas)).bad).toEqual([]);
});

test('each example opens laid out and fitted to the view', async ({ page, canvas, toolbar }) => {
  for (const name of EXAMPLES) {
    await page.getByRole('button', { name: 'Examples', exact: true }).click();
    const gallery = page.getByRole('dialog', { name: 'Examples' });
    await gallery.getByRole('button', { name, exact: true }).click();
    await expect(gallery).toBeHidden();
    await expect(toolbar.flowName).toHaveText(name);
    await expect
      .poll(async () => {
        const { ids, bad } = await misplaced(canvas);
        return ids.length > 0 && bad.length === 0 ? 'laid out' : `misplaced: ${bad.join(', ')}`;
      }, name)
      .toBe('laid out');
  }
});
