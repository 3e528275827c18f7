/**
 * Run bundles in the engine worker (see `core/run/bundle.ts`): made from the
 * stored record and the files its flow names, and opened on import, so that
 * hashing and zipping megabytes of models and tables never holds the page.
 */
import type { Catalog } from '../../src/core/catalog/catalog';
import { FlowbenchError } from '../../src/core/errors';
import { openRunBundle, packRunBundle, runFileDigests } from '../../src/core/run/bundle';
import { fromRunExport } from '../../src/core/run/export';
import { refuseImport } from '../../src/core/run/import-file';
import type { RunId } from '../../src/core/run/record';
import { readStoredFile } from '../../src/db/files';
import { importRunRecord, readRunRecord } from '../../src/db/runs';
import type { FlowbenchDb } from '../../src/db/schema';

/** The bundle of run `runId`; throws `run-not-found`, `file-missing` or `bundle-too-large`. */
export async function exportRunBundle(
  db: FlowbenchDb,
  catalog: Catalog,
  runId: RunId,
): Promise<Blob> {
  const record = await readRunRecord(db, runId);
  if (!record) throw new FlowbenchError('run-not-found', { runId });
  const files = await Promise.all(
    runFileDigests(record.run, catalog).map((digest) => readStoredFile(db, digest)),
  );
  return new Blob([packRunBundle(record, files) as Uint8Array<ArrayBuffer>], {
    type: 'application/zip',
  });
}

/**
 * Import the bundle `name`: its run with its artifacts' bytes and the files
 * its flow names, all in one transaction, or nothing when anything is refused.
 */
export async function importRunBundle(
  db: FlowbenchDb,
  name: string,
  bytes: Uint8Array,
): Promise<RunId> {
  const bundle = await openRunBundle(name, bytes);
  const parsed = fromRunExport(bundle.runFile);
  if (!parsed.ok) refuseImport(`${name} (run.json)`, 'run file', parsed.issues);
  const { record } = parsed;
  const artifacts = record.artifacts.map((artifact) => ({
    ...artifact,
    bytes: bundle.artifacts.get(artifact.digest) ?? null,
  }));
  await importRunRecord(db, { ...record, artifacts }, bundle.files);
  return record.run.id;
}
