/**
 * Importing a file, in the engine worker. A run file is read, parsed,
 * validated and written here, so none of it holds the page: a burst of
 * 100,000 points is a 3.5 MB file whose parse takes ~200 ms and whose rows
 * take seconds to write. The write stays all or nothing (one transaction,
 * see `importRunRecord`); the page hears only the outcome and reads the run
 * back through its live queries. Any other file comes back parsed, for the
 * page to import as a flow.
 */
import type { ImportedFile } from '../protocol';
import {
  checkImportSize,
  formatOf,
  parseImportText,
  refuseImport,
} from '../../src/core/run/import-file';
import { looksLikeZip } from '../../src/core/run/bundle';
import { fromRunExport, isRunFile } from '../../src/core/run/export';
import { importRunRecord } from '../../src/db/runs';
import type { FlowbenchDb } from '../../src/db/schema';
import { importRunBundle } from './run-bundle';

/** Import the file `name`; throws `bad-import` / `run-exists` and writes nothing when refused. */
export async function importFile(db: FlowbenchDb, name: string, file: Blob): Promise<ImportedFile> {
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
  await importRunRecord(db, parsed.record);
  return { kind: 'run', runId: parsed.record.run.id };
}
