import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import type { ArtifactRow, RunId } from '../core/run/record';
import { artifactListOfRun, putArtifact, readArtifact } from './artifacts';
import { FlowbenchDb } from './schema';

const runId = 'run-artifacts' as RunId;
const artifact = (node: string, name: string, bytes: Uint8Array | null): ArtifactRow => ({
  runId,
  name,
  node,
  digest: 'sha256:00',
  size: 3,
  mediaType: 'application/onnx',
  bytes,
});

let db: FlowbenchDb;
afterEach(async () => {
  db.close();
  await db.delete();
});

describe("a run's artifacts as the run page reads them", () => {
  it('lists them by node and name without their bytes, saying which have bytes here', async () => {
    db = new FlowbenchDb(`artifacts-${crypto.randomUUID()}`);
    await putArtifact(db, artifact('train', 'model', new Uint8Array([1, 2, 3])));
    await putArtifact(db, artifact('eval', 'report', null));
    const listed = await artifactListOfRun(db, runId);
    expect(listed.map((a) => [a.node, a.name, a.hasBytes])).toEqual([
      ['eval', 'report', false],
      ['train', 'model', true],
    ]);
    expect(listed.some((a) => 'bytes' in a)).toBe(false);
    expect((await readArtifact(db, runId, 'model'))?.bytes).toEqual(new Uint8Array([1, 2, 3]));
    expect(await readArtifact(db, runId, 'nothing')).toBeUndefined();
  });
});
