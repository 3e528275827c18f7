/**
 * Reading a file a person imports: its size is checked before a byte is read,
 * its text is parsed as JSON, and whatever is wrong is said with the file's
 * name. Pure, so the engine worker can do it off the main thread — a run file
 * of 100,000 points is several megabytes, and parsing and checking it there
 * would hold the page for hundreds of milliseconds.
 */
import { describeIssues, type FlowIssue } from '../flow/issues';
import { FlowbenchError } from '../errors';

/** Imports above this size are refused before they are read. */
export const MAX_IMPORT_BYTES = 20 * 1024 * 1024;

/**
 * A file refused whole (`bad-import`); the message names the file and, where
 * there is one, the JSON path.
 */
export function importRefused(file: string, problem: string, cause?: unknown): FlowbenchError {
  return new FlowbenchError('bad-import', { file, problem }, cause === undefined ? {} : { cause });
}

/** Throws `bad-import` when a file of `bytes` is too large to import. */
export function checkImportSize(file: string, bytes: number): void {
  if (bytes > MAX_IMPORT_BYTES)
    throw importRefused(
      file,
      `is ${(bytes / 1024 / 1024).toFixed(1)} MB; Flowbench imports files up to ${MAX_IMPORT_BYTES / 1024 / 1024} MB`,
    );
}

/**
 * Deepest nesting of arrays and objects an imported file may have. Flowbench's
 * own files nest about six levels; the limit leaves room for deep `result`
 * objects. Deeper JSON parses, but every later step that walks it — the
 * schema check, the structured clone that carries it between threads — would
 * overflow the stack, so such a file is refused before it is parsed.
 */
export const MAX_IMPORT_DEPTH = 256;

/**
 * How deeply `text`'s arrays and objects nest, counted in one pass over its
 * characters (strings skipped), stopping as soon as it passes `limit`.
 */
export function jsonDepth(text: string, limit = Infinity): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest && (deepest = depth) > limit) return deepest;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** The JSON value of an imported file's text; `bad-import` when it is not JSON or nests too deeply. */
export function parseImportText(file: string, text: string): unknown {
  if (jsonDepth(text, MAX_IMPORT_DEPTH) > MAX_IMPORT_DEPTH)
    throw importRefused(
      file,
      `nests its arrays and objects more than ${MAX_IMPORT_DEPTH} levels deep; Flowbench reads files up to ${MAX_IMPORT_DEPTH} levels`,
    );
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw importRefused(
      file,
      `is not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      error,
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
  throw importRefused(file, `is not a valid ${what}:\n${describeIssues(issues)}`);
}
