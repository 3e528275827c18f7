/**
 * The run file format (`flowbench.run/<n>`): its versions, its schema and
 * the upgrade of an older file to the current version.
 *
 * The schema is made from the record schemas (a run file's `run` is a run
 * row less what is local to one browser), so a field added to a record is
 * in the file without a second edit. A file's version is the newest `file`
 * any of its records' migrations names, or the newest step of the file's own
 * shape below: an older file gets the same migrations the database upgrade
 * applies, then is checked against the current schema.
 *
 * Metric points travel as `[step, value, ts]` tuples, not as rows, so a
 * change to the metric record needs a step here as well.
 */
import { z } from '../schema';
import { flowDocumentSchema } from '../flow/document';
import type { FlowIssue } from '../flow/issues';
import type { artifactRowSchema } from './artifact';
import { storedRecords } from './index';
import type { storedIntervalSchema } from './interval';
import {
  formatVersion,
  latestFileVersion,
  migrate,
  type RecordFields,
  type RecordKind,
} from './migration';
import type { runRowSchema } from './run';
import type { runNodeRowSchema } from './run-node';

export const RUN_FILE = 'flowbench.run';

/** A change to the run file's own shape (not to a record it holds). */
export interface RunFileStep {
  /** The format version it produces. */
  readonly to: number;
  readonly change: string;
  readonly up: (file: RecordFields) => RecordFields;
}

export const runFileSteps: readonly RunFileStep[] = [
  {
    to: 2,
    change: 'artifacts and intervals are always listed (a /1 file without them had none)',
    up: (file) => ({ ...file, artifacts: file.artifacts ?? [], intervals: file.intervals ?? [] }),
  },
];

/** The records a run file holds, by the table that stores them. */
export type RunFileRecords = Readonly<
  Record<'runs' | 'runNodes' | 'artifacts' | 'intervals', RecordKind>
>;

/** Where each record sits in a run file; `many` for a list of them. */
const parts = [
  { key: 'run', table: 'runs', many: false },
  { key: 'nodes', table: 'runNodes', many: true },
  { key: 'artifacts', table: 'artifacts', many: true },
  { key: 'intervals', table: 'intervals', many: true },
] as const;

/** The current run file version for `records`. */
export function runFileVersion(records: RunFileRecords = storedRecords): number {
  const kinds = parts.map((part) => records[part.table]);
  return Math.max(latestFileVersion(kinds), ...runFileSteps.map((step) => step.to));
}

/** The `format` the current version writes, e.g. `flowbench.run/2`. */
export const RUN_FORMAT = `${RUN_FILE}/${runFileVersion()}` as const;

const specialValues = ['NaN', 'Infinity', '-Infinity', '-0'] as const;
export type SpecialValue = (typeof specialValues)[number];

/** `[step, value, ts]`, or `[step, null, ts, "NaN" | …]` for a value JSON cannot hold. */
export const pointSchema = z.union([
  z.tuple([z.int().check(z.nonnegative()), z.number(), z.number()]),
  z.tuple([z.int().check(z.nonnegative()), z.null(), z.number(), z.enum(specialValues)]),
]);
export type RunFilePoint = z.infer<typeof pointSchema>;

/** The run file schema for `records`: each part is its record's schema less what is local to a browser. */
function runFileSchemaOf(records: RunFileRecords) {
  // A test passes a run schema with one more field; its shape is the run schema's, extended.
  const run = records.runs.schema as typeof runRowSchema;
  const node = records.runNodes.schema as typeof runNodeRowSchema;
  const artifact = records.artifacts.schema as typeof artifactRowSchema;
  const interval = records.intervals.schema as typeof storedIntervalSchema;
  return z.object({
    // Older versions are upgraded (and their `format` rewritten) before this schema sees them.
    format: z.literal(`${RUN_FILE}/${runFileVersion(records)}`),
    run: z.omit(run, {
      flowId: true,
      flowSnapshot: true,
      leaseUntil: true,
      cancelRequestedAt: true,
    }),
    flow: flowDocumentSchema,
    nodes: z.array(z.omit(node, { runId: true })),
    metrics: z.record(z.string(), z.array(pointSchema)),
    artifacts: z.array(z.omit(artifact, { runId: true, bytes: true })),
    intervals: z.array(z.omit(interval, { runId: true, id: true })),
  });
}

/** The current run file schema. */
export const runFileSchema = runFileSchemaOf(storedRecords);
export type RunFile = z.output<typeof runFileSchema>;

const schemas = new WeakMap<RunFileRecords, ReturnType<typeof runFileSchemaOf>>([
  [storedRecords, runFileSchema],
]);

/** The run file schema for `records` (the current one unless a test passes its own). */
export function runFileSchemaFor(records: RunFileRecords): typeof runFileSchema {
  let schema = schemas.get(records);
  if (!schema) schemas.set(records, (schema = runFileSchemaOf(records)));
  return schema;
}

/** Whether a parsed file says it is a run file, of any version. */
export function isRunFile(format: unknown): boolean {
  return typeof format === 'string' && format.startsWith(`${RUN_FILE}/`);
}

/**
 * A run file of any earlier version brought to the current one: the file's
 * own steps, then its records' migrations, version by version. A file of a
 * version this reader does not know is refused by its `format`; anything
 * else wrong is left for the schema to name.
 */
export function upgradeRunFile(
  input: unknown,
  records: RunFileRecords = storedRecords,
): { ok: true; file: unknown } | { ok: false; issues: FlowIssue[] } {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return { ok: true, file: input };
  const current = runFileVersion(records);
  const version = formatVersion(RUN_FILE, (input as RecordFields).format);
  if (version === undefined || version > current) {
    const older = Array.from({ length: current - 1 }, (_, i) => `"${RUN_FILE}/${i + 1}"`);
    const message = `expected "${RUN_FILE}/${current}"${older.length > 0 ? ` (or an older ${older.join(', ')})` : ''}`;
    return { ok: false, issues: [{ path: 'format', message }] };
  }
  let file = input as RecordFields;
  for (let to = version + 1; to <= current; to++) {
    for (const step of runFileSteps) if (step.to === to) file = step.up(file);
    for (const part of parts) {
      const migrations = records[part.table].migrations.filter((m) => m.file === to);
      if (migrations.length === 0) continue;
      const value = file[part.key];
      file = {
        ...file,
        [part.key]:
          part.many && Array.isArray(value)
            ? value.map((item) => migrate(item, migrations))
            : migrate(value, migrations),
      };
    }
    file = { ...file, format: `${RUN_FILE}/${to}` };
  }
  return { ok: true, file };
}
