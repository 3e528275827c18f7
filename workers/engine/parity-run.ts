/**
 * Check parity of a run: run its flow again — the same snapshot, params and
 * seed — with a program host in `parity` mode, so every node that runs model
 * programs runs its requests serially, then interleaved, and the two are
 * compared output by output and metric by metric.
 *
 * Idea: the requests a run issued are built by its nodes from their inputs,
 * so the faithful way to get them back is to execute the flow again. The
 * re-execution writes nothing: its nodes' outcomes, metrics and artifacts
 * are dropped, and the run's record stays as it was. Trade-off: a parity
 * check costs the run's work twice over (its programs run both ways).
 */
import type { Catalog } from '../../src/core/catalog/catalog';
import { errorMessage, executeFlow, throttledYield } from '../../src/core/engine/executor';
import { describeIssues } from '../../src/core/flow/issues';
import {
  summariseNodeParity,
  summariseRunParity,
  type NodeParity,
  type RunParity,
} from '../../src/core/programs';
import { resolveRunParams } from '../../src/core/run/params';
import type { RunId } from '../../src/core/run/record';
import { readStoredFile } from '../../src/db/files';
import { getRun } from '../../src/db/runs';
import type { FlowbenchDb } from '../../src/db/schema';
import { messageTurn } from './message-turn';
import { engineProgramHost, type EnginePools } from './programs';
import type { RunDriverOptions } from './run-driver';
import { FlowbenchError, isFlowbenchError } from '../../src/core/errors';

export interface ParityRunOptions {
  readonly db: FlowbenchDb;
  readonly catalog: Catalog;
  readonly pools: EnginePools;
  readonly runtimeFor: RunDriverOptions['runtimeFor'];
  readonly producers: RunDriverOptions['producers'];
  readonly now: () => number;
  readonly signal?: AbortSignal;
}

/** Runs run `runId`'s programs serially and interleaved; see the module comment. */
export async function checkRunParity(runId: RunId, options: ParityRunOptions): Promise<RunParity> {
  const run = await getRun(options.db, runId);
  if (!run) throw new FlowbenchError('run-not-found', { runId });
  const { values, issues } = resolveRunParams(run.flowSnapshot, run.params, run.seed);
  if (issues.length > 0)
    return summariseRunParity([], 'error', describeIssues(issues), run.backendChoice);
  const nodes: NodeParity[] = [];
  const failures: string[] = [];
  const runtime = await options.runtimeFor(run.backendChoice);
  const signal = options.signal ?? new AbortController().signal;
  const backend = runtime.backendFor?.('auto') ?? runtime.info.backend;
  const programs = engineProgramHost(runtime, options.pools, {
    runId,
    mode: 'parity',
    onParity: (node, report) => nodes.push(summariseNodeParity(node, report)),
    yieldNow: throttledYield(options.now, messageTurn),
  });
  try {
    const result = await executeFlow({
      flow: run.flowSnapshot,
      catalog: options.catalog,
      inputs: values,
      runtime,
      programs,
      producers: options.producers,
      readFile: (digest) => readStoredFile(options.db, digest),
      signal,
      now: options.now,
      yieldNow: messageTurn,
      events: {
        nodeQueued: () => undefined,
        nodeStarted: () => undefined,
        nodeFinished: (node, outcome) => {
          if (outcome.status === 'error') failures.push(`node '${node}' failed: ${outcome.error}`);
        },
        emitted: () => undefined,
        log: () => undefined,
        progress: () => undefined,
        artifact: () => undefined,
        interval: () => undefined,
      },
    });
    return summariseRunParity(nodes, result.status, failures.join('; '), backend);
  } catch (error) {
    const reason = isFlowbenchError(error, 'invalid-flow')
      ? describeIssues(error.data.issues)
      : errorMessage(error);
    return summariseRunParity(nodes, 'error', reason, backend);
  } finally {
    await programs.close?.();
    await runtime.releaseAll?.();
  }
}
