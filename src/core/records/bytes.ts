/**
 * Bytes as IndexedDB gives them back: a `Uint8Array` over any buffer (zod's
 * `instanceof` would narrow the type to one over an `ArrayBuffer` only).
 */
import { z } from '../schema';

export const bytesSchema = z.custom<Uint8Array>(
  (value) => value instanceof Uint8Array,
  'expected bytes (a Uint8Array)',
);
