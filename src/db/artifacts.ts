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

/** Delete every artifact of the runs `ids`. */
export async function deleteArtifactsOfRuns(db: FlowbenchDb, ids: readonly RunId[]): Promise<void> {
  await db.artifacts.where('runId').anyOf(ids).delete();
}
