/**
 * What a run's record shows of itself: what it ran on (its fingerprint), when
 * each node started and how long it took, and the files its nodes made, each
 * downloaded only as the exact bytes recorded. An imported run shows its
 * artifacts without bytes, and its re-run, when a series does not
 * reproduce, says what differed in what the two ran on.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { expect, exampleNodes, test } from './fixtures';
import { RunRecord } from './pages/run-record';
import type { RunFile } from './support/formats';

const STEPS = 20;
const LOSS_POINTS = STEPS / 5;

const versionOf = async (packageJson: string) =>
  (JSON.parse(await readFile(packageJson, 'utf8')) as { version: string }).version;

test('a run shows its fingerprint, node timings and artifacts; a download is the recorded bytes', async ({
  page,
  params,
  toolbar,
  runs,
  alerts,
}) => {
  const appVersion = await versionOf('package.json');
  const ortVersion = await versionOf('node_modules/onnxruntime-web/package.json');
  await params.set('steps', STEPS);
  await toolbar.run();
  await expect(runs.rows).toHaveCount(1);
  await runs.expectStatus(runs.newest, 'ok');
  const runId = await runs.idOf(runs.newest);
  const record = new RunRecord(page);

  // What it ran on: the app build, onnxruntime-web, the backend and the page's isolation.
  await expect(record.fact('App version')).toHaveText(appVersion);
  await expect(record.fact('Build')).toHaveText(/^([0-9a-f]{12}|built )/);
  await expect(record.fact('onnxruntime-web')).toHaveText(ortVersion);
  // `auto` takes WASM when the only adapter is a software fallback (SwiftShader here).
  await expect(record.fact('Backend')).toHaveText('wasm');
  await expect(record.fact('Adapter')).toHaveText(/\(fallback\)$/);
  await expect(record.fact('Cross-origin isolated')).toHaveText('yes');
  await expect(record.fact('Browser')).toHaveText(/Chromium \d+/);
  await expect(record.fact('CPU threads')).toHaveText(/^\d+$/);

  // Every node: ok, started some time after the run, and how long it took.
  await expect(record.nodeTimings.getByRole('row')).toHaveCount(exampleNodes.length + 1);
  for (const node of exampleNodes) {
    const cells = record.nodeRow(node).getByRole('cell');
    await expect(cells).toHaveText(['ok', /^\+\d/, /^\d+(\.\d)? (ms|s)$/]);
  }

  // The trained model: listed with its node, size and digest; its download hashes to that digest.
  const model = record.artifactRow('model');
  await expect(model.getByRole('cell')).toHaveText([
    'train',
    /^\d+(\.\d+)? (B|KB|MB)$/,
    /^sha256:[0-9a-f]{64}$/,
    'Download',
  ]);
  const digest = (await model.getByRole('cell').nth(2).innerText()).trim();
  const download = await record.download('model');
  expect(download.suggestedFilename()).toBe(`${runId.slice(-8)}-model.onnx`);
  const bytes = await readFile(await download.path());
  expect(`sha256:${createHash('sha256').update(bytes).digest('hex')}`).toBe(digest);
  await expect(alerts.all).toHaveCount(0);

  // The export carries the fingerprint, and the format is still /2.
  const exported = await runs.exportRun();
  expect(exported.json.format).toBe('flowbench.run/2');
  expect(exported.json.run.fingerprint).toMatchObject({
    app: { version: appVersion },
    ort: ortVersion,
    backend: 'wasm',
    browser: { crossOriginIsolated: true },
  });

  // Bytes that no longer hash to the digest are refused with an alert naming the artifact.
  await corruptArtifact(page, runId, 'model');
  let downloads = 0;
  page.on('download', () => downloads++);
  await record.downloadButton('model').click();
  await alerts.expectMessage(
    "artifact 'model' of node 'train' does not match its recorded digest",
    'it was not downloaded',
  );
  expect(downloads).toBe(0);
});

test('an imported run lists its artifacts without bytes; its re-run says what it ran on differently', async ({
  page,
  params,
  toolbar,
  runs,
}) => {
  await params.set('steps', STEPS);
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');
  const { json } = await runs.exportRun();
  const record = new RunRecord(page);

  // The same run as if recorded by an older build, with a first loss that will not reproduce.
  const id = `${json.run.id.slice(0, -8)}ffffffff`;
  const loss = json.metrics['train.loss']!;
  const edited: RunFile = {
    ...json,
    run: {
      ...json.run,
      id,
      fingerprint: { ...json.run.fingerprint!, app: { version: '0.0.9', build: 'older' } },
    },
    metrics: { ...json.metrics, 'train.loss': [[0, 1234.5, loss[0]![2]], ...loss.slice(1)] },
  };
  await toolbar.importFile({ name: 'older.run.json', text: JSON.stringify(edited) });
  const imported = runs.row(id);
  await runs.select(imported);
  await expect(record.artifactRow('model').getByRole('cell').last()).toHaveText('no bytes here');
  await expect(record.downloadButton('model')).toHaveCount(0);
  await expect(record.artifacts.locator('..')).toContainText('This run was imported');

  await runs.rerun();
  const rerun = runs.rows.first();
  await expect(rerun).toHaveAttribute('aria-selected', 'true');
  await runs.expectStatus(rerun, 'ok');
  await expect(runs.comparison.getByRole('listitem').filter({ hasText: 'train.loss' })).toHaveText(
    /^train\.loss: differs from step 0 /,
  );
  const appVersion = await versionOf('package.json');
  await expect(record.differences.getByRole('listitem')).toHaveText([
    `App version: 0.0.9 when recorded, ${appVersion} in the re-run`,
    /^Build: older when recorded, \S+.* in the re-run$/,
  ]);
  expect(LOSS_POINTS).toBe(loss.length);
});

/** Overwrite one byte of a stored artifact, past the app (a disk or a bug that changed it). */
async function corruptArtifact(
  page: import('@playwright/test').Page,
  runId: string,
  name: string,
): Promise<void> {
  await page.evaluate(
    ([runId, name]) =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('flowbench');
        open.onerror = () => reject(open.error ?? new Error('cannot open flowbench'));
        open.onsuccess = () => {
          const db = open.result;
          const tx = db.transaction('artifacts', 'readwrite');
          const store = tx.objectStore('artifacts');
          const read = store.get([runId, name]);
          read.onsuccess = () => {
            const row = read.result as { bytes: Uint8Array };
            const bytes = new Uint8Array(row.bytes);
            bytes[0] = (bytes[0]! + 1) % 256;
            store.put({ ...row, bytes });
          };
          tx.onabort = () => reject(tx.error ?? new Error('cannot write the artifact'));
          tx.oncomplete = () => {
            db.close();
            resolve();
          };
        };
      }),
    [runId, name] as const,
  );
}
