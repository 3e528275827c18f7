/**
 * The run driver: takes one journaled run from `queued` to its end and writes
 * its record itself, as it goes.
 *
 * The driver — not an event bus the UI listens to — writes the record, so
 * what is stored does not depend on anyone watching, and a page that reloads
 * mid-run finds everything flushed so far. The run is claimed with a
 * compare-and-swap (here by id, or by the run service from the queue), so no
 * second engine can drive it; the driver holds a lease (refreshed while it
 * runs) so a run whose engine died can be told from one that is merely slow,
 * and it reads, at each refresh and twice a second between, whether any tab
 * asked to cancel the run (the record is the one place every tab can reach).
 * Node outcomes and logs are written in batches, a few a second, each
 * waiting for the one before to land (`node-outcomes.ts`), not one write per change, so a run's cost per node
 * stays flat however many nodes it has, and a crash loses at most the last
 * moments of them. It always ends the record, whatever way the run ends,
 * after flushing what was buffered.
 */
import type { Catalog } from '../../src/core/catalog/catalog';
import type {
  BackendChoice,
  EngineInfo,
  TensorRuntime,
} from '../../src/core/runtime/tensor-runtime';
import type { ProducerHost } from '../../src/core/data/producer';
import type { ProgramHost } from '../../src/core/programs';
import { describeAdapter } from '../../src/core/runtime/tensor-runtime';
import { errorMessage, executeFlow, type ExecuteOptions } from '../../src/core/engine/executor';
import type { NodeCacheStore } from '../../src/core/cache';
import { describeIssues } from '../../src/core/flow/issues';
import { sha256Hex } from '../../src/core/run/digest';
import { MetricBatcher } from '../../src/core/run/metric-batcher';
import type { RunFingerprint } from '../../src/core/run/fingerprint';
import type { EngineRecord } from '../../src/core/records/run';
import { resolveRunParams } from '../../src/core/run/params';
import {
  capText,
  recordLimits,
  type RunId,
  type RunRow,
  type RunStatus,
} from '../../src/core/run/record';
import { readStoredFile } from '../../src/db/files';
import { NODE_BATCH_MS, NodeOutcomes } from './node-outcomes';
import { DEFAULT_LIVE_INTERVAL_MS, liveValues } from './live-values';
import { messageTurn } from './message-turn';
import { storageFailureReason, storeEnding, type RunEnding } from './run-ending';
import { StorageWatch } from './storage-watch';
import { putArtifact } from '../../src/db/artifacts';
import { addInterval } from '../../src/db/intervals';
import { RunMetricWriter } from '../../src/db/metric-writer';
import { putRunNodes } from '../../src/db/run-nodes';
import { cancelRequested, claimRun, endRun, renewLease, updateRun } from '../../src/db/runs';
import type { FlowbenchDb } from '../../src/db/schema';
import { ENGINE_TIMING_DEFAULTS } from '../../src/db/settings';
import { FlowbenchError, isFlowbenchError } from '../../src/core/errors';

