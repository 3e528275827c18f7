/**
 * Parquet through hyparquet: pure JavaScript, no WebAssembly to fetch and no
 * dependencies, small enough for the engine worker's bundle, and it reads the
 * common encodings and Snappy compression (parquet-wasm reads more codecs but
 * costs a multi-megabyte .wasm). Nulls come back as `null`; 64-bit integers
 * as BigInt, which become numbers here (exact up to 2^53).
 */
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { FlowbenchError } from '../errors';
import { tableFromRows, uniqueNames, type Cell, type RawTable } from './table';

function cellOf(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return value;
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
}

/** Whether `bytes` start and end with Parquet's magic `PAR1`. */
export function isParquet(bytes: Uint8Array): boolean {
  const magic = [0x50, 0x41, 0x52, 0x31];
  const n = bytes.byteLength;
  return n >= 8 && magic.every((b, i) => bytes[i] === b && bytes[n - 4 + i] === b);
}

/** Reads a Parquet file into a table; a file hyparquet cannot read fails naming the file. */
export async function parseParquet(bytes: Uint8Array, file: string): Promise<RawTable> {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  let rows: Record<string, unknown>[];
  let names: string[];
  try {
    const metadata = parquetMetadata(buffer as ArrayBuffer);
    names = metadata.schema
      .slice(1)
      .filter((s) => !s.num_children)
      .map((s) => s.name);
    rows = await parquetReadObjects({ file: buffer as ArrayBuffer, metadata });
  } catch (error) {
    throw new FlowbenchError('table-unparseable', {
      file,
      line: 1,
      column: null,
      problem: `not a Parquet file this reader can read (${error instanceof Error ? error.message : String(error)})`,
    });
  }
  if (rows.length === 0) throw new FlowbenchError('table-empty', { file });
  const keys = Object.keys(rows[0]!);
  const columns = keys.length > 0 ? keys : names;
  const cells = rows.map((row) => columns.map((name) => cellOf(row[name])));
  return tableFromRows('parquet', uniqueNames(columns), cells);
}
