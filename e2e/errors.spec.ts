/** Clear refusals: bad run parameters and bad imports say what is wrong and change nothing. */
import { expect, test } from './fixtures';
import type { ImportFile } from './pages/toolbar';
import { fixtureFlowPath } from './support/files';

test.describe('a bad run parameter is refused before anything runs', () => {
  const cases = [
    { value: 'abc', says: `'steps' expects an integer from 1 to 100000, got "abc"` },
    { value: '0', says: `'steps' expects an integer from 1 to 100000, got 0` },
    { value: '2.5', says: `'steps' expects an integer from 1 to 100000, got 2.5` },
  ];
  for (const { value, says } of cases) {
    test(`steps = ${value}`, async ({ toolbar, params, runs, alerts, canvas }) => {
      await params.set('steps', value);
      await toolbar.run();
      const alert = await alerts.expectMessage('run parameters', 'params.steps', says);
      await expect(alert).toHaveAttribute('data-code', 'invalid-flow');
      await expect(runs.rows).toHaveCount(0);
      await expect(runs.emptyNote).toBeVisible();
      await expect(canvas.node('train')).toHaveAttribute('data-status', 'idle');
    });
  }
});

test.describe('a malformed import is refused whole', () => {
  // Each bad file is made from a good one: the open example, as Export flow writes it.
  const cases: {
    title: string;
    file: (example: string) => ImportFile;
    says: (string | RegExp)[];
  }[] = [
    {
      title: 'truncated JSON',
      file: (example) => ({
        name: 'truncated.flow.json',
        text: example.slice(0, example.length / 2),
      }),
      says: ['truncated.flow.json', 'is not valid JSON'],
    },
    {
      title: 'an unknown format',
      file: (example) => ({
        name: 'future.flow.json',
        text: example.replace('"flowbench.flow/1"', '"flowbench.flow/9"'),
      }),
      says: ['future.flow.json', 'flowbench.flow/9', 'flowbench.flow/1'],
    },
    {
      title: 'a node without a kind',
      file: (example) => {
        const doc = JSON.parse(example) as { nodes: Record<string, unknown>[] };
        delete doc.nodes[1]?.kind;
        return { name: 'no-kind.flow.json', text: JSON.stringify(doc) };
      },
      says: ['no-kind.flow.json', 'nodes[1].kind'],
    },
    {
      // Parses, but nothing that walks it (a schema, the copy between threads) survives.
      title: 'JSON nested 200,000 levels deep',
      file: () => ({ name: 'deep.json', text: `${'['.repeat(200_000)}${']'.repeat(200_000)}` }),
      says: ['deep.json', 'more than 256 levels deep'],
    },
    {
      title: 'a cycle',
      file: () => fixtureFlowPath('cyclic'),
      says: ['cyclic.flow.json', 'cycle', /split → split2 → split|split2 → split → split2/],
    },
    {
      title: 'a type mismatch',
      file: () => fixtureFlowPath('type-mismatch'),
      says: [
        'type-mismatch.flow.json',
        'edges[2]',
        'data.dataset',
        'train.model',
        /dataset\b.*\bmodel/,
      ],
    },
  ];
  for (const { title, file, says } of cases) {
    test(title, async ({ toolbar, library, alerts, canvas }) => {
      await expect(library.flows.getByRole('listitem')).toHaveCount(1);
      const example = await toolbar.exportFlow();
      await toolbar.importFile(file(example.text));
      const alert = await alerts.expectMessage(...says);
      await expect(alert).toHaveAttribute('data-code', 'bad-import');
      await expect(library.flows.getByRole('listitem')).toHaveCount(1);
      await expect(library.flow('spirals-mlp')).toHaveAttribute('aria-current', 'true');
      await expect(toolbar.flowName).toHaveText('spirals-mlp');
      await expect(canvas.nodes).toHaveCount(5);
    });
  }

  test('while a good file imports as a new flow', async ({ toolbar, library, alerts, canvas }) => {
    const example = await toolbar.exportFlow();
    const doc = JSON.parse(example.text) as { name: string };
    doc.name = 'spirals-copy';
    await toolbar.importFile({ name: 'spirals-copy.flow.json', text: JSON.stringify(doc) });
    await expect(toolbar.flowName).toHaveText('spirals-copy');
    await expect(library.flows.getByRole('listitem')).toHaveCount(2);
    await expect(library.flow('spirals-copy')).toHaveAttribute('aria-current', 'true');
    await expect(canvas.nodes).toHaveCount(5);
    await expect(alerts.all).toHaveCount(0);
  });
});

test('an exported run imports into another browser once', async ({
  toolbar,
  params,
  runs,
  openFreshApp,
}) => {
  await params.set('steps', 20);
  await toolbar.run();
  await expect(runs.rows).toHaveCount(1);
  await runs.expectStatus(runs.newest, 'ok');
  const exported = await runs.exportRun();
  const { id } = exported.json.run;
  const points = exported.json.metrics['train.loss']?.length ?? 0;
  expect(points).toBeGreaterThan(0);

  const elsewhere = await openFreshApp();
  await expect(elsewhere.runs.rows).toHaveCount(0);
  const file = { name: exported.filename, text: exported.text };
  await elsewhere.toolbar.importFile(file);
  const row = elsewhere.runs.row(id);
  await expect(row).toHaveCount(1);
  await elsewhere.runs.expectStatus(row, 'ok');
  await elsewhere.runs.select(row);
  await expect(elsewhere.runs.chart('train.loss')).toHaveAttribute('data-points', String(points));
  await expect(elsewhere.alerts.all).toHaveCount(0);

  // The same file again: refused, and still one row.
  await elsewhere.toolbar.importFile(file);
  const refused = await elsewhere.alerts.expectMessage(id, 'already');
  await expect(refused).toHaveAttribute('data-code', 'run-exists');
  await expect(elsewhere.runs.rows).toHaveCount(1);

  // What was imported exports back to the same record.
  const back = await elsewhere.runs.exportRun();
  expect(back.json).toEqual(exported.json);
});
