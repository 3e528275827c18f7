/**
 * The inspector's card of an imported `.onnx`, made in the engine: the
 * stored bytes' signature (inputs, outputs, opsets, producer, operator
 * counts) as the model node will read it, so a file that is not a model
 * says so in the inspector, before a run.
 */
import { readOnnxSignature, type ModelCard } from '../../src/core/onnx/signature';
import { FlowbenchError, isFlowbenchError } from '../../src/core/errors';
import { readStoredFile } from '../../src/db/files';
import type { FlowbenchDb } from '../../src/db/schema';

/** The card of stored model file `digest`; fails with `file-missing` or `onnx-invalid`. */
export async function describeModel(db: FlowbenchDb, digest: string): Promise<ModelCard> {
  const file = await readStoredFile(db, digest);
  try {
    return { name: file.name, bytes: file.bytes.byteLength, ...readOnnxSignature(file.bytes) };
  } catch (error) {
    // Said with the file's name, as the inspector shows it beside the picker.
    if (isFlowbenchError(error, 'onnx-invalid'))
      throw new FlowbenchError('onnx-invalid', { problem: `${file.name}: ${error.message}` });
    throw error;
  }
}
