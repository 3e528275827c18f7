/**
 * Any table file to a `RawTable`: the format from the file's name, checked
 * against its first bytes (Parquet's magic, a JSON bracket), so a `.txt` of
 * CSV or a JSON file saved as `.csv` still reads. Text is decoded as UTF-8
 * with its byte-order mark dropped.
 */
import { parseCsv, type HeaderChoice } from './parse-csv';
import { parseJson } from './parse-json';
import { isParquet, parseParquet } from './parse-parquet';
import type { RawTable } from './table';

/** What a table file picker offers. */
export const TABLE_ACCEPT = '.csv,.tsv,.tab,.txt,.json,.jsonl,.ndjson,.parquet';

/** Reads the table in `bytes`, named `file`. */
export async function readTable(
  bytes: Uint8Array,
  file: string,
  header: HeaderChoice = 'auto',
): Promise<RawTable> {
  if (isParquet(bytes)) return parseParquet(bytes, file);
  // TextDecoder drops a UTF-8 byte-order mark by itself.
  const text = new TextDecoder('utf-8').decode(bytes);
  const lower = file.toLowerCase();
  const first = /\S/.exec(text)?.[0];
  const jsonName = /\.(json|jsonl|ndjson)$/.test(lower);
  if (jsonName || first === '[' || first === '{') return parseJson(text, file, header);
  const tab = /\.(tsv|tab)$/.test(lower);
  return parseCsv(text, { file, header, ...(tab ? { delimiter: '\t' } : {}) });
}
