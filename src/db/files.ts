/**
 * Files picked for file params, stored by digest: the same bytes picked twice
 * are stored once, and a flow refers to them by `sha256:<hex>` only. Every
 * read and write of the files table.
 */
import { sha256Hex } from '../core/run/digest';
import type { FileRow, FlowbenchDb } from './schema';
import { FlowbenchError } from '../core/errors';

/** Stores `bytes` under their digest; returns the digest. */
export async function storeFile(
  db: FlowbenchDb,
  name: string,
  bytes: Uint8Array,
  mediaType: string,
): Promise<string> {
  const digest = `sha256:${await sha256Hex(bytes)}`;
  await db.files.put({
    digest,
    name,
    size: bytes.byteLength,
    mediaType,
    bytes,
    addedAt: new Date().toISOString(),
  });
  return digest;
}

/** The stored file `digest`, or `undefined` when this browser does not have it. */
export function findStoredFile(db: FlowbenchDb, digest: string): Promise<FileRow | undefined> {
  return db.files.get(digest);
}

/** The stored file `digest`; throws `file-missing` when this browser does not have it. */
export async function readStoredFile(db: FlowbenchDb, digest: string): Promise<FileRow> {
  const file = await findStoredFile(db, digest);
  if (!file) throw new FlowbenchError('file-missing', { digest });
  return file;
}
