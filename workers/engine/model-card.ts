/**
 * The inspector's cards of imported files, made in the engine: an `.onnx`'s
 * signature (inputs, outputs, opsets, producer, operator counts) as the model
 * node will read it, so a file that is not a model says so in the inspector,
 * before a run; and a NumPy array's type and shape as `data.tensor` will read
 * it, so a model input fed that tensor says what it gets.
 */
import { readArrayFile, type ArrayCard } from '../../src/core/arrays/array-file';
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

/** The card of array `array` (empty: the first) of stored NumPy file `digest`; fails as `data.tensor` would. */
export async function describeArray(
  db: FlowbenchDb,
  digest: string,
  array: string,
): Promise<ArrayCard> {
  const { name, array: read } = readArrayFile(await readStoredFile(db, digest), array);
  return { name, dtype: read.dtype, dims: read.dims };
}
