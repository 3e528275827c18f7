// Captures a fixture of the `flowbench` IndexedDB database as a real browser
// leaves it: real rows from real runs, written by the built app of the schema
// version being frozen. Run it from a checkout of the version to capture,
// before its schema changes, so the next version can test that it opens it:
//
//   npx vite build --outDir /tmp/fb-dist
//   node scripts/capture-db-fixture.mjs --dist /tmp/fb-dist --version 3
//
// (--examples lists the examples run after the default one; a build older
// than the ONNX and pendulum examples captures with --examples ''. --long-run
// <steps> adds one more run of the default example with that many steps.)
//
// It serves that build (vite preview on --port, default 4310), drives
// Chromium through the app the way a person does, and writes
//   src/db/fixtures/flowbench-v<version>.json  every object store: its keyPath,
//       autoIncrement and indexes, the IndexedDB version and every row (bytes
//       as {"$bytes": base64}, non-finite numbers and -0 as {"$number": "NaN"});
//   src/db/fixtures/run-v<runFormat>.run.json  the first run's "Export run"
//       file, when --run-format is given (the run file format's version).
// The preview server it starts is stopped by its PID when it is done.
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, expect } from '@playwright/test';

const { values: args } = parseArgs({
  options: {
    dist: { type: 'string' },
    version: { type: 'string' },
    'run-format': { type: 'string' },
    port: { type: 'string', default: '4310' },
    // Examples to open and run after the default one; an older build may lack some.
    examples: { type: 'string', default: 'onnx-inference,pendulum-world-model' },
    out: { type: 'string', default: 'src/db/fixtures' },
    // Steps of one more run of the default example at the end: a long series (0: none).
    'long-run': { type: 'string', default: '0' },
  },
});
if (!args.dist || !args.version) {
  console.error(
    'usage: node scripts/capture-db-fixture.mjs --dist <built app> --version <db schema version> [--run-format <n>] [--port 4310] [--out src/db/fixtures]',
  );
  process.exit(2);
}
const base = `http://127.0.0.1:${args.port}`;

/** Start `vite preview` on the build; resolves once it answers. */
async function servePreview() {
  const vite = path.resolve('node_modules/vite/bin/vite.js');
  const server = spawn(
    process.execPath,
    // --bypass-lock: another checkout may be serving its own build meanwhile.
    [vite, 'preview', '--port', args.port, '--strictPort', '--host', '127.0.0.1'].concat([
      '--outDir',
      args.dist,
      '--bypass-lock',
    ]),
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const stop = () => {
    if (server.exitCode === null && server.pid) process.kill(server.pid, 'SIGTERM');
  };
  for (let i = 0; i < 120; i++) {
    if (server.exitCode !== null) throw new Error(`vite preview exited (${server.exitCode})`);
    const up = await fetch(base).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return stop;
    await new Promise((r) => setTimeout(r, 500));
  }
  stop();
  throw new Error(`vite preview did not answer on ${base}`);
}

/** Every store of `flowbench`, read in the page past the app (runs in the browser). */
function dumpDatabase() {
  /* global indexedDB */
  const base64 = (bytes) => {
    let binary = '';
    for (const byte of bytes) binary += String.fromCharCode(byte);
    return btoa(binary);
  };
  const encode = (value) => {
    if (value instanceof Uint8Array) return { $bytes: base64(value) };
    // Metric chunks hold Float64Array columns (and Int32Array steps): their bytes, every bit kept.
    if (ArrayBuffer.isView(value) && !(value instanceof DataView))
      return {
        $typed: value.constructor.name,
        $bytes: base64(new Uint8Array(value.buffer, value.byteOffset, value.byteLength)),
      };
    if (typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0)))
      return { $number: Object.is(value, -0) ? '-0' : String(value) };
    if (Array.isArray(value)) return value.map(encode);
    if (value !== null && typeof value === 'object') {
      if (Object.getPrototypeOf(value) !== Object.prototype)
        throw new Error(`cannot encode a ${Object.prototype.toString.call(value)} row value`);
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encode(v)]));
    }
    return value;
  };
  return new Promise((resolve, reject) => {
    const open = indexedDB.open('flowbench');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const names = [...db.objectStoreNames];
      const tx = db.transaction(names, 'readonly');
      const reads = names.map((name) => {
        const store = tx.objectStore(name);
        if (store.keyPath === null) throw new Error(`${name}: out-of-line keys are not captured`);
        return {
          name,
          keyPath: store.keyPath,
          autoIncrement: store.autoIncrement,
          indexes: [...store.indexNames].map((index) => {
            const { keyPath, unique, multiEntry } = store.index(index);
            return { name: index, keyPath, unique, multiEntry };
          }),
          rows: store.getAll(),
        };
      });
      tx.onabort = () => reject(tx.error);
      tx.oncomplete = () => {
        // A value it cannot encode must fail the capture, not leave it waiting for ever.
        try {
          resolve(dumpOf(open.result));
        } catch (error) {
          reject(error);
        }
      };
      const dumpOf = (db) => {
        const stores = Object.fromEntries(
          reads.map(({ name, rows, ...store }) => [
            name,
            { ...store, rows: rows.result.map(encode) },
          ]),
        );
        db.close();
        return { name: db.name, idbVersion: db.version, stores };
      };
    };
  });
}

