/** Flowbench's built-in node kinds. One kind per file; this list is the catalog. */
import { createCatalog } from '../catalog/catalog';
import type { NodeKind } from '../catalog/kind';
import { dataAudio } from './data-audio';
import { dataEngine } from './data-engine';
import { dataSample } from './data-sample';
import { dataSplit } from './data-split';
import { dataSynthetic } from './data-synthetic';
import { dataImages } from './data-images';
import { dataTable } from './data-table';
import { dataTensor } from './data-tensor';
import { envCartPole } from './env-cartpole';
import { envPendulum } from './env-pendulum';
import { evalAccuracy } from './eval-accuracy';
import { evalWorldModel } from './eval-world-model';
import { modelAttention } from './model-attention';
import { modelCnn } from './model-cnn';
import { modelConv1d } from './model-conv1d';
import { modelMlp } from './model-mlp';
import { modelOnnx } from './model-onnx';
import { trainClassifier } from './train-classifier';
import { trainRegressor } from './train-regressor';
import { evalRegression } from './eval-regression';
import { trainWorldModel } from './train-world-model';

export const builtinKinds: readonly NodeKind[] = [
  dataSynthetic,
  dataTable,
  dataImages,
  dataAudio,
  dataTensor,
  dataSplit,
  modelMlp,
  modelCnn,
  modelConv1d,
  modelAttention,
  trainClassifier,
  evalAccuracy,
  trainRegressor,
  evalRegression,
  modelOnnx,
  envPendulum,
  envCartPole,
  dataEngine,
  dataSample,
  trainWorldModel,
  evalWorldModel,
];

export const builtinCatalog = createCatalog(builtinKinds);
