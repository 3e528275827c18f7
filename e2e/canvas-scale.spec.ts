/**
 * A big flow on the canvas (issue 6's "1,000 nodes and 1,000 edges stay
 * usable"): the page holds only the nodes in view, the minimap shows all of
 * them, and a node off screen is there, whole, once the view is panned to it.
 */
import { expect, test } from './fixtures';
import type { Locator } from '@playwright/test';
import type { FlowFile } from './support/formats';

const COPIES = 200;
const COLUMNS = 15;

interface BigNode {
  id: string;
  position: { x: number; y: number };
}

/** `COPIES` copies of the open example side by side: 1,000 nodes, 1,000 edges. */
function bigFlow(example: FlowFile): { doc: FlowFile; nodes: BigNode[] } {
  const suffix = (ref: string, copy: number) => {
    const dot = ref.indexOf('.');
    return `${ref.slice(0, dot)}_${copy}${ref.slice(dot)}`;
  };
  const nodes: FlowFile['nodes'] = [];
  const edges: FlowFile['edges'] = [];
  for (let copy = 0; copy < COPIES; copy++) {
    const dx = (copy % COLUMNS) * 1300;
    const dy = Math.floor(copy / COLUMNS) * 500;
    for (const node of example.nodes)
      nodes.push({
        ...node,
        id: `${node.id}_${copy}`,
        position: { x: node.position.x + dx, y: node.position.y + dy },
      });
    for (const edge of example.edges)
      edges.push({ from: suffix(edge.from, copy), to: suffix(edge.to, copy) });
  }
  return { doc: { ...example, name: 'big-canvas', outputs: [], nodes, edges }, nodes };
}

test('a 1,000-node flow: the minimap shows every node, panning brings off-screen ones in whole', async ({
  page,
  toolbar,
  canvas,
  alerts,
}) => {
  const example = await toolbar.exportFlow();
  const { doc, nodes } = bigFlow(example.json);
  await toolbar.importFile({ name: 'big-canvas.flow.json', text: JSON.stringify(doc) });
  await expect(toolbar.flowName).toHaveText('big-canvas');
  await expect(alerts.all).toHaveCount(0);
  await expect(canvas.minimap.locator('.react-flow__minimap-node')).toHaveCount(nodes.length);
  // Fitting 1,000 nodes stops at the smallest zoom, so part of the flow is off screen.
  await expect.poll(() => canvas.nodes.count()).toBeLessThan(nodes.length);
  expect(await canvas.nodes.count()).toBeGreaterThan(0);

  // A node just past the canvas's right edge, level with its middle.
  const frame = await canvas.root.boundingBox();
  if (!frame) throw new Error('the canvas is not on screen');
  const view = await canvas.view();
  const onScreen = (n: BigNode) => ({
    x: frame.x + view.x + n.position.x * view.zoom,
    y: frame.y + view.y + n.position.y * view.zoom,
  });
  const right = frame.x + frame.width;
  const middle = frame.y + frame.height / 2;
  const target = nodes.find((n) => {
    const at = onScreen(n);
    return at.x > right + 60 && at.x < right + 300 && Math.abs(at.y - middle) < frame.height / 4;
  });
  if (!target) throw new Error('no node lies just right of the view');
  await expect(canvas.node(target.id)).toHaveCount(0);

  // Pan left by dragging the pane from a point near the right edge.
  const start = await page.evaluate(
    ({ right, top, bottom }) => {
      for (let x = right - 40; x > right - 400; x -= 10)
        for (let y = top + 40; y < bottom - 200; y += 10)
          if (document.elementFromPoint(x, y)?.classList.contains('react-flow__pane'))
            return { x, y };
      return null;
    },
    { right, top: frame.y, bottom: frame.y + frame.height },
  );
  if (!start) throw new Error('no empty pane near the canvas\u2019s right edge');
  await canvas.panBy(start, -450, 0);

  await expect(canvas.node(target.id)).toBeVisible();
  await expect(canvas.node(target.id)).toHaveAttribute('data-status', 'idle');
  expect(await canvas.shows(target.id)).toBe(true);
  // Its ports came with it: the edges into it have handles to end on.
  await expect(canvas.node(target.id).locator('.react-flow__handle')).not.toHaveCount(0);
});

test('far out a node is drawn plain, with its handles and status; zoomed in it has its port rows again', async ({
  toolbar,
  canvas,
  alerts,
}) => {
  const example = await toolbar.exportFlow();
  const { doc } = bigFlow(example.json);
  await toolbar.importFile({ name: 'big-canvas.flow.json', text: JSON.stringify(doc) });
  await expect(toolbar.flowName).toHaveText('big-canvas');
  await expect(alerts.all).toHaveCount(0);
  await expect.poll(async () => (await canvas.view()).zoom).toBeLessThan(0.35);
  const kindOf = async (node: Locator) => {
    const id = (await node.getAttribute('data-testid'))!.slice('node-'.length);
    return example.json.nodes.find((n) => id.startsWith(`${n.id}_`))!.kind;
  };
  const handles = /^(input|output) \w+ \(/;
  // The handles keep their names and the node its status; its id line and port rows are not drawn.
  const far = canvas.nodes.first();
  await expect(far).toHaveAttribute('data-status', 'idle');
  await expect(far.getByRole('img', { name: handles })).not.toHaveCount(0);
  await expect(far).not.toContainText(await kindOf(far));
  // The page's far card is a transparent box; the far view draws the card under it, white while
  // idle, and nothing around it.
  const card = (await far.boundingBox())!;
  const centre = { x: card.x + card.width / 2, y: card.y + card.height / 2 };
  await expect.poll(() => canvas.farViewPixel(centre.x, centre.y)).toEqual([255, 255, 255, 255]);
  expect(await canvas.farViewPixel(centre.x, card.y - 4)).toEqual([0, 0, 0, 0]);
  // The far view draws the edges too, the page's own are hidden: halfway along an edge, between
  // its output's handle and its input's, the far view has drawn a grey line.
  const edge = canvas.edges.first();
  await expect(edge).toBeHidden();
  const [from, to] = (await edge.getAttribute('data-id'))!.split('->') as [string, string];
  const out = (await canvas.handle(from, 'output').boundingBox())!;
  const into = (await canvas.handle(to, 'input').boundingBox())!;
  const halfway = {
    x: (out.x + out.width + into.x) / 2,
    y: (out.y + out.height / 2 + into.y + into.height / 2) / 2,
  };
  const [red, green, blue, alpha] = await canvas.farViewPixel(halfway.x, halfway.y);
  expect(alpha).toBeGreaterThan(0);
  expect(Math.max(red!, green!, blue!) - Math.min(red!, green!, blue!)).toBeLessThan(24);
  expect(red).toBeLessThan(230);
  // Its title is not in the page; a screen reader has the node's name all the same.
  const id = (await far.getAttribute('data-testid'))!.slice('node-'.length);
  await expect(far.locator('..')).toHaveAccessibleName(new RegExp(`^${id} \\(.+\\)$`));

  for (let i = 0; i < 12 && (await canvas.view()).zoom < 0.35; i++)
    await canvas.zoomInButton.click();
  expect((await canvas.view()).zoom).toBeGreaterThanOrEqual(0.35);
  const near = canvas.nodes.first();
  await expect(near).toContainText(await kindOf(near));
  await expect(canvas.farView).toHaveCount(0);
  await expect(near.getByRole('img', { name: handles })).not.toHaveCount(0);
});
