/**
 * Validation findings. Every finding names where it is (`path`, a JSON path
 * into the document such as `nodes[2].params.lr` or `edges[0]`) and says what
 * was expected, so a person can fix the file or the canvas without guessing.
 */
import type { $ZodError } from 'zod/v4/core';

export interface FlowIssue {
  /** JSON path into the document, e.g. `nodes[1].params.steps`. */
  path: string;
  message: string;
}

/** Render a zod issue path (`['nodes', 2, 'id']`) as `nodes[2].id`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(document)' : out;
}

export function issuesFromZod(error: $ZodError): FlowIssue[] {
  return error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
}

/** One line per finding, for an `alert` or an error message. */
export function describeIssues(issues: readonly FlowIssue[]): string {
  return issues.map((i) => `${i.path}: ${i.message}`).join('\n');
}
