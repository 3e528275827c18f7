/**
 * The run export (`flowbench.run/<n>`, see `core/records/run-file.ts` for its
 * versions): one JSON file per run that another browser can import to get
 * the same record back, field for field.
 *
 * JSON has no NaN, no ±Infinity and no -0, but a metric may be any of them
 * (a diverging loss is worth keeping). Such a point is written as
 * `[step, null, ts, "NaN" | "Infinity" | "-Infinity" | "-0"]`: readers that
 * ignore the fourth element see a gap; Flowbench restores the exact value.
 */
import { issuesFromZod, type FlowIssue } from '../flow/issues';
import { protoKeyIssues, snapshotIssues } from '../flow/untrusted';
import { storedRecords } from '../records';
import {
  RUN_FORMAT,
  runFileSchema,
  runFileSchemaFor,
  upgradeRunFile,
  type RunFile,
  type RunFilePoint,
  type RunFileRecords,
  type SpecialValue,
} from '../records/run-file';
import type { ArtifactRow, IntervalRow, MetricRow, RunId, RunNodeRow, RunRow } from './record';

export { isRunFile, RUN_FORMAT } from '../records/run-file';
/** The current run file schema (see `core/records/run-file.ts` for its versions). */
export const runExportSchema = runFileSchema;
export type RunExport = RunFile;
type ExportPoint = RunFilePoint;

function specialOf(value: number): SpecialValue | null {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  if (Object.is(value, -0)) return '-0';
  return null;
}

const specialNumber: Record<SpecialValue, number> = {
  NaN: NaN,
  Infinity: Infinity,
  '-Infinity': -Infinity,
  '-0': -0,
};

export function encodePoint(row: MetricRow): ExportPoint {
  const special = specialOf(row.value);
  return special ? [row.step, null, row.ts, special] : [row.step, row.value, row.ts];
}

export function decodePoint(runId: RunId, name: string, point: ExportPoint): MetricRow {
  const value = point[1] === null ? specialNumber[point[3]] : point[1];
  return { runId, name, step: point[0], value, ts: point[2] };
}

export interface RunRecord {
  run: RunRow;
  nodes: RunNodeRow[];
  metrics: MetricRow[];
  artifacts: ArtifactRow[];
  intervals: IntervalRow[];
}

/** The export document of one run. Metrics are grouped by name, in step order. */
export function toRunExport(record: RunRecord): RunExport {
  const { run } = record;
  const metrics: Record<string, ExportPoint[]> = {};
  const sorted = [...record.metrics].sort((a, b) =>
    a.name === b.name ? a.step - b.step : a.name < b.name ? -1 : 1,
  );
  for (const row of sorted) (metrics[row.name] ??= []).push(encodePoint(row));
  // Everything but what is local to this browser: a new run field is exported with no edit here.
  const {
    flowId: _flowId,
    flowSnapshot,
    leaseUntil: _lease,
    cancelRequestedAt: _cancel,
    ...exported
  } = run;
  return {
    format: RUN_FORMAT,
    run: exported,
    flow: flowSnapshot,
    nodes: record.nodes.map(({ runId: _runId, ...node }) => node),
    metrics,
    artifacts: record.artifacts.map(({ runId: _r, bytes: _b, ...meta }) => meta),
    intervals: record.intervals.map(({ runId: _runId, ...interval }) => interval),
  };
}

/**
 * Parse a run file of any version back into rows; findings name the JSON
 * path of what is wrong. An older file is first migrated by the same
 * functions that upgrade stored rows (`records`: the current record list,
 * unless a test passes one with another migration).
 */
export function fromRunExport(
  input: unknown,
  records: RunFileRecords = storedRecords,
): { ok: true; record: RunRecord } | { ok: false; issues: FlowIssue[] } {
  const unsafe = protoKeyIssues(input);
  if (unsafe.length > 0) return { ok: false, issues: unsafe };
  const upgraded = upgradeRunFile(input, records);
  if (!upgraded.ok) return upgraded;
  const parsed = runFileSchemaFor(records).safeParse(upgraded.file);
  if (!parsed.success) return { ok: false, issues: issuesFromZod(parsed.error) };
  const doc = parsed.data;
  // Kinds and params are not checked: the catalog may have changed since the run ran.
  const incoherent = snapshotIssues(doc.flow);
  if (incoherent.length > 0) return { ok: false, issues: incoherent };
  const runId = doc.run.id;
  const run: RunRow = {
    ...doc.run,
    flowId: null,
    flowSnapshot: doc.flow,
    leaseUntil: null,
    cancelRequestedAt: null,
  };
  return {
    ok: true,
    record: {
      run,
      nodes: doc.nodes.map((node) => ({ runId, ...node })),
      metrics: Object.entries(doc.metrics).flatMap(([name, points]) =>
        points.map((point) => decodePoint(runId, name, point)),
      ),
      artifacts: doc.artifacts.map((meta) => ({ runId, ...meta, bytes: null })),
      intervals: doc.intervals.map((interval) => ({ runId, ...interval })),
    },
  };
}