export interface RunDriverOptions {
  db: FlowbenchDb;
  catalog: Catalog;
  /** Builds the tensor runtime for a run's backend choice (may fail: no WebGPU). */
  runtimeFor: (choice: BackendChoice) => Promise<TensorRuntime & { releaseAll?(): Promise<void> }>;
  /** What a run with this backend choice runs on here (fingerprint.ts); none is recorded without it. */
  fingerprint?: (choice: BackendChoice) => Promise<RunFingerprint>;
  now: () => number;
  setTimer: (fire: () => void, ms: number) => () => void;
  onProgress?: (node: string, done: number, total: number, perSecond?: number) => void;
  /** A streaming port's latest value, thinned by its rate-limit interval (see live-values.ts). */
  onLive?: (node: string, port: string, value: number) => void;
  /** Where the run's data engines start their producers (workers of their own in the browser). */
  producers: ProducerHost;
  /** The program host of a run over its runtime (the engine's pools); default an unbounded pool. */
  programHost?: (runtime: TensorRuntime, runId: RunId) => ProgramHost;
  /**
   * A write of the run's record failed (the storage quota is full, most
   * often): the run is being stopped; `reason` is what its record will say.
   */
  onStorageFailure?: (reason: string) => void;
  /**
   * The run's writes have waited `waitedMs` without an answer (the browser's
   * storage is stalled or held by another tab), or, with `null`, answer again.
   */
  onStorageStall?: (waitedMs: number | null) => void;
  /** How long the oldest write may wait before `onStorageStall` (default `STORAGE_STALL_MS`). */
  storageStallMs?: number;
  /** How long a lease vouches for a run; refreshed every third of it. */
  leaseMs?: number;
  /** How often the record is read for a cancel request between renewals (default `CANCEL_POLL_MS`). */
  cancelPollMs?: number;
  metricBatch?: { maxPoints?: number; maxDelayMs?: number };
  /** The node-output cache (`src/db/node-cache.ts`); without it every node runs. */
  nodeCache?: NodeCacheStore;
  /**
   * One turn of the event loop, between a loop's units (default `messageTurn`, a worker's
   * cheapest turn). Node's cheapest is `setImmediate`: a MessageChannel there is a pair of
   * native ports made and closed each time.
   */
  yieldNow?: () => Promise<void>;
}

/** How long a lease vouches for a run, by default; it is refreshed every third of it. */
export const LEASE_MS = ENGINE_TIMING_DEFAULTS.leaseMs;

/** How often a driver reads its run's record for a cancel request between renewals, by default. */
export const CANCEL_POLL_MS = 500;

/** The changes that move a run to `running` when an engine claims it at `now`. */
export function claimChanges(now: number, leaseMs = LEASE_MS): Partial<RunRow> {
  return {
    startedAt: new Date(now).toISOString(),
    leaseUntil: now + leaseMs,
    statusReason: '',
  };
}

/** What a run with backend choice `choice` runs on, on an engine that says `info`: its record's `engine`. */
export function engineOf(choice: BackendChoice, info: EngineInfo): EngineRecord {
  return {
    backend: choice === 'auto' ? info.backend : choice,
    adapter: describeAdapter(info.adapter),
    ...(info.adapter && {
      vendor: info.adapter.vendor,
      architecture: info.adapter.architecture,
      fallback: info.adapter.isFallbackAdapter,
    }),
  };
}

/** Whether two plain record values (made by the same code, so with keys in the same order) are equal. */
const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Serialises writes of node outcomes so they land in the order they happened. */
class WriteChain {
  private tail: Promise<void> = Promise.resolve();
  failure: unknown = null;
  constructor(private readonly onFailure: (error: unknown) => void) {}
  /** Resolves once this write has landed or failed (a failure goes to `onFailure`). */
  add(write: () => Promise<void>): Promise<void> {
    this.tail = this.tail.then(write).catch((error: unknown) => {
      this.failure ??= error;
      this.onFailure(error);
    });
    return this.tail;
  }
  settled(): Promise<void> {
    return this.tail;
  }
}

/** Claim the queued run `runId` and drive it to its end (see `driveClaimedRun`). */
export async function driveRun(
  runId: RunId,
  signal: AbortSignal,
  options: RunDriverOptions,
): Promise<RunStatus> {
  const claimed = await claimRun(
    options.db,
    runId,
    claimChanges(options.now(), options.leaseMs ?? LEASE_MS),
  );
  return driveClaimedRun(claimed, signal, options);
}

/**
 * Drive a run this engine has just claimed (`claimChanges`) to its end,
 * writing its record as it goes; resolves with its final status. `signal`
 * cancels it from this engine; a cancel request in its record, from any tab,
 * does the same.
 */
