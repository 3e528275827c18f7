/** Artifacts a run's nodes produced (bytes with their digest): every read and write of the artifacts table. */
import type { ArtifactRow, RunId } from '../core/run/record';
import type { FlowbenchDb } from './schema';

/** Store one artifact of a run; one of the same name is replaced. */
export async function putArtifact(db: FlowbenchDb, artifact: ArtifactRow): Promise<void> {
  await db.artifacts.put(artifact);
}

/** Add a run's artifacts (an import, inside its transaction). */
export async function addArtifacts(
  db: FlowbenchDb,
  artifacts: readonly ArtifactRow[],
): Promise<void> {
  await db.artifacts.bulkAdd(artifacts);
}

/** Every artifact of a run. */
export function artifactsOfRun(db: FlowbenchDb, runId: RunId): Promise<ArtifactRow[]> {
  return db.artifacts.where('runId').equals(runId).toArray();
}

/** An artifact as the run page lists it: everything but its bytes, and whether this browser has them. */
export type ArtifactListing = Omit<ArtifactRow, 'bytes'> & { hasBytes: boolean };

/** A run's artifacts without their bytes, by node then name. */
export async function artifactListOfRun(db: FlowbenchDb, runId: RunId): Promise<ArtifactListing[]> {
  const rows = await artifactsOfRun(db, runId);
  return rows
    .map(({ bytes, ...meta }) => ({ ...meta, hasBytes: bytes !== null }))
    .sort((a, b) => a.node.localeCompare(b.node) || a.name.localeCompare(b.name));
}

/** The artifact `name` of a run, bytes included, or `undefined` when it is not stored. */
export function readArtifact(
  db: FlowbenchDb,
  runId: RunId,
  name: string,
): Promise<ArtifactRow | undefined> {
  return db.artifacts.get([runId, name]);
}

/** Delete every artifact of the runs `ids`. */
export async function deleteArtifactsOfRuns(db: FlowbenchDb, ids: readonly RunId[]): Promise<void> {
  await db.artifacts.where('runId').anyOf(ids).delete();
}
