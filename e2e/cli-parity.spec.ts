/**
 * Parity between the command line and the browser: a run made by
 * `flowbench run --backend wasm` in Node (onnxruntime-web's WASM build, the
 * browser's own engine) is imported into the app, and Re-run there on WASM
 * trains again to the very same series, point for point; and the other way
 * round, a run exported from the app as a bundle is run again by
 * `flowbench run`, whose record the app compares with the original.
 */
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from './fixtures';

const root = path.resolve(import.meta.dirname, '..');

/** `flowbench run` in a process of its own; resolves with the run file it wrote. */
async function cliRun(args: string[], out: string): Promise<string> {
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(root, 'bin/flowbench.mjs'), 'run', ...args, '--out', out, '--json'],
      { cwd: root, stdio: 'ignore' },
    );
    child.once('error', reject);
    child.once('exit', resolve);
  });
  expect(code).toBe(0);
  const files = (await readdir(out)).filter((name) => name.endsWith('.run.json'));
  expect(files).toHaveLength(1);
  return path.join(out, files[0]!);
}

test('a run made by flowbench run on wasm, re-run in the browser on WASM, gives identical series', async ({
  toolbar,
  runs,
  alerts,
}) => {
  const file = await cliRun(
    [
      path.join(root, 'src/examples/spirals-mlp.flow.json'),
      '--param',
      'steps=30',
      '--seed',
      '3',
      '--backend',
      'wasm',
    ],
    test.info().outputPath('cli-runs'),
  );
  await toolbar.importFile(file);
  await expect(runs.rows).toHaveCount(1);
  await runs.expectStatus(runs.newest, 'ok');
  const cliId = await runs.idOf(runs.newest);
  await runs.rerun();
  await expect(runs.rows).toHaveCount(2);
  await runs.expectStatus(runs.newest, 'ok');
  await expect(runs.comparison).toContainText(`Compared with run ${cliId.slice(-8)}`);
  await expect(
    runs.comparison.getByRole('listitem').filter({ hasText: 'train.loss' }),
  ).toContainText('train.loss: identical');
  await expect(runs.comparison).not.toContainText('differs');
  await expect(alerts.all).toHaveCount(0);
});

test('a run bundle from the app, run again by flowbench run and imported back, reproduces its run', async ({
  toolbar,
  runs,
  alerts,
}) => {
  await toolbar.openExample('iris-table');
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');
  const originalId = await runs.idOf(runs.newest);
  const bundle = await runs.exportBundle();
  const file = await cliRun([bundle.path, '--backend', 'wasm'], test.info().outputPath('again'));
  await toolbar.importFile(file);
  await expect(runs.rows).toHaveCount(2);
  await runs.select(runs.newest);
  expect(await runs.idOf(runs.newest)).not.toBe(originalId);
  await expect(runs.comparison).toContainText(`Compared with run ${originalId.slice(-8)}`);
  await expect(
    runs.comparison.getByRole('listitem').filter({ hasText: 'train.loss' }),
  ).toContainText('train.loss: identical');
  await expect(runs.comparison).not.toContainText('differs');
  await expect(alerts.all).toHaveCount(0);
});
