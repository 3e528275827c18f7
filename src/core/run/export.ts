/**
 * The run export (`flowbench.run/1`): one JSON file per run that another
 * browser can import to get the same record back, field for field.
 *
 * JSON has no NaN, no ±Infinity and no -0, but a metric may be any of them
 * (a diverging loss is worth keeping). Such a point is written as
 * `[step, null, ts, "NaN" | "Infinity" | "-Infinity" | "-0"]`: readers that
 * ignore the fourth element see a gap; Flowbench restores the exact value.
 */
import { z } from '../schema';
import { flowDocumentSchema } from '../flow/document';
import { issuesFromZod, type FlowIssue } from '../flow/issues';
import { protoKeyIssues, snapshotIssues } from '../flow/untrusted';
import {
  nodeStatuses,
  runCauses,
  runStatuses,
  type ArtifactRow,
  type IntervalRow,
  type MetricRow,
  type RunId,
  type RunNodeRow,
  type RunRow,
} from './record';

export const RUN_FORMAT = 'flowbench.run/1';

const specialValues = ['NaN', 'Infinity', '-Infinity', '-0'] as const;
type SpecialValue = (typeof specialValues)[number];

const pointSchema = z.union([
  z.tuple([z.int().check(z.nonnegative()), z.number(), z.number()]),
  z.tuple([z.int().check(z.nonnegative()), z.null(), z.number(), z.enum(specialValues)]),
]);
type ExportPoint = z.infer<typeof pointSchema>;

const inputValue = z.union([z.number(), z.string(), z.boolean()]);

export const runExportSchema = z.object({
  format: z.literal(RUN_FORMAT, { error: `expected "${RUN_FORMAT}"` }),
  run: z.object({
    id: z.string().check(z.minLength(1)),
    flow: z.string(),
    flowVersion: z.int(),
    params: z.record(z.string(), inputValue),
    seed: z.int(),
    paramsDigest: z.string(),
    groupId: z.nullable(z.string()),
    cause: z.optional(z.enum(runCauses)),
    backendChoice: z.optional(z.enum(['auto', 'webgpu', 'wasm'])),
    requires: z.optional(z.array(z.enum(['webgpu', 'wasm']))),
    rerunOf: z.optional(z.nullable(z.string())),
    status: z.enum(runStatuses),
    statusReason: z.string(),
    createdAt: z.string(),
    startedAt: z.nullable(z.string()),
    finishedAt: z.nullable(z.string()),
    durationMs: z.nullable(z.number()),
    engine: z.nullable(
      z.object({
        backend: z.enum(['webgpu', 'wasm']),
        adapter: z.string(),
        vendor: z.optional(z.string()),
        architecture: z.optional(z.string()),
        fallback: z.optional(z.boolean()),
      }),
    ),
    result: z.record(z.string(), z.unknown()),
  }),
  flow: flowDocumentSchema,
  nodes: z.array(
    z.object({
      node: z.string(),
      status: z.enum(nodeStatuses),
      startedAt: z.nullable(z.string()),
      durationMs: z.nullable(z.number()),
      error: z.string(),
      logs: z.string(),
    }),
  ),
  metrics: z.record(z.string(), z.array(pointSchema)),
  artifacts: z._default(
    z.array(
      z.object({
        name: z.string(),
        node: z.string(),
        digest: z.string(),
        size: z.int().check(z.nonnegative()),
        mediaType: z.string(),
      }),
    ),
    [],
  ),
  intervals: z._default(
    z.array(z.object({ kind: z.string(), start: z.number(), end: z.number() })),
    [],
  ),
});
export type RunExport = z.infer<typeof runExportSchema>;

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
  return {
    format: RUN_FORMAT,
    run: {
      id: run.id,
      flow: run.flow,
      flowVersion: run.flowVersion,
      params: run.params,
      seed: run.seed,
      paramsDigest: run.paramsDigest,
      groupId: run.groupId,
      cause: run.cause,
      backendChoice: run.backendChoice,
      requires: run.requires,
      rerunOf: run.rerunOf,
      status: run.status,
      statusReason: run.statusReason,
      createdAt: run.createdAt,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      durationMs: run.durationMs,
      engine: run.engine,
      result: run.result,
    },
    flow: run.flowSnapshot,
    nodes: record.nodes.map(({ runId: _runId, ...node }) => node),
    metrics,
    artifacts: record.artifacts.map(({ runId: _r, bytes: _b, ...meta }) => meta),
    intervals: record.intervals.map(({ runId: _runId, ...interval }) => interval),
  };
}

/** Parse an export back into rows; findings name the JSON path of what is wrong. */
export function fromRunExport(
  input: unknown,
): { ok: true; record: RunRecord } | { ok: false; issues: FlowIssue[] } {
  const unsafe = protoKeyIssues(input);
  if (unsafe.length > 0) return { ok: false, issues: unsafe };
  const parsed = runExportSchema.safeParse(input);
  if (!parsed.success) return { ok: false, issues: issuesFromZod(parsed.error) };
  const doc = parsed.data;
  // Kinds and params are not checked: the catalog may have changed since the run ran.
  const incoherent = snapshotIssues(doc.flow);
  if (incoherent.length > 0) return { ok: false, issues: incoherent };
  const runId = doc.run.id as RunId;
  const run: RunRow = {
    ...doc.run,
    id: runId,
    flowId: null,
    flowSnapshot: doc.flow,
    cause: doc.run.cause ?? 'ui',
    backendChoice: doc.run.backendChoice ?? 'auto',
    requires: doc.run.requires ?? [],
    rerunOf: (doc.run.rerunOf ?? null) as RunId | null,
    leaseUntil: null,
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
