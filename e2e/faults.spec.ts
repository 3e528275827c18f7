/**
 * Faults and bad input (fault suite 2, 3 and 5): values JSON cannot spell,
 * run files that must be refused whole, and storage that runs out.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { expect, test } from './fixtures';
import { Workbench } from './pages/workbench';
import { fixtureRunPath } from './support/files';
import { pointSteps, pointValue, type RunFile } from './support/formats';

/**
 * A hand-written run whose loss diverged: NaN, ±Infinity, -0, 1e308, the
 * smallest subnormal and a value that needs all 17 digits, each in the
 * documented encoding (`[step, null, ts, "NaN"]` for what JSON cannot spell).
 */
const nonFinitePath = fixtureRunPath('non-finite');
const nonFiniteText = readFileSync(nonFinitePath, 'utf8');
const nonFinite = JSON.parse(nonFiniteText) as RunFile;

test('NaN, ±Infinity, -0 and 1e308 are charted, and export back bit for bit', async ({
  runs,
  alerts,
  toolbar,
}) => {
  await toolbar.importFile(nonFinitePath);
  const row = runs.row(nonFinite.run.id);
  await runs.expectStatus(row, 'ok');
  await expect(row).toHaveAttribute('aria-selected', 'true');
  await expect(alerts.all).toHaveCount(0);

  const loss = nonFinite.metrics['train.loss'] ?? [];
  const chart = runs.chart('train.loss');
  await expect(chart).toBeVisible();
  await expect(chart).toHaveAttribute('data-points', String(loss.length));
  // NaN, Infinity and -Infinity are not finite; -0 and 1e308 are.
  await expect(chart).toHaveAccessibleDescription(
    new RegExp(`^${loss.length} points\\b.*\\b3 non-finite\\b`),
  );

  const back = await runs.exportRun();
  expect(back.filename).toBe(`${nonFinite.run.id}.run.json`);
  expect(back.json).toEqual(nonFinite);
  for (const [name, points] of Object.entries(nonFinite.metrics)) {
    const again = back.json.metrics[name] ?? [];
    expect(pointSteps(again), name).toEqual(pointSteps(points));
    points.forEach((point, i) => {
      const [want, got] = [pointValue(point), pointValue(again[i]!)];
      expect(Object.is(want, got), `${name}[${i}]: ${want} came back as ${got}`).toBe(true);
    });
  }
});

test.describe('a malformed run file is refused whole, naming what is wrong', () => {
  /** A bad file made from the good one, under another run id. */
  const variant = (change: (doc: RunFile) => void): string => {
    const doc = structuredClone(nonFinite);
    doc.run.id = `${doc.run.id.slice(0, -4)}bad0`;
    change(doc);
    return JSON.stringify(doc, null, 2);
  };
  const badId = `${nonFinite.run.id.slice(0, -4)}bad0`;
  /** A run file past 25 MB: a long, real-looking loss series. */
  const huge = (): string => {
    const doc = structuredClone(nonFinite);
    doc.run.id = badId;
    doc.metrics['train.loss'] = [];
    const points: string[] = [];
    for (let i = 0, size = 0; size < 25 * 1024 * 1024; i++) {
      const point = `[${i},${(0.7 / (1 + i / 1000)).toFixed(6)},${(1732900000 + i / 100).toFixed(3)}]`;
      points.push(point);
      size += point.length + 1;
    }
    return JSON.stringify(doc).replace('"train.loss":[]', `"train.loss":[${points.join(',')}]`);
  };

  const cases: { title: string; file: () => string; says: (string | RegExp)[] }[] = [
    {
      title: 'a "__proto__" key',
      // Parsed into a new object, this key would set its prototype and the series would vanish.
      file: () =>
        variant(() => undefined).replace(
          '"metrics": {',
          '"metrics": {\n    "__proto__": [[0, 1, 0]],',
        ),
      says: ['bad.run.json', 'metrics.__proto__', '__proto__'],
    },
    {
      title: 'two nodes with one id in its flow',
      file: () => variant((doc) => doc.flow.nodes.push({ ...doc.flow.nodes[4]! })),
      says: ['bad.run.json', 'flow.nodes[5].id', "duplicate node id 'eval'"],
    },
    {
      title: 'an edge to a node its flow does not have',
      file: () => variant((doc) => doc.flow.edges.push({ from: 'train.model', to: 'ghost.model' })),
      says: ['bad.run.json', 'flow.edges[5]', "no node 'ghost'"],
    },
    {
      title: 'a 25 MB file',
      file: huge,
      says: ['bad.run.json', /\b25\.\d MB\b/, 'up to 20 MB'],
    },
  ];

  for (const { title, file, says } of cases) {
    test(title, async ({ toolbar, runs, library, alerts }) => {
      await toolbar.importFile(nonFinitePath);
      await runs.expectStatus(runs.row(nonFinite.run.id), 'ok');
      await expect(library.items).toHaveCount(1);

      // From disk: the browser reads a path directly, where a 25 MB buffer would crawl over the wire.
      const bad = test.info().outputPath('bad.run.json');
      await writeFile(bad, file());
      await toolbar.importFile(bad);
      await alerts.expectMessage(...says);
      await expect(runs.rows).toHaveCount(1);
      await expect(runs.row(nonFinite.run.id)).toHaveCount(1);
      await expect(runs.row(badId)).toHaveCount(0);
      await expect(runs.row(nonFinite.run.id)).toHaveAttribute('aria-selected', 'true');
      await expect(library.items).toHaveCount(1);
      await expect(library.flow('spirals-mlp')).toHaveAttribute('aria-current', 'true');
      await expect(toolbar.flowName).toHaveText('spirals-mlp');
    });
  }
});