export async function driveClaimedRun(
  run: RunRow,
  signal: AbortSignal,
  options: RunDriverOptions,
): Promise<RunStatus> {
  const { db, now } = options;
  const runId = run.id;
  const leaseMs = options.leaseMs ?? LEASE_MS;
  const started = run.startedAt === null ? now() : Date.parse(run.startedAt);
  // Every write of the record goes through the watch, so a stall in storage is told, not silent.
  const watch = new StorageWatch({
    now,
    setTimer: options.setTimer,
    ...(options.storageStallMs !== undefined && { stallMs: options.storageStallMs }),
    onStall: (waited) => options.onStorageStall?.(waited),
    onResume: () => options.onStorageStall?.(null),
  });
  // The person's cancel: from this engine (`signal`) or from any tab, through the record.
  const cancel = new AbortController();
  signal.addEventListener('abort', () => cancel.abort(), { once: true });
  if (signal.aborted) cancel.abort();

  const stopLease = startLease(run, options, leaseMs, watch, () => cancel.abort());
  const limits = new Map(run.flowSnapshot.nodes.map((n) => [n.id, n.rateLimits ?? {}]));
  const live = liveValues(
    (node, port, value) => options.onLive?.(node, port, value),
    (node, port) => limits.get(node)?.[port] ?? DEFAULT_LIVE_INTERVAL_MS,
  );
  // A write that fails (the quota is full) stops the run: nothing more of it could be kept.
  let storageFailure: unknown = null;
  const storageFailed = (error: unknown) => {
    if (storageFailure !== null) return;
    storageFailure = error;
    options.onStorageFailure?.(storageFailureReason(error));
    abort.abort();
  };
  const writes = new WriteChain(storageFailed);
  // Through the chain, so batches land in the order they were made.
  const nodes = new NodeOutcomes({
    runId,
    write: (rows) => writes.add(() => watch.track(putRunNodes(db, rows))),
    setTimer: options.setTimer,
    now,
    delayMs: Math.min(NODE_BATCH_MS, options.metricBatch?.maxDelayMs ?? NODE_BATCH_MS),
  });

  const metrics = new RunMetricWriter(db, runId);
  const batcher = new MetricBatcher({
    runId,
    write: (rows) => watch.track(metrics.put(rows)),
    now,
    setTimer: options.setTimer,
    onError: storageFailed,
    ...options.metricBatch,
  });
  // The executor's signal: the person's cancel, or a storage failure that makes going on pointless.
  const abort = new AbortController();
  cancel.signal.addEventListener('abort', () => abort.abort(), { once: true });
  if (cancel.signal.aborted) abort.abort();

  let runtime: Awaited<ReturnType<RunDriverOptions['runtimeFor']>> | null = null;
  let programs: ProgramHost | undefined;
  let end: Pick<RunRow, 'status' | 'statusReason' | 'result'>;
  try {
    // Made while the runtime starts, and written with the engine in one write: each write of
    // the record rewrites the run's row, flow and all. A run that fails before it has a runtime
    // (no device, bad params) still says what it ran on.
    const fingerprint = options.fingerprint?.(run.backendChoice);
    fingerprint?.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
    let values: ReturnType<typeof resolveRunParams>['values'];
    try {
      const resolved = resolveRunParams(run.flowSnapshot, run.params, run.seed);
      if (resolved.issues.length > 0)
        throw new FlowbenchError('invalid-flow', {
          issues: resolved.issues,
          subject: 'The run parameters are',
        });
      values = resolved.values;
      runtime = await options.runtimeFor(run.backendChoice);
    } catch (error) {
      if (fingerprint) await watch.track(updateRun(db, runId, { fingerprint: await fingerprint }));
      throw error;
    }
    const engine = engineOf(run.backendChoice, runtime.info);
    const print = fingerprint && (await fingerprint);
    // An engine that claimed the run knowing both wrote them with the claim (run-service.ts).
    if (!sameValue(run.engine, engine) || (print && !sameValue(run.fingerprint, print)))
      await watch.track(updateRun(db, runId, { ...(print && { fingerprint: print }), engine }));
    const artifacts: Promise<unknown>[] = [];

    const result = await executeFlow({
      flow: run.flowSnapshot,
      catalog: options.catalog,
      inputs: values,
      runtime,
      producers: options.producers,
      ...(options.programHost && { programs: (programs = options.programHost(runtime, runId)) }),
      readFile: (digest) => readStoredFile(db, digest),
      signal: abort.signal,
      now,
      yieldNow: options.yieldNow ?? messageTurn,
      ...cacheOptions(run, options.nodeCache),
      events: {
        nodeQueued(node) {
          nodes.queued(node);
        },
        nodeStarted(node, at) {
          nodes.update(node, { status: 'running', startedAt: new Date(at).toISOString() });
        },
        nodeFinished(node, outcome) {
          nodes.update(node, {
            // Stopped by a storage failure, not by the person: interrupted, as after a crash.
            status:
              outcome.status === 'cancelled' && storageFailure !== null
                ? 'interrupted'
                : outcome.status,
            durationMs: outcome.durationMs,
            error: capText(outcome.error, recordLimits.error),
            ...(outcome.cachedFrom && {
              cachedFrom: {
                runId: outcome.cachedFrom.runId as RunId,
                node: outcome.cachedFrom.node,
              },
            }),
          });
        },
        emitted(node, port, value, stream) {
          if (typeof value !== 'number') return;
          batcher.push(`${node}.${port}`, value);
          if (stream) live.push(node, port, value);
        },
        log(node, message) {
          const row = nodes.get(node);
          if (!row) return;
          nodes.update(node, {
            logs: capText(row.logs ? `${row.logs}\n${message}` : message, recordLimits.logs),
          });
        },
        progress(node, done, total, perSecond) {
          // Its last step shown with its last values, not those of up to an interval before.
          if (done >= total) live.flush(node);
          options.onProgress?.(node, done, total, perSecond);
        },
        interval(_node, kind, start, end) {
          void writes.add(async () => {
            await watch.track(addInterval(db, { runId, kind, start, end }));
          });
        },
        artifact(node, name, bytes, mediaType) {
          // A refused write stops the run as any other does; caught here, as it happens, for
          // the run awaits its artifacts only once its nodes are done.
          artifacts.push(
            sha256Hex(bytes)
              .then((hex) =>
                watch.track(
                  putArtifact(db, {
                    runId,
                    name,
                    node,
                    digest: `sha256:${hex}`,
                    size: bytes.byteLength,
                    mediaType,
                    bytes,
                  }),
                ),
              )
              .catch(storageFailed),
          );
        },
      },
    });
    await Promise.all(artifacts);
    end = {
      status: result.status,
      statusReason:
        result.status === 'cancelled'
          ? 'Cancelled while running'
          : result.failed.length > 0
            ? `node '${result.failed[0]}' failed: ${nodes.get(result.failed[0]!)?.error ?? ''}`
            : '',
      result: recordable(result.outputs),
    };
  } catch (error) {
    end = {
      status: cancel.signal.aborted ? 'cancelled' : 'error',
      statusReason: cancel.signal.aborted
        ? 'Cancelled while running'
        : isFlowbenchError(error, 'invalid-flow')
          ? describeIssues(error.data.issues)
          : errorMessage(error),
      result: {},
    };
  } finally {
    // The models the run's nodes shared give back their pool bytes; then every session goes.
    await programs?.close?.();
    await runtime?.releaseAll?.();
  }

  live.close();
  nodes.close();
  // Whatever happened, what was recorded is flushed before the run is closed.
  await batcher.flush().catch(() => undefined);
  // Stopped by the person: cancelled; by a storage failure: interrupted, as after a crash.
  const stopped =
    end.status === 'cancelled' && storageFailure === null ? 'cancelled' : 'interrupted';
  for (const row of [...nodes.all()])
    if (row.status === 'running' || row.status === 'queued')
      nodes.update(row.node, { status: stopped });
  // The last batch: every outcome not written yet, written with the ending, in its transaction;
  // so are the node-cache entries the store still holds back (after a storage failure the
  // store keeps them itself, as if the run had gone on).
  const last = await nodes.takeLast();
  const cached =
    storageFailure === null ? ((await options.nodeCache?.takeHeld?.(runId)) ?? null) : null;
  await writes.settled();
  const finished = now();
  const ending = (): RunEnding => ({
    ...end,
    statusReason: capText(end.statusReason, recordLimits.error),
    finishedAt: new Date(finished).toISOString(),
    durationMs: finished - started,
    leaseUntil: null,
  });
  try {
    if (storageFailure === null) {
      try {
        // Every earlier batch landed and this holds the rest: the ending need not read the
        // nodes back to find any left unfinished.
        await watch.track(
          endRun(db, runId, ending(), {
            onlyWhileRunning: false,
            nodesFinal: true,
            nodes: last,
            cached,
          }),
        );
        return end.status;
      } catch (error) {
        storageFailed(error);
      }
    }
    end = {
      status: 'error',
      statusReason: storageFailureReason(storageFailure),
      result: end.result,
    };
    // One small write, retried: it often fits where a batch of points did not.
    await watch.track(storeEnding(db, runId, ending(), options.setTimer, last));
  } finally {
    stopLease();
    watch.close();
  }
  return end.status;
}

