/**
 * `train.classifier`: trains a model's weights on a classification dataset
 * with softmax cross-entropy (see mlp-training.ts for how the training runs).
 */
import { defineNodeKind } from '../catalog/kind';
import { FlowbenchError } from '../errors';
import { trainingParams, trainingPorts, trainMlp } from './mlp-training';

export const trainClassifier = defineNodeKind({
  kind: 'train.classifier',
  // 3: the trained model keeps its optimizer state, and a trained one fed in resumes it.
  // 4: that state's denormal values are made zero each step (mlp-optim.ts).
  version: 4,
  cache: 'backend',
  title: 'Train classifier',
  category: 'train',
  description:
    'Trains a model with mini-batch SGD, SGD with momentum or Adam on softmax cross-entropy, as a program over a resident train-step model. The loss streams out every few steps; with validation rows wired, their loss is reported at the end.',
  params: trainingParams,
  ...trainingPorts,
  execute: trainMlp(
    () => 'softmax_cross_entropy',
    (data) => {
      if (data.task === 'regression')
        throw new FlowbenchError('node-input', {
          problem: `input 'dataset' has a regression target (${data.name}): train it with train.regressor, or set the table's task to classification`,
        });
    },
  ),
});
