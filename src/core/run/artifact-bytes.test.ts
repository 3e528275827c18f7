import { describe, expect, it } from 'vitest';
import { isFlowbenchError } from '../errors';
import { artifactFileName, verifiedArtifactBytes } from './artifact-bytes';
import { sha256Hex } from './digest';

const bytes = new Uint8Array([8, 1, 18, 4, 116, 101, 115, 116]);
const artifact = async () => ({
  name: 'model',
  node: 'train',
  digest: `sha256:${await sha256Hex(bytes)}`,
  bytes: bytes.slice(),
});

describe('an artifact download checks its bytes against the recorded digest', () => {
  it('gives the bytes that hash to the recorded digest', async () => {
    expect(await verifiedArtifactBytes(await artifact())).toEqual(bytes);
  });

  it('refuses bytes that changed since, naming the artifact and both digests', async () => {
    const stored = await artifact();
    stored.bytes[3] = 5;
    const error: unknown = await verifiedArtifactBytes(stored).catch((e: unknown) => e);
    expect(isFlowbenchError(error, 'artifact-mismatch')).toBe(true);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^artifact 'model' of node 'train' does not match its recorded digest \\(recorded ${stored.digest}, its bytes hash to sha256:[0-9a-f]{64}\\); it was not downloaded$`,
      ),
    );
  });

  it('says an imported artifact has no bytes here', async () => {
    const error: unknown = await verifiedArtifactBytes({
      ...(await artifact()),
      bytes: null,
    }).catch((e: unknown) => e);
    expect(isFlowbenchError(error, 'artifact-without-bytes')).toBe(true);
  });

  it('downloads as its name, with .onnx for a model without an extension', () => {
    expect(artifactFileName({ name: 'model', mediaType: 'application/onnx' })).toBe('model.onnx');
    expect(artifactFileName({ name: 'sign.onnx', mediaType: 'application/onnx' })).toBe(
      'sign.onnx',
    );
    expect(artifactFileName({ name: 'weights', mediaType: 'application/octet-stream' })).toBe(
      'weights',
    );
  });
});
