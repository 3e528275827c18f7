/**
 * A trained model as a person downloads it: the artifact's verified bytes
 * with the run it came from stamped into its `metadata_props`. The stamp is
 * appended at download (protobuf merges repeated fields), so the stored
 * artifact keeps the digest its node recorded while the file names its run,
 * flow and app version — a node, while it runs, does not know its run.
 */
import { withMetadataProps } from '../onnx/proto';
import type { ArtifactRow } from '../records/artifact';
import type { RunRow } from '../records/run';
import { verifiedArtifactBytes } from './artifact-bytes';

/** Whether an artifact is a model a trainer produced (not, say, a picked `.onnx` file). */
export function isTrainedModel(artifact: Pick<ArtifactRow, 'name' | 'mediaType'>): boolean {
  return artifact.name === 'model' && artifact.mediaType === 'application/onnx';
}

/** The `.onnx` file of a trained model: its verified bytes, stamped with `run`'s id, flow and app version. */
export async function trainedModelFile(
  artifact: Pick<ArtifactRow, 'name' | 'node' | 'digest' | 'bytes'>,
  run: Pick<RunRow, 'id' | 'flowSnapshot' | 'fingerprint'>,
): Promise<Uint8Array> {
  const bytes = await verifiedArtifactBytes(artifact);
  return withMetadataProps(bytes, {
    'flowbench.run_id': run.id,
    'flowbench.flow': run.flowSnapshot.name,
    ...(run.fingerprint ? { 'flowbench.version': run.fingerprint.app.version } : {}),
  });
}

/** The name a trained model downloads as: the run's short id and the node that trained it. */
export function trainedModelFileName(runShortId: string, node: string): string {
  return `${runShortId}-${node}.onnx`;
}
