/**
 * The run record (table `runs`): one row per run — what ran (the flow's
 * snapshot, params, seed), why (`cause`, `rerunOf`), where (`backendChoice`,
 * `requires`, `engine`, `fingerprint`), and how it ended. A run file's `run` object is this
 * row less what is local to one browser (`flowId`, `flowSnapshot`, which the
 * file holds as `flow`, `leaseUntil` and `cancelRequestedAt`).
 */
import { z } from '../schema';
import { flowDocumentSchema } from '../flow/document';
import type { Backend, BackendChoice } from '../runtime/tensor-runtime';
import { runFingerprintSchema } from './fingerprint';
import { flowIdSchema, runIdSchema } from './ids';
import { defineRecord } from './migration';

export const runStatuses = ['queued', 'running', 'ok', 'error', 'cancelled', 'abandoned'] as const;
export type RunStatus = (typeof runStatuses)[number];
export const finishedRunStatuses: readonly RunStatus[] = ['ok', 'error', 'cancelled', 'abandoned'];

export const runCauses = ['ui', 'sweep', 'rerun', 'import-replay', 'cli'] as const;
export type RunCause = (typeof runCauses)[number];

const backend = z.enum(['webgpu', 'wasm'] satisfies Backend[]);
/** Where a run ran: a browser backend, or `cpu`, onnxruntime-node's native CPU provider (`flowbench run --backend cpu`). */
const engineBackend = z.enum(['webgpu', 'wasm', 'cpu']);
const backendChoice = z.enum(['auto', 'webgpu', 'wasm'] satisfies BackendChoice[]);

export const engineRecordSchema = z.object({
  backend: engineBackend,
  /** e.g. "google swiftshader (fallback)", or "none" without an adapter. */
  adapter: z.string(),
  vendor: z.optional(z.string()),
  architecture: z.optional(z.string()),
  fallback: z.optional(z.boolean()),
});
export type EngineRecord = z.output<typeof engineRecordSchema>;

export const runCacheSchema = z.object({
  use: z.boolean(),
  to: z.optional(z.string()),
  from: z.optional(z.string()),
});
export type RunCacheChoice = z.output<typeof runCacheSchema>;

export const runRowSchema = z.object({
  id: runIdSchema,
  /** The library flow it was started from; null for imported runs. */
  flowId: z.nullable(flowIdSchema),
  flow: z.string(),
  flowVersion: z.int(),
  /** The exact flow document it ran. */
  flowSnapshot: flowDocumentSchema,
  params: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])),
  seed: z.int(),
  paramsDigest: z.string(),
  groupId: z.nullable(z.string()),
  cause: z.enum(runCauses),
  /** The backend the person asked for. */
  backendChoice,
  /** Devices the run cannot run without (a node or the run forced to `webgpu`). */
  requires: z.array(backend),
  /** The run this one re-ran, to compare their series. */
  rerunOf: z.nullable(runIdSchema),
  status: z.enum(runStatuses),
  statusReason: z.string(),
  createdAt: z.string(),
  startedAt: z.nullable(z.string()),
  finishedAt: z.nullable(z.string()),
  durationMs: z.nullable(z.number()),
  engine: z.nullable(engineRecordSchema),
  /**
   * What it ran on, in full (fingerprint.ts), written when an engine claims
   * it; absent before that and on runs from before fingerprints.
   */
  fingerprint: z.optional(runFingerprintSchema),
  result: z.record(z.string(), z.unknown()),
  /**
   * How the run used the node-output cache: `use` false ran every node
   * (`Use cache` off); `to` ran only what that node needs (`Run to here`);
   * `from` recomputed that node and everything below it (`Run from here`).
   * Absent: the whole flow, cache on (and on runs from before the cache,
   * which ran every node: their nodes say `ok`, never `cached`).
   */
  cache: z.optional(runCacheSchema),
  /** Epoch ms until which the engine holding the run vouches for it. */
  leaseUntil: z.nullable(z.number()),
  /**
   * When someone asked, from any tab, to cancel the run; the engine driving
   * it watches for this and stops it. Null: nobody asked.
   */
  cancelRequestedAt: z.nullable(z.string()),
});
export type RunRow = z.output<typeof runRowSchema>;

export const runRecord = defineRecord({
  name: 'run',
  schema: runRowSchema,
  migrations: [
    {
      to: 2,
      db: 3,
      file: 2,
      change:
        'cause, backendChoice, requires and rerunOf are always there: a run from before they were recorded was started from the UI, on auto, required no device and re-ran nothing',
      up: (run) => ({
        ...run,
        cause: run.cause ?? 'ui',
        backendChoice: run.backendChoice ?? 'auto',
        requires: run.requires ?? [],
        rerunOf: run.rerunOf ?? null,
      }),
    },
    {
      to: 3,
      db: 4,
      change:
        'cancelRequestedAt is always there: a run from before cancel requests were recorded had none',
      up: (run) => ({ ...run, cancelRequestedAt: run.cancelRequestedAt ?? null }),
    },
  ],
});
