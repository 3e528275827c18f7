/**
 * The runner side of every train-step row (the MLP's in ort.ts, each
 * block's in block-train-bench.ts): a flow of one dataset node, a model node
 * and `train.classifier`, and one timed run of it through `executeFlow`.
 *
 * Idea: the rows differ only in the dataset, the model node and its params,
 * and the step counts, so the flow and the timing are written once, and
 * every row's runner figure means the same thing. Trade-off: the dataset
 * reaches the flow through a node kind made for the bench (it emits the
 * rows it was given), not through a stored file, so the runner figure
 * leaves out reading and parsing data, as the bare loop does.
 */
import type { Catalog } from '../../src/core/catalog/catalog';
import { defineNodeKind, type NodeKind } from '../../src/core/catalog/kind';
import type { Dataset } from '../../src/core/catalog/values';
import { executeFlow } from '../../src/core/engine/executor';
import type { FlowDocument } from '../../src/core/flow/document';
import { inProcessProducers } from '../../src/core/live/producer-host';
import type { TensorRuntime } from '../../src/core/runtime/tensor-runtime';
import { quietEvents } from '../node/events';

/** A node kind `kind` with no params and no inputs that emits `dataset` on its `dataset` port. */
export function datasetNode(
  kind: string,
  about: { readonly title: string; readonly description: string },
  dataset: Dataset,
): NodeKind {
  return defineNodeKind({
    kind,
    title: about.title,
    category: 'data',
    description: about.description,
    params: {},
    inputs: [],
    outputs: [{ name: 'dataset', type: 'dataset', description: 'The rows.' }],
    execute(ctx) {
      ctx.emit('dataset', dataset);
      return Promise.resolve();
    },
  });
}

/** What a train-step row trains: the flow's name, its nodes and `train.classifier`'s params. */
export interface ClassifierRun {
  /** The flow's name. */
  readonly name: string;
  /** The dataset node's kind (see {@link datasetNode}). */
  readonly dataKind: string;
  readonly model: {
    readonly kind: string;
    readonly params: Readonly<Record<string, number | string>>;
  };
  readonly batch: number;
  readonly lr: number;
  readonly momentum: number;
  readonly seed: number;
}

/** data → train.dataset, model → train.model; `train.classifier` runs `steps` steps on WASM. */
export function classifierFlow(run: ClassifierRun, steps: number): FlowDocument {
  return {
    format: 'flowbench.flow/1',
    name: run.name,
    inputs: [],
    outputs: [],
    nodes: [
      { id: 'data', kind: run.dataKind, params: {}, position: { x: 0, y: 0 } },
      { id: 'model', kind: run.model.kind, params: run.model.params, position: { x: 0, y: 200 } },
      {
        id: 'train',
        kind: 'train.classifier',
        params: {
          steps,
          batch_size: run.batch,
          lr: run.lr,
          momentum: run.momentum,
          log_every: 10,
          seed: run.seed,
          backend: 'wasm',
        },
        position: { x: 300, y: 100 },
      },
    ],
    edges: [
      { from: 'data.dataset', to: 'train.dataset' },
      { from: 'model.model', to: 'train.model' },
    ],
  };
}

const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * One run of the train node through the engine; ms per step over the
 * `timedSteps` after the `warmSteps`. The node reports progress after every
 * unit, so the window runs from the end of unit `warmSteps` to the end of
 * unit `warmSteps + timedSteps`, and one more unit runs after it: the loop's
 * end (reading the weights back, releasing the session) is not inside the
 * window, just as the bare loop's release is not.
 */
export async function runnerStepMs(options: {
  readonly run: ClassifierRun;
  readonly catalog: Catalog;
  readonly runtime: TensorRuntime;
  readonly warmSteps: number;
  readonly timedSteps: number;
}): Promise<number> {
  const { warmSteps, timedSteps } = options;
  const stamps: number[] = [];
  const errors: string[] = [];
  const result = await executeFlow({
    flow: classifierFlow(options.run, warmSteps + timedSteps + 1),
    catalog: options.catalog,
    inputs: {},
    runtime: options.runtime,
    producers: inProcessProducers,
    events: quietEvents({
      nodeFinished: (node, outcome) => {
        if (outcome.status !== 'ok') errors.push(`${node}: ${outcome.error}`);
      },
      // Called once after every unit: the step's end, as the node sees it.
      progress: () => void stamps.push(performance.now()),
    }),
    signal: new AbortController().signal,
    now: Date.now,
    yieldNow,
  });
  if (result.status !== 'ok')
    throw new Error(`train run ended ${result.status}: ${errors.join('; ')}`);
  return (stamps[warmSteps + timedSteps - 1]! - stamps[warmSteps - 1]!) / timedSteps;
}
