/**
 * The inspector's look at a table file, made in the engine: read the stored
 * bytes, parse them as the table node will, and send back the columns and
 * first rows. The last few previews are kept by digest and header choice,
 * since the inspector asks again each time the node is selected.
 */
import {
  previewTable,
  readTable,
  type HeaderChoice,
  type TablePreview,
} from '../../src/core/tables';
import { readStoredFile } from '../../src/db/files';
import type { FlowbenchDb } from '../../src/db/schema';

const KEEP = 4;
const previews = new Map<string, Promise<TablePreview>>();

/** The preview of stored table file `digest`; fails as the table node would. */
export function describeTable(
  db: FlowbenchDb,
  digest: string,
  header: HeaderChoice,
): Promise<TablePreview> {
  const key = `${digest} ${header}`;
  const kept = previews.get(key);
  if (kept) return kept;
  const made = (async () => {
    const file = await readStoredFile(db, digest);
    return previewTable(await readTable(file.bytes, file.name, header));
  })();
  previews.set(key, made);
  made.catch(() => previews.delete(key));
  while (previews.size > KEEP) previews.delete(previews.keys().next().value!);
  return made;
}
