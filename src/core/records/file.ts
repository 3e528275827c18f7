/**
 * The file record (table `files`, since database version 2): a file a person
 * picked for a file param (an imported `.onnx` model), kept by its digest so
 * the same bytes picked twice are stored once.
 */
import { z } from '../schema';
import { bytesSchema } from './bytes';
import { defineRecord } from './migration';

export const fileRowSchema = z.object({
  /** `sha256:<hex>` of `bytes`; what the flow's param holds. */
  digest: z.string(),
  /** The name it had when picked. */
  name: z.string(),
  size: z.int().check(z.nonnegative()),
  mediaType: z.string(),
  bytes: bytesSchema,
  addedAt: z.string(),
});
/** A file a person picked for a file param (an imported `.onnx` model), by its digest. */
export type FileRow = z.output<typeof fileRowSchema>;

export const fileRecord = defineRecord({ name: 'file', schema: fileRowSchema, migrations: [] });
