/**
 * Faults and bad input (fault suite 2, 3 and 5): values JSON cannot spell,
 * run files that must be refused whole, and storage that runs out.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { expect, test } from './fixtures';
import { fixtureRunPath } from './support/files';
import { pointSteps, pointValue, type RunFile } from './support/formats';
import { StorageQuota } from './support/quota';
import { openTab } from './support/tabs';
import { Workbench } from './pages/workbench';

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
  /** A run file past 50 MB: a long, real-looking loss series. */
  const huge = (): string => {
    const doc = structuredClone(nonFinite);
    doc.run.id = badId;
    doc.metrics['train.loss'] = [];
    const points: string[] = [];
    for (let i = 0, size = 0; size < 50 * 1024 * 1024; i++) {
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
      title: 'a 50 MB file',
      file: huge,
      says: ['bad.run.json', /\b50\.\d MB\b/, 'up to 20 MB'],
    },
  ];

  for (const { title, file, says } of cases) {
    test(title, async ({ toolbar, runs, library, alerts }) => {
      await toolbar.importFile(nonFinitePath);
      await runs.expectStatus(runs.row(nonFinite.run.id), 'ok');
      await expect(library.items).toHaveCount(1);

      // From disk: the browser reads a path directly, where a 50 MB buffer would crawl over the wire.
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
 * Fault 2: the storage quota runs out mid-run. Once the run has committed its
 * first points, the origin's quota is forced under what it uses (through
 * the DevTools protocol, see support/quota.ts), so Chromium refuses the app's
 * writes for real: a metric batch's transaction aborts at commit with
 * QuotaExceededError. The engine stops the run and says so at once: an alert
 * naming the quota, in every open tab. Its ending is a write too, and while
 * the quota stays full even that small write is refused: the engine keeps the
 * ending and writes it once a write fits. A cancel meanwhile is a write too:
 * refused, it says so. Giving the site its storage back (what the message
 * tells the person to do) is that moment; the record then ends `error` naming
 * the quota, with every point committed before the refusal, and the app runs
 * as before.
 *
 * Chromium checks a write against a figure of the room left that it keeps for
 * up to 30 s (support/quota.ts), so a quota forced on an open page bites that
 * much later, at a moment no test chooses. So the origin gets a bounded room
 * before the app first writes, and once the quota is forced a write of that
 * room makes Chromium look again: the run's next write is refused.
 */
/** The origin's room before the app first writes: far more than the test writes, far less than a disk. */
const ROOM = 64 * 1024 * 1024;
// A run that trains until the quota stops it, in two tabs: one such test at a time.
test.describe('storage that runs out', { tag: '@heavy' }, () => {
  test('storage quota exceeded mid-run: the run ends error naming it, its points kept', async ({
    page,
    baseURL,
  }) => {
    // A real training run has to start (onnxruntime loads) and commit points first.
    test.setTimeout(180_000);
    const quota = await StorageQuota.of(page, new URL(baseURL!).origin);
    await quota.bound(ROOM);
    const app = new Workbench(page);
    await app.open();
    // Another tab of the same browser hears of the failure too, whichever tab's engine runs it.
    const other = await openTab(page.context());
    await app.params.set('steps', 100000);
    await app.toolbar.run();
    const row = app.runs.newest;
    // Committed points, as the chart reads them back from the store (one web-first wait, no polling).
    await expect(app.runs.chart('train.loss')).toHaveAttribute('data-points', /^[1-9]\d*$/, {
      timeout: 120_000,
    });
    // Well under what the origin uses, as a disk that filled up leaves it: every write is refused,
    // however small. Forced at the usage itself, a run slowed by a busy machine had written so
    // little past it by the time the quota bit that its small ending still fitted.
    await quota.force(Math.floor((await quota.usage()) / 2));
    await quota.enforce();
    await expect(app.alerts.all.filter({ hasText: 'stopped' }).last()).toBeVisible();
    for (const tab of [app, other.app])
      await tab.alerts.expectMessage('stopped', 'storage quota exceeded', 'QuotaExceededError');
    // While the quota stays full the record cannot say it ended; the run's page says why.
    await expect(app.runs.detail).toContainText(
      /Stopped: storage quota exceeded.*ending is saved once storage has room/,
    );
    // A cancel is a write too: refused while the quota is full, it says so instead of failing silently.
    await app.toolbar.cancelRun();
    await app.alerts.expectMessage('could not be cancelled');
    // A tab opened while the disk is full still opens the flow (`openTab` waits for it on the
    // canvas), and says what it could not remember.
    const late = await openTab(page.context());
    await late.app.alerts.expectMessage('could not be remembered');
    expect(late.errors).toEqual([]);
    await late.app.page.close();
    await quota.lift();
    await app.runs.expectStatus(row, 'error');
    await expect(app.runs.detail).toContainText(/storage quota exceeded/);
    const charted = await app.runs.chartPoints('train.loss');

    // What was committed before is intact and exportable: whole batches, steps 0 … n-1 once each.
    const { json: record } = await app.runs.exportRun();
    expect(record.run.status).toBe('error');
    expect(record.run.statusReason).toMatch(/^storage quota exceeded\b.*QuotaExceededError/);
    const loss = record.metrics['train.loss'] ?? [];
    expect(loss.length).toBeGreaterThan(0);
    expect(loss.length).toBeGreaterThanOrEqual(charted);
    expect(pointSteps(loss)).toEqual(loss.map((_, i) => i));
    const outcome = new Map(record.nodes.map((n) => [n.node, n.status]));
    expect(outcome.get('train')).toBe('interrupted');
    expect(outcome.get('eval')).toBe('interrupted');

    // With room again, the app runs as before.
    await app.params.set('steps', 20);
    await app.toolbar.run();
    await expect(app.runs.rows).toHaveCount(2);
    await app.runs.expectStatus(app.runs.newest, 'ok', { timeout: 120_000 });
  });
});
