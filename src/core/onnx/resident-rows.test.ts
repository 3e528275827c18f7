/**
 * A train step built with `residentRows` gathers its batch from the whole
 * dataset by row index: fed the dataset and a batch's rows, it gives the
 * loss and updated weights the plain step gives fed that batch itself, and
 * the plain step is unchanged by the option's existence.
 */
import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import { createRandom } from '../random.ts';
import { buildMlpTrainStep, initMlpWeights, type MlpSpec } from './mlp.ts';
import { buildCnnTrainStep } from './cnn-train.ts';
import { get, initialCarried, open, stepFeeds, tensor } from './testing.ts';

const spec: MlpSpec = { inputSize: 5, hidden: [7], outputSize: 3, activation: 'relu' };

describe('a train step that gathers its rows', () => {
  it('trains as the plain step fed the gathered batch, for every optimizer', async () => {
    const random = createRandom(4);
    const rowsInDataset = 20;
    const features = Float32Array.from({ length: rowsInDataset * 5 }, () => random() * 2 - 1);
    const targets = new Float32Array(rowsInDataset * 3);
    for (let r = 0; r < rowsInDataset; r++) targets[r * 3 + (r % 3)] = 1;
    const rows = Int32Array.of(17, 2, 9, 9, 0, 11);
    const x = new Float32Array(rows.length * 5);
    const y = new Float32Array(rows.length * 3);
    rows.forEach((row, i) => {
      x.set(features.subarray(row * 5, row * 5 + 5), i * 5);
      y.set(targets.subarray(row * 3, row * 3 + 3), i * 3);
    });
    for (const optimizer of ['sgd', 'momentum', 'adam'] as const) {
      const options = { optimizer, loss: 'softmax_cross_entropy' } as const;
      const plain = buildMlpTrainStep(spec, options);
      const gathering = buildMlpTrainStep(spec, { ...options, residentRows: true });
      const resident = gathering.inputs.resident!;
      const carried = initialCarried(plain, initMlpWeights(spec, createRandom(1)));
      const fromBatch = await (
        await open(plain.model)
      )({
        ...stepFeeds(plain, carried, 0.1, 1),
        [plain.inputs.x]: tensor(x, [rows.length, 5]),
        [plain.inputs.y]: tensor(y, [rows.length, 3]),
      });
      const fromRows = await (
        await open(gathering.model)
      )({
        ...stepFeeds(gathering, carried, 0.1, 1),
        [resident.x]: tensor(features, [rowsInDataset, 5]),
        [resident.y]: tensor(targets, [rowsInDataset, 3]),
        [resident.rows]: new ort.Tensor('int32', rows, [rows.length]),
      });
      expect(get(fromRows, plain.outputs.loss)[0], optimizer).toBeCloseTo(
        get(fromBatch, plain.outputs.loss)[0]!,
        6,
      );
      for (const c of plain.carried)
        Array.from(get(fromRows, c.output)).forEach((v, i) =>
          expect(v, `${optimizer} ${c.output}[${i}]`).toBeCloseTo(get(fromBatch, c.output)[i]!, 6),
        );
    }
  });

  it('leaves the plain step as it was: inputs x and y, no dataset, no rows', () => {
    for (const step of [
      buildMlpTrainStep(spec, { optimizer: 'momentum', loss: 'mse' }),
      buildCnnTrainStep(
        { channels: 1, height: 8, width: 8, filters: 2, kernel: 3, blocks: 1, outputSize: 2 },
        { optimizer: 'momentum', loss: 'mse' },
      ),
    ]) {
      expect(step.inputs.resident).toBeUndefined();
      expect(step.graph.inputs.slice(0, 2).map((i) => i.name)).toEqual(['x', 'y']);
      expect(step.graph.inputs.some((i) => i.name === 'rows')).toBe(false);
    }
  });
});