async function openExample(page, name) {
  await page.getByRole('button', { name: 'Examples', exact: true }).click();
  const gallery = page.getByRole('dialog', { name: 'Examples' });
  await gallery.getByRole('button', { name, exact: true }).click();
  await expect(gallery).toBeHidden();
  await expect(page.getByRole('banner').getByRole('heading', { level: 1 })).toHaveText(name);
}

/** Run the open flow (with `steps` steps, when it has that input) and wait until its row says ok. */
async function runFlow(page, steps, runsBefore) {
  const form = page.getByRole('form', { name: 'Run parameters' });
  if (steps !== null) await form.getByLabel('steps', { exact: true }).fill(String(steps));
  await page.getByRole('banner').getByRole('button', { name: 'Run', exact: true }).click();
  const table = page.getByRole('table', { name: 'Runs' });
  const rows = table.getByRole('row').filter({ has: page.getByRole('cell') });
  await expect(rows.filter({ has: page.locator('td[title]') })).toHaveCount(runsBefore + 1, {
    timeout: 30_000,
  });
  const newest = rows.filter({ has: page.locator('td[title]') }).first();
  await expect(newest.getByRole('cell', { name: 'ok', exact: true })).toBeVisible({
    timeout: 180_000,
  });
}

const stopServer = await servePreview();
let browser;
try {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--enable-unsafe-webgpu', '--disable-background-networking'],
  });
  const context = await browser.newContext({ baseURL: base, acceptDownloads: true });
  const page = await context.newPage();
  await page.goto('/');
  await expect(page.getByRole('banner').getByRole('heading', { level: 1 })).not.toHaveText('…');

  // A setting beside the open flow: the backend the person chose.
  await page.getByRole('banner').getByRole('combobox', { name: 'Backend' }).selectOption('wasm');

  // The default example, few steps: a run, its node outcomes and metric points.
  await runFlow(page, 20, 0);
  await mkdir(args.out, { recursive: true });
  if (args['run-format']) {
    const detail = page.getByRole('region', { name: 'Run', exact: true });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      detail.getByRole('button', { name: 'Export run' }).click(),
    ]);
    const file = path.join(args.out, `run-v${args['run-format']}.run.json`);
    await writeFile(file, await readFile(await download.path()));
    console.log(`wrote ${file}`);
  }

  // The ONNX example stores its model as a file row, which its run keeps as an
  // artifact; the pendulum's data engine records wait intervals.
  const steps = { 'onnx-inference': null, 'pendulum-world-model': 5 };
  const examples = args.examples.split(',').filter(Boolean);
  for (const [i, name] of examples.entries()) {
    await openExample(page, name);
    await runFlow(page, name in steps ? steps[name] : 5, i + 1);
  }
  // A long run, so a version that stores series differently is tested on thousands of points.
  const longRun = Number(args['long-run']);
  if (longRun > 0) {
    await openExample(page, 'spirals-mlp');
    await runFlow(page, longRun, examples.length + 1);
  }

  const dump = await page.evaluate(dumpDatabase);
  dump.capturedWith = { dbSchemaVersion: Number(args.version) };
  const file = path.join(args.out, `flowbench-v${args.version}.json`);
  await writeFile(file, `${JSON.stringify(dump, null, 1)}\n`);
  const counts = Object.entries(dump.stores).map(([n, s]) => `${n} ${s.rows.length}`);
  console.log(`wrote ${file}: ${counts.join(', ')}`);
} finally {
  await browser?.close();
  stopServer();
}
