/** Flowbench's built-in node kinds. One kind per file; this list is the catalog. */
import { createCatalog } from '../catalog/catalog';
import type { NodeKind } from '../catalog/kind';
import { dataSplit } from './data-split';
import { dataSynthetic } from './data-synthetic';
import { evalAccuracy } from './eval-accuracy';
import { modelMlp } from './model-mlp';
import { trainClassifier } from './train-classifier';

export const builtinKinds: readonly NodeKind[] = [
  dataSynthetic,
  dataSplit,
  modelMlp,
  trainClassifier,
  evalAccuracy,
];

export const builtinCatalog = createCatalog(builtinKinds);
