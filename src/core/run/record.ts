/**
 * The run record as IndexedDB keeps it: one row per run, per node outcome,
 * per metric point, per artifact and per wait interval. These are plain types
 * shared by the worker that writes them and the UI that reads them; the
 * Dexie schema that stores them lives in the db layer.
 */
import type { FlowDocument } from '../flow/document';
import type { Backend, BackendChoice } from '../runtime/tensor-runtime';
import type { InputValue } from './params';

export const runStatuses = ['queued', 'running', 'ok', 'error', 'cancelled', 'abandoned'] as const;
export type RunStatus = (typeof runStatuses)[number];
export const finishedRunStatuses: readonly RunStatus[] = ['ok', 'error', 'cancelled', 'abandoned'];

export const nodeStatuses = [
  'idle',
  'queued',
  'running',
  'ok',
  'error',
  'cancelled',
  'skipped',
  'interrupted',
] as const;
export type NodeStatus = (typeof nodeStatuses)[number];

export const runCauses = ['ui', 'sweep', 'rerun', 'import-replay'] as const;
export type RunCause = (typeof runCauses)[number];

/** A time-ordered run id (UUIDv7): newer ids sort after older ones. */
export type RunId = string & { readonly __brand: 'RunId' };
/** A flow's id in the local library. */
export type FlowId = string & { readonly __brand: 'FlowId' };

export interface EngineRecord {
  backend: Backend;
  /** e.g. "google swiftshader (fallback)", or "none" without an adapter. */
  adapter: string;
  vendor?: string;
  architecture?: string;
  fallback?: boolean;
}

export interface RunRow {
  id: RunId;
  /** The library flow it was started from; null for imported runs. */
  flowId: FlowId | null;
  flow: string;
  flowVersion: number;
  /** The exact flow document it ran. */
  flowSnapshot: FlowDocument;
  params: Record<string, InputValue>;
  seed: number;
  paramsDigest: string;
  groupId: string | null;
  cause: RunCause;
  /** The backend the person asked for. */
  backendChoice: BackendChoice;
  /** Devices the run cannot run without (a node or the run forced to `webgpu`). */
  requires: Backend[];
  /** The run this one re-ran, to compare their series. */
  rerunOf: RunId | null;
  status: RunStatus;
  statusReason: string;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  engine: EngineRecord | null;
  result: Record<string, unknown>;
  /** Epoch ms until which the engine holding the run vouches for it. */
  leaseUntil: number | null;
}

export interface RunNodeRow {
  runId: RunId;
  node: string;
  status: NodeStatus;
  startedAt: string | null;
  durationMs: number | null;
  error: string;
  logs: string;
}

/** A metric point: the `step`-th emission of `name` (`node.port`); `ts` in epoch seconds. */
export interface MetricRow {
  runId: RunId;
  name: string;
  step: number;
  value: number;
  ts: number;
}

export interface ArtifactRow {
  runId: RunId;
  name: string;
  node: string;
  digest: string;
  size: number;
  mediaType: string;
  /** Null for artifacts of imported runs: exports carry metadata only. */
  bytes: Uint8Array | null;
}

export interface IntervalRow {
  runId: RunId;
  kind: string;
  start: number;
  end: number;
}

/** Caps that keep one noisy node from bloating the record. */
export const recordLimits = { error: 2_000, logs: 8_000 } as const;

export function capText(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
