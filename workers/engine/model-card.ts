/**
 * The inspector's card of an imported `.onnx`, made in the engine: the
 * stored bytes' signature (inputs, outputs, opsets, producer, operator
 * counts) as the model node will read it, so a file that is not a model
 * says so in the inspector, before a run.
 */
import { readOnnxSignature, type ModelCard } from '../../src/core/onnx/signature';
import { readStoredFile } from '../../src/db/files';
import type { FlowbenchDb } from '../../src/db/schema';

/** The card of stored model file `digest`; fails with `file-missing` or `onnx-invalid`. */
export async function describeModel(db: FlowbenchDb, digest: string): Promise<ModelCard> {
  const file = await readStoredFile(db, digest);
  return { name: file.name, bytes: file.bytes.byteLength, ...readOnnxSignature(file.bytes) };
}
