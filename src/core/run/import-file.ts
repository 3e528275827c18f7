/**
 * Reading a file a person imports: its size is checked before a byte is read,
 * its text is parsed as JSON, and whatever is wrong is said with the file's
 * name. Pure, so the engine worker can do it off the main thread — a run file
 * of 100,000 points is several megabytes, and parsing and checking it there
 * would hold the page for hundreds of milliseconds.
 */
import { describeIssues, type FlowIssue } from '../flow/issues';

/** Imports above this size are refused before they are read. */
export const MAX_IMPORT_BYTES = 20 * 1024 * 1024;

/** A file refused whole; the message names the file and, where there is one, the JSON path. */
export class ImportError extends Error {
  readonly code = 'bad-import';
  override name = 'ImportError';
}

/** Throws `ImportError` when a file of `bytes` is too large to import. */
export function checkImportSize(file: string, bytes: number): void {
  if (bytes > MAX_IMPORT_BYTES)
    throw new ImportError(
      `${file} is ${(bytes / 1024 / 1024).toFixed(1)} MB; Flowbench imports files up to ${MAX_IMPORT_BYTES / 1024 / 1024} MB`,
    );
}

/** The JSON value of an imported file's text; `ImportError` when it is not JSON. */
export function parseImportText(file: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ImportError(
      `${file} is not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  }
}

/** The `format` field of a parsed file, if it has one. */
export function formatOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null
    ? (value as { format?: unknown }).format
    : undefined;
}

/** Refuse a file whole, listing every finding with its JSON path. */
export function refuseImport(file: string, what: string, issues: readonly FlowIssue[]): never {
  throw new ImportError(`${file} is not a valid ${what}:\n${describeIssues(issues)}`);
}
