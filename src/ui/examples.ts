/**
 * The examples gallery: flows that ship with Flowbench. An example may come
 * with run parameters already typed (the sweep example's list of learning
 * rates) and with files its params refer to by digest (the ONNX example's
 * model, the table example's CSV, the digits examples' images), which are stored in the browser when the example opens.
 */
import type { FlowDocument } from '../core/flow/document';
import { flowDocumentSchema } from '../core/flow/document';
import blobsSignModel from '../examples/blobs-sign.onnx?url';
import digitsZip from '../examples/digits.zip?url';
import digitsCnn from '../examples/digits-cnn.flow.json';
import digitsImages from '../examples/digits-images.flow.json';
import irisAttention from '../examples/iris-attention.flow.json';
import irisCsv from '../examples/iris.csv?url';
import irisTable from '../examples/iris-table.flow.json';
import onnxInference from '../examples/onnx-inference.flow.json';
import pendulumWorldModel from '../examples/pendulum-world-model.flow.json';
import spiralsLrSweep from '../examples/spirals-lr-sweep.flow.json';
import spiralsMlp from '../examples/spirals-mlp.flow.json';

export interface Example {
  doc: FlowDocument;
  /** What the `Run parameters` form holds when the example opens, by input name. */
  runParams?: Readonly<Record<string, string>>;
  /** Files the flow's file params name by digest, fetched and stored on open. */
  files?: readonly { name: string; url: string; mediaType: string }[];
}

export const examples: readonly Example[] = [
  { doc: flowDocumentSchema.parse(spiralsMlp) },
  { doc: flowDocumentSchema.parse(pendulumWorldModel) },
  { doc: flowDocumentSchema.parse(spiralsLrSweep), runParams: { lr: '0.03, 0.1, 0.3' } },
  {
    doc: flowDocumentSchema.parse(onnxInference),
    files: [{ name: 'blobs-sign.onnx', url: blobsSignModel, mediaType: 'application/onnx' }],
  },
  {
    doc: flowDocumentSchema.parse(irisTable),
    files: [{ name: 'iris.csv', url: irisCsv, mediaType: 'text/csv' }],
  },
  {
    doc: flowDocumentSchema.parse(irisAttention),
    files: [{ name: 'iris.csv', url: irisCsv, mediaType: 'text/csv' }],
  },
  {
    doc: flowDocumentSchema.parse(digitsImages),
    files: [{ name: 'digits.zip', url: digitsZip, mediaType: 'application/zip' }],
  },
  {
    doc: flowDocumentSchema.parse(digitsCnn),
    files: [{ name: 'digits.zip', url: digitsZip, mediaType: 'application/zip' }],
  },
];

/** The flow a first visit opens with. */
export function defaultExample(): FlowDocument {
  return structuredClone(examples[0]!.doc);
}
