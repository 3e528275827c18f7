/**
 * Importing a file, in the engine worker. A run file is read, parsed,
 * validated and written here, so none of it holds the page: a burst of
 * 100,000 points is a 3.5 MB file whose parse takes ~200 ms and whose rows
 * take seconds to write. The write stays all or nothing (one transaction,
 * see `importRunRecords`); the page hears only the outcome and reads the run
 * back through its live queries. Any other file comes back parsed, for the
 * page to import as a flow.
 */
import type { ImportedFile, ImportOutcome } from '../protocol';
import { serializeError } from '../../src/core/errors';
import {
  checkImportSize,
  formatOf,
  parseImportText,
  refuseImport,
} from '../../src/core/run/import-file';
import { looksLikeZip } from '../../src/core/run/bundle';
import { fromRunExport, isRunFile, type RunRecord } from '../../src/core/run/export';
import { importRunRecords } from '../../src/db/runs';
import type { FlowbenchDb } from '../../src/db/schema';
import { FlowbenchError } from '../../src/core/errors';
import { importRunBundle } from './run-bundle';

/** A file read: a bundle already stored, a document, or a checked run record still to write. */
type ReadFile = ImportedFile | { kind: 'record'; record: RunRecord };

/** Read, parse and check the file `name`; a bundle is written here, whole or not at all. */
async function readFile(db: FlowbenchDb, name: string, file: Blob): Promise<ReadFile> {
  // A run bundle (a zip: a run file with its artifacts and files) has its own size limit.
  const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
  if (looksLikeZip(head)) {
    const runId = await importRunBundle(db, name, new Uint8Array(await file.arrayBuffer()));
    return { kind: 'run', runId };
  }
  checkImportSize(name, file.size);
  const value = parseImportText(name, await file.text());
  // Any version: an older run file is migrated on import, a newer one refused by name.
  if (!isRunFile(formatOf(value))) return { kind: 'document', value };
  const parsed = fromRunExport(value);
  if (!parsed.ok) refuseImport(name, 'run file', parsed.issues);
  return { kind: 'record', record: parsed.record };
}

/**
 * Import several files (a folder of exported runs), each refused or not on its
 * own: the run files that pass are written in one transaction, so the runs
 * table hears of them once, not once per file.
 */
export async function importFiles(
  db: FlowbenchDb,
  files: readonly { name: string; file: Blob }[],
): Promise<ImportOutcome[]> {
  const outcomes: ImportOutcome[] = [];
  const records: { index: number; record: RunRecord }[] = [];
  for (const [index, { name, file }] of files.entries())
    try {
      const read = await readFile(db, name, file);
      if (read.kind === 'record') records.push({ index, record: read.record });
      else outcomes[index] = read;
    } catch (error) {
      outcomes[index] = { kind: 'refused', error: serializeError(error) };
    }
  try {
    const added = await importRunRecords(
      db,
      records.map(({ record }) => record),
    );
    for (const [i, { index, record }] of records.entries()) {
      const runId = record.run.id;
      outcomes[index] = added[i]
        ? { kind: 'run', runId }
        : { kind: 'refused', error: serializeError(new FlowbenchError('run-exists', { runId })) };
    }
  } catch (error) {
    for (const { index } of records)
      outcomes[index] = { kind: 'refused', error: serializeError(error) };
  }
  return outcomes;
}
