/**
 * An artifact's bytes, checked against the digest recorded when its node
 * made them, before anyone gets them: a download is either the exact bytes
 * the run produced or an error that names the artifact, never a silently
 * different file. Hashing a model of a few megabytes costs milliseconds, and
 * only when a person asks for it.
 */
import { FlowbenchError } from '../errors';
import type { ArtifactRow } from '../records/artifact';
import { sha256Hex } from './digest';

/** `artifact`'s bytes once they hash to its recorded digest; throws `artifact-mismatch` or `artifact-without-bytes`. */
export async function verifiedArtifactBytes(
  artifact: Pick<ArtifactRow, 'name' | 'node' | 'digest' | 'bytes'>,
): Promise<Uint8Array> {
  const { name, node, digest, bytes } = artifact;
  if (bytes === null) throw new FlowbenchError('artifact-without-bytes', { name, node });
  const actual = `sha256:${await sha256Hex(bytes)}`;
  if (actual !== digest)
    throw new FlowbenchError('artifact-mismatch', { name, node, recorded: digest, actual });
  return bytes;
}

/** The file name an artifact downloads as: its name, with an extension its media type implies. */
export function artifactFileName(artifact: Pick<ArtifactRow, 'name' | 'mediaType'>): string {
  if (/\.[a-z0-9]+$/i.test(artifact.name)) return artifact.name;
  return artifact.mediaType === 'application/onnx' ? `${artifact.name}.onnx` : artifact.name;
}
