import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { flowDocumentSchema, type FlowDocument } from '../../src/core/flow/document';
import { builtinCatalog } from '../../src/core/nodes';
import { sha256Hex } from '../../src/core/run/digest';
import { fromRunExport, type RunRecord } from '../../src/core/run/export';
import { storeFile } from '../../src/db/files';
import { importRunRecord, readRunRecord } from '../../src/db/runs';
import type { FlowbenchDb } from '../../src/db/schema';
import { storedCounts, testDatabases } from '../../src/db/testing';
import { exportRunBundle } from './run-bundle';
import { importFile } from './testing';

const iris = new Uint8Array(readFileSync('src/examples/iris.csv'));
const irisFlow = flowDocumentSchema.parse(
  JSON.parse(readFileSync('src/examples/iris-table.flow.json', 'utf8')),
);
const parsed = fromRunExport(JSON.parse(readFileSync('e2e/flows/non-finite.run.json', 'utf8')));
if (!parsed.ok) throw new Error('the run file fixture does not parse');

const { freshDb } = testDatabases('bundle');

const modelBytes = new Uint8Array([8, 7, 18, 3, 111, 114, 116]);

/**
 * The iris flow with its table named through a flow input, `table`: the
 * run's params give its digest (the input has no default).
 */
const irisByInput: FlowDocument = {
  ...irisFlow,
  inputs: [...irisFlow.inputs, { name: 'table', type: 'string' }],
  nodes: irisFlow.nodes.map((n) =>
    n.id === 'data' ? { ...n, params: { ...n.params, file: { $input: 'table' } } } : n,
  ),
};

/** A run of the iris table flow that kept a model, as stored in the browser that ran it. */
async function ranHere(
  keepFile = true,
  flow = irisFlow,
): Promise<{ db: FlowbenchDb; record: RunRecord }> {
  const db = freshDb();
  const { record } = parsed as { record: RunRecord };
  const runId = record.run.id;
  const params =
    flow === irisByInput
      ? { ...record.run.params, table: `sha256:${await sha256Hex(iris)}` }
      : record.run.params;
  const withFiles: RunRecord = {
    ...record,
    run: { ...record.run, flowSnapshot: flow, params },
    artifacts: [
      {
        runId,
        name: 'model',
        node: 'train',
        digest: `sha256:${await sha256Hex(modelBytes)}`,
        size: modelBytes.byteLength,
        mediaType: 'application/onnx',
        bytes: modelBytes,
      },
    ],
  };
  if (keepFile) await storeFile(db, 'iris.csv', iris, 'text/csv');
  await importRunRecord(db, withFiles);
  return { db, record: withFiles };
}

const bundleBytes = async (blob: Blob) => new Uint8Array(await blob.arrayBuffer());

describe('run bundles', () => {
  it('carry a run with its artifacts and files to another browser, byte for byte', async () => {
    const { db, record } = await ranHere();
    const bundle = await exportRunBundle(db, builtinCatalog, record.run.id);

    const elsewhere = freshDb();
    const imported = await importFile(elsewhere, `${record.run.id}.flowbench.zip`, bundle);
    expect(imported).toEqual({ kind: 'run', runId: record.run.id });
    const back = await readRunRecord(elsewhere, record.run.id);
    expect(back?.run.flowSnapshot).toEqual(irisFlow);
    expect(back?.metrics).toEqual((await readRunRecord(db, record.run.id))?.metrics);
    expect(back?.artifacts[0]?.bytes).toEqual(modelBytes);
    const digest = `sha256:${await sha256Hex(iris)}`;
    expect(JSON.stringify(irisFlow)).toContain(digest);
    const file = await elsewhere.files.get(digest);
    expect(file).toMatchObject({ name: 'iris.csv', mediaType: 'text/csv' });
    expect(file?.bytes).toEqual(iris);
  });

  it('carry a file the flow names through a flow input, the run giving its digest', async () => {
    const { db, record } = await ranHere(true, irisByInput);
    const bundle = await exportRunBundle(db, builtinCatalog, record.run.id);
    const elsewhere = freshDb();
    await importFile(elsewhere, `${record.run.id}.flowbench.zip`, bundle);
    const digest = `sha256:${await sha256Hex(iris)}`;
    expect(JSON.stringify(irisByInput)).not.toContain(digest);
    expect((await elsewhere.files.get(digest))?.bytes).toEqual(iris);
  });

  it('refuse a bundle whose file does not match its digest whole, storing nothing', async () => {
    const { db, record } = await ranHere();
    const entries = unzipSync(
      await bundleBytes(await exportRunBundle(db, builtinCatalog, record.run.id)),
    );
    const name = Object.keys(entries).find((entry) => entry.startsWith('files/'))!;
    entries[name] = entries[name]!.map((byte, i) => (i === 0 ? byte ^ 1 : byte));
    const tampered = new Blob([zipSync(entries)]);

    const elsewhere = freshDb();
    const refused = importFile(elsewhere, 'tampered.flowbench.zip', tampered);
    await expect(refused).rejects.toMatchObject({ code: 'bad-import' });
    await expect(refused).rejects.toThrow(
      `tampered.flowbench.zip holds ${name} whose bytes hash to`,
    );
    expect(await storedCounts(elsewhere)).toMatchObject({ runs: 0, files: 0, artifacts: 0 });
  });

  it('refuse a zip that is not a bundle, naming what it lacks', async () => {
    const db = freshDb();
    const zip = new Blob([zipSync({ 'notes.txt': new Uint8Array([104, 105]) })]);
    await expect(importFile(db, 'notes.zip', zip)).rejects.toThrow(
      'notes.zip has no run.json: it is not a Flowbench run bundle',
    );
    expect((await storedCounts(db)).runs).toBe(0);
  });

  it('are not made for a run whose flow names a file this browser lacks', async () => {
    const { db, record } = await ranHere(false);
    await expect(exportRunBundle(db, builtinCatalog, record.run.id)).rejects.toMatchObject({
      code: 'file-missing',
    });
  });
});
