/** The examples gallery: flows that ship with Flowbench. */
import type { FlowDocument } from '../core/flow/document';
import { flowDocumentSchema } from '../core/flow/document';
import pendulumWorldModel from '../examples/pendulum-world-model.flow.json';
import spiralsMlp from '../examples/spirals-mlp.flow.json';

export const examples: readonly FlowDocument[] = [
  flowDocumentSchema.parse(spiralsMlp),
  flowDocumentSchema.parse(pendulumWorldModel),
];

/** The flow a first visit opens with. */
export function defaultExample(): FlowDocument {
  return structuredClone(examples[0]!);
}
