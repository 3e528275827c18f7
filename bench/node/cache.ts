/**
 * The node-output cache: what a re-run saves and what a cold run pays.
 *
 * - re-run after changing only the evaluation param (everything above it
 *   from the cache) against a cold run of the same flow, cache off;
 * - a cold run with the cache on (every key made, every output written, to
 *   an empty store each trial) against the same run with the cache off.
 *
 * The default example (`spirals-mlp`, its default 400 steps) runs through
 * `executeFlow` on onnxruntime-web's WASM in Node; the store is the
 * database's (`src/db/node-cache.ts`) over fake-indexeddb, so writes pay
 * structured cloning and a transaction, as in the browser.
 */
import 'fake-indexeddb/auto';
import * as ortWeb from 'onnxruntime-web';
import { readFileSync } from 'node:fs';
import { executeFlow } from '../../src/core/engine/executor';
import type { RunCache } from '../../src/core/engine/run-cache';
import { flowDocumentSchema, type FlowDocument } from '../../src/core/flow/document';
import { inProcessProducers } from '../../src/core/live/producer-host';
import { builtinCatalog } from '../../src/core/nodes';
import { resolveRunParams } from '../../src/core/run/params';
import { clearCache, nodeCacheStore } from '../../src/db/node-cache';
import { FlowbenchDb } from '../../src/db/schema';
import { OrtRuntime } from '../../workers/engine/ort-runtime';
import { engineInfo } from '../../workers/engine/adapter';
import { WASM_THREADS } from '../../workers/engine/ort-loader';
import { compareRow, ratioAtMost, type BenchRow } from '../lib/rows';
import { alternate } from '../lib/stats';
import { quietEvents } from './events';

ortWeb.env.wasm.numThreads = WASM_THREADS;
ortWeb.env.logLevel = 'error';
const runtime = new OrtRuntime(engineInfo(null), () => Promise.resolve(ortWeb), 'wasm');
const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

const example = flowDocumentSchema.parse(
  JSON.parse(readFileSync('src/examples/spirals-mlp.flow.json', 'utf8')),
);

/**
 * The example with its evaluation recomputed every run (`cache: off`): it
 * stands for an evaluation whose param changed, at the same cost as the
 * reference's evaluation.
 */
function withFreshEval(): FlowDocument {
  const flow = structuredClone(example);
  flow.nodes.find((n) => n.id === 'eval')!.params.cache = 'off';
  return flow;
}

let runs = 0;
/** One run's wall time in ms; `expect` says which nodes must have come from the cache. */
async function timedRun(flow: FlowDocument, cache: RunCache | undefined, cached: number) {
  const { values } = resolveRunParams(flow, {}, 0);
  let hits = 0;
  const events = quietEvents({
    nodeFinished: (node, outcome) => {
      if (outcome.status === 'cached') hits++;
      else if (outcome.status !== 'ok') throw new Error(`${node} ended ${outcome.status}`);
    },
  });
  const started = performance.now();
  const result = await executeFlow({
    flow,
    catalog: builtinCatalog,
    inputs: values,
    runtime,
    producers: inProcessProducers,
    events,
    signal: new AbortController().signal,
    now: Date.now,
    yieldNow,
    ...(cache && { cache }),
  });
  const ms = performance.now() - started;
  if (result.status !== 'ok') throw new Error(`the run ended ${result.status}`);
  if (hits !== cached) throw new Error(`${hits} nodes came from the cache, expected ${cached}`);
  return ms;
}

export async function run(): Promise<BenchRow[]> {
  const db = new FlowbenchDb('bench-node-cache');
  const store = nodeCacheStore(db, { budgetBytes: () => 1 << 30 });
  const cacheOf = (): RunCache => ({ store, runId: `run-${++runs}` });
  try {
    console.error('[cache] re-run after an evaluation param change…');
    await clearCache(db);
    await timedRun(example, cacheOf(), 0); // fills the cache above the evaluation
    const rerun = await alternate({
      a: () => timedRun(withFreshEval(), cacheOf(), 4),
      b: () => timedRun(example, undefined, 0),
      warmups: 1,
      minTrials: 5,
      maxTrials: 15,
      budgetMs: 60_000,
    });
    console.error('[cache] cold run, cache on vs off…');
    const cold = await alternate({
      a: () => timedRun(example, cacheOf(), 0),
      b: () => timedRun(example, undefined, 0),
      before: () => clearCache(db),
      warmups: 1,
      // A run is ~80 ms and the cache's share a few of them: many trials, or one slow trial moves
      // the median by more than the 5 % the row allows.
      minTrials: 15,
      maxTrials: 41,
      budgetMs: 60_000,
    });
    return [
      compareRow({
        name: 'cache: re-run after an eval param change vs cold run',
        unit: 'ms',
        lowerIsBetter: true,
        ours: rerun.a,
        reference: rerun.b,
        target: ratioAtMost(0.1, '≥ 10× faster'),
        note: 'default example (400 steps), executeFlow on WASM in Node; ours: data, split, model and train from the cache (fake-indexeddb), eval recomputed (its `cache: off`); reference: the same flow, cache off',
      }),
      compareRow({
        name: 'cache: cold run with the cache (keys + writes) vs cache off',
        unit: 'ms',
        lowerIsBetter: true,
        ours: cold.a,
        reference: cold.b,
        target: ratioAtMost(1.05),
        note: 'default example, an empty cache each trial: every key made and every output written (fake-indexeddb) against no cache',
      }),
    ];
  } finally {
    db.close();
    await db.delete();
  }
}
