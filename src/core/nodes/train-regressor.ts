/**
 * `train.regressor`: trains a model's weights to predict a real target, on
 * mean squared error or Huber loss (less pulled by a few far-off targets);
 * the training runs as train.classifier's does (mlp-training.ts). The
 * targets are used as they are: a target in the thousands trains best with
 * a smaller learning rate.
 */
import { defineNodeKind } from '../catalog/kind';
import { FlowbenchError } from '../errors';
import { trainingParams, trainingPorts, trainMlp } from './mlp-training';

const params = {
  ...trainingParams,
  loss: {
    type: 'enum',
    options: ['mse', 'huber'],
    default: 'mse',
    description: 'Mean squared error, or Huber loss (δ = 1: squared near the target, linear far).',
  },
  lr: { ...trainingParams.lr, default: 0.01 },
} as const;

export const trainRegressor = defineNodeKind({
  kind: 'train.regressor',
  // 3: the trained model keeps its optimizer state, and a trained one fed in resumes it.
  // 4: that state's denormal values are made zero each step (mlp-optim.ts).
  version: 4,
  cache: 'backend',
  title: 'Train regressor',
  category: 'train',
  description:
    'Trains a model to predict a real-valued target (a regression dataset) on MSE or Huber loss, as a program over a resident train-step model. The loss streams out every few steps; with validation rows wired, their loss is reported at the end.',
  params,
  ...trainingPorts,
  execute: trainMlp(
    (ctx) => (ctx.params as { loss?: 'mse' | 'huber' }).loss ?? 'mse',
    (data) => {
      if (data.task !== 'regression' || !data.targets)
        throw new FlowbenchError('node-input', {
          problem: `input 'dataset' is a classification dataset (${data.name}): train it with train.classifier, or set the table's task to regression`,
        });
    },
  ),
});
