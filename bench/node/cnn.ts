/**
 * The CNN train step (model.cnn: 1×28×28 images, two blocks of 8 3×3
 * filters, 10 classes), in Node: the runner against a bare loop, and
 * onnxruntime-web against onnxruntime-node (bench/lib/block-train-bench.ts).
 */
import type { Dataset } from '../../src/core/catalog/values';
import type { CnnSpec } from '../../src/core/onnx/cnn';
import { modelCnn } from '../../src/core/nodes/model-cnn';
import { createRandom } from '../../src/core/random';
import { blockTrainRows } from '../lib/block-train-bench';
import { ratioAtLeast, type BenchRow } from '../lib/rows';

const SPEC: CnnSpec & { architecture: 'cnn' } = {
  architecture: 'cnn',
  channels: 1,
  height: 28,
  width: 28,
  filters: 8,
  kernel: 3,
  blocks: 2,
  outputSize: 10,
};
const ROW_SHAPE = [SPEC.channels, SPEC.height, SPEC.width];
const FEATURES = SPEC.channels * SPEC.height * SPEC.width;
const ROWS = 1024;

function images(): Dataset {
  const random = createRandom(1);
  const features = new Float32Array(ROWS * FEATURES);
  for (let i = 0; i < features.length; i++) features[i] = random();
  return {
    kind: 'dataset',
    name: 'bench-images',
    features,
    labels: Int32Array.from({ length: ROWS }, (_, i) => i % SPEC.outputSize),
    count: ROWS,
    featureSize: FEATURES,
    classes: SPEC.outputSize,
    shape: ROW_SHAPE,
  };
}

export function run(): Promise<BenchRow[]> {
  return blockTrainRows({
    label: 'CNN',
    suite: 'cnn',
    block: SPEC,
    model: modelCnn,
    modelParams: { channels: SPEC.filters, kernel: SPEC.kernel, blocks: SPEC.blocks },
    dataset: images(),
    note: `CNN ${ROW_SHAPE.join('×')} → ${SPEC.blocks} × (conv ${SPEC.filters}×${SPEC.kernel}×${SPEC.kernel} → ReLU → 2×2 max-pool) → ${SPEC.outputSize}`,
    runnerTarget: ratioAtLeast(0.95),
  });
}