/**
 * Fault 2. The engine's side is done and unit-tested
 * (workers/engine/run-ending.test.ts): a write refused with
 * QuotaExceededError stops the run, the page gets a `storage-failure` event
 * (an alert naming the quota), and the record ends `error` with a reason
 * naming the quota, by one small retried write or, failing that, from the
 * engine's kept ending on the next sweep once a write fits.
 *
 * Still fixme: this test cannot yet make Chromium refuse the app's writes.
 * `Storage.overrideQuotaForOrigin` applies only to an origin whose database
 * is not open yet, so it is set before the app opens (the app needs ~80 KB).
 * On a bare page the same override stops a worker's 20-row transactions with
 * QuotaExceededError at ~200 KB, cross-origin isolated or not. In the app, with
 * a 110 KB quota, the run trained 2,672 steps in 4 minutes (a loaded 2-core
 * machine) and never saw a refusal: no metric point reached the store at all
 * (no chart; `navigator.storage.estimate()` stayed at 81,920 B), i.e. the
 * writes neither committed nor failed. Find why the app's writes stall under
 * the override before enabling this.
 */
test.fixme('storage quota exceeded mid-run: the run ends error naming it, its points kept', async ({
  page,
  baseURL,
}) => {
  // A real training run has to start (onnxruntime loads) before it can fill the quota.
  test.setTimeout(300_000);
  const origin = new URL(baseURL ?? '').origin;
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 110_000 });
  const app = new Workbench(page);
  await app.open();
  await app.params.set('steps', 100000);
  await app.toolbar.run();
  const row = app.runs.newest;
  await app.runs.expectStatus(row, 'error', { timeout: 240_000 });
  await expect(app.runs.detail).toContainText(/storage quota exceeded/);
  await app.alerts.expectMessage('stopped', 'storage quota exceeded', 'QuotaExceededError');
  const charted = await app.runs.chartPoints('train.loss');

  // What was committed before is intact and exportable.
  const { json: record } = await app.runs.exportRun();
  const loss = record.metrics['train.loss'] ?? [];
  expect(loss.length).toBeGreaterThan(0);
  expect(loss.length).toBeGreaterThanOrEqual(charted);
  expect(pointSteps(loss)).toEqual(loss.map((_, i) => i));
  expect(record.run.status).toBe('error');

  // With room again, the app runs as before.
  await cdp.send('Storage.overrideQuotaForOrigin', { origin });
  await app.params.set('steps', 20);
  await app.toolbar.run();
  await app.runs.expectStatus(app.runs.newest, 'ok', { timeout: 120_000 });
});
