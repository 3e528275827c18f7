/**
 * The attention model's train step (model.attention on table rows of 16
 * features: width 32, a feed-forward of 64, 4 classes), in Node: the
 * runner against a bare loop, and onnxruntime-web against onnxruntime-node
 * (bench/lib/block-train-bench.ts). The runner row is held to the CNN
 * row's target: the runner's overhead should not depend on the network.
 */
import type { Dataset } from '../../src/core/catalog/values';
import type { PooledAttentionSpec } from '../../src/core/onnx/pooled-attention';
import { modelAttention } from '../../src/core/nodes/model-attention';
import { createRandom } from '../../src/core/random';
import { blockTrainRows } from '../lib/block-train-bench';
import { ratioAtLeast, type BenchRow } from '../lib/rows';

const SPEC: PooledAttentionSpec & { architecture: 'pooled-attention' } = {
  architecture: 'pooled-attention',
  channels: 1,
  positions: 16,
  width: 32,
  feedForward: 64,
  outputSize: 4,
};
const ROWS = 1024;

/** Rows of standard-normal-ish features (already standardised), 4 classes in turn. */
function rows(): Dataset {
  const random = createRandom(1);
  const features = Float32Array.from({ length: ROWS * SPEC.positions }, () => 2 * random() - 1);
  return {
    kind: 'dataset',
    name: 'bench-rows',
    features,
    labels: Int32Array.from({ length: ROWS }, (_, i) => i % SPEC.outputSize),
    count: ROWS,
    featureSize: SPEC.positions,
    classes: SPEC.outputSize,
  };
}

export function run(): Promise<BenchRow[]> {
  return blockTrainRows({
    label: 'Attention',
    suite: 'attention',
    block: SPEC,
    model: modelAttention,
    modelParams: { width: SPEC.width, feed_forward: SPEC.feedForward },
    dataset: rows(),
    note: `Attention over ${SPEC.positions} columns → embed ${SPEC.width} → attention + feed-forward ${SPEC.feedForward} → mean → ${SPEC.outputSize}`,
    runnerTarget: ratioAtLeast(0.95),
  });
}
