/**
 * Rate-limit intervals: on a streaming port they thin what the canvas shows
 * live while the record keeps every value; on a port that emits once, a batch
 * run is refused at submit with the explanation and the fix.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from './fixtures';

const example = JSON.parse(readFileSync('src/examples/spirals-mlp.flow.json', 'utf8')) as {
  name: string;
  nodes: { id: string; rateLimits?: Record<string, number> }[];
};

function exampleWith(name: string, node: string, rateLimits: Record<string, number>): string {
  const flow = structuredClone(example);
  flow.name = name;
  flow.nodes.find((n) => n.id === node)!.rateLimits = rateLimits;
  return JSON.stringify(flow);
}

test('a rate limit on a port that emits once is refused before anything runs', async ({
  toolbar,
  runs,
  alerts,
}) => {
  await toolbar.importFile({
    name: 'limited.flow.json',
    text: exampleWith('limited', 'eval', { accuracy: 500 }),
  });
  await expect(toolbar.flowName).toHaveText('limited');
  await toolbar.run();
  await alerts.expectMessage(
    'nodes[4].rateLimits.accuracy',
    'not a streaming port',
    'Remove the interval',
    "'train.loss'",
  );
  await expect(runs.emptyNote).toBeVisible();
});

test('a rate limit on a stream thins the live value, and the record keeps every point', async ({
  page,
  toolbar,
  runs,
}) => {
  await toolbar.importFile({
    name: 'thinned.flow.json',
    text: exampleWith('thinned', 'train', { loss: 100 }),
  });
  await expect(toolbar.flowName).toHaveText('thinned');
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');
  // The last live value stays on the node's port; the chart holds every point.
  const live = page.getByTestId('node-train').getByRole('status', { name: 'loss live value' });
  await expect(live).toHaveText(/^\d\.\d+/);
  await expect(runs.chart('train.loss')).toHaveAttribute('data-points', '80');
  const file = await runs.exportRun();
  expect(file.json.metrics['train.loss']).toHaveLength(80);
  const last = file.json.metrics['train.loss']!.at(-1)![1] as number;
  expect(Number((await live.textContent()) ?? 'NaN')).toBeCloseTo(last, 3);
});