/**
 * Keep the lease fresh while the run is alive, and call `onCancelRequested`
 * when the record holds a cancel request: read at each renewal, and between
 * renewals every `cancelPollMs`, so a request whose nudge never came (its tab
 * went away as it wrote it, say) stops the run within a second, not a third
 * of a lease later, when a short run may already have ended `ok`. A read is
 * not asked while the last one waits. Returns a stop function.
 */
function startLease(
  run: RunRow,
  options: RunDriverOptions,
  leaseMs: number,
  watch: StorageWatch,
  onCancelRequested: () => void,
): () => void {
  let stopRenewal: (() => void) | null = null;
  let stopPoll: (() => void) | null = null;
  const renew = () => {
    void watch
      .track(renewLease(options.db, run.id, options.now() + leaseMs))
      .then(({ cancelRequested }) => {
        if (cancelRequested) onCancelRequested();
      })
      .catch(() => undefined);
    stopRenewal = options.setTimer(renew, leaseMs / 3);
  };
  let reading = false;
  const poll = () => {
    if (!reading) {
      reading = true;
      void cancelRequested(options.db, run.id)
        .then((asked) => asked && onCancelRequested())
        .catch(() => undefined)
        .finally(() => (reading = false));
    }
    stopPoll = options.setTimer(poll, options.cancelPollMs ?? CANCEL_POLL_MS);
  };
  stopRenewal = options.setTimer(renew, leaseMs / 3);
  stopPoll = options.setTimer(poll, options.cancelPollMs ?? CANCEL_POLL_MS);
  return () => {
    stopRenewal?.();
    stopPoll?.();
  };
}

/** What the executor needs of the run's cache choice (`Use cache`, `Run to here`, `Run from here`). */
function cacheOptions(
  run: RunRow,
  store: NodeCacheStore | undefined,
): Pick<ExecuteOptions, 'cache' | 'runTo'> {
  const choice = run.cache;
  return {
    ...(store &&
      choice?.use !== false && {
        cache: {
          store,
          runId: run.id,
          ...(choice?.from !== undefined && { fresh: new Set([choice.from]) }),
        },
      }),
    ...(choice?.to !== undefined && { runTo: choice.to }),
  };
}

/** Flow outputs as a record keeps them: numbers, text and booleans. */
function recordable(outputs: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(outputs))
    if (['number', 'string', 'boolean'].includes(typeof value)) kept[name] = value;
  return kept;
}
