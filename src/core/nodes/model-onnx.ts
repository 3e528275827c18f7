/**
 * `model.onnx`: inference with a model the person brings, as a `.onnx` file
 * picked in the inspector. The flow keeps the file's digest; the bytes are
 * read from the browser's store when the node runs, checked (is it ONNX, do
 * the dataset's rows fit its input), recorded as an artifact of the run, and
 * run as a one-step program over the model made resident for it.
 */
import { backendParam } from './backend-param';
import { defineNodeKind } from '../catalog/kind';
import { expectDataset, type Dataset } from '../catalog/values';
import { float32, isDeviceTensor, type Backend, type Tensor } from '../runtime/tensor-runtime';
import {
  describeValueInfo,
  readOnnxSignature,
  type OnnxSignature,
  type OnnxValueInfo,
} from '../onnx/signature';
import { component, formatBytes, modelId, requestId } from '../programs';
import { FlowbenchError, isFlowbenchError } from '../errors';

/** Checks that the dataset's features fit the model's one input; returns what to say if not. */
function mismatch(input: OnnxValueInfo, data: Dataset): string | null {
  const given = `float32 [${data.count}×${data.featureSize}]`;
  const wanted = describeValueInfo(input);
  const say = `the model's input '${input.name}' takes ${wanted}; the dataset gives ${given}`;
  if (input.type !== 'float32') return say;
  if (input.shape === null) return null;
  if (input.shape.length !== 2) return say;
  const [rows, features] = input.shape;
  if (typeof features === 'number' && features !== data.featureSize) return say;
  if (typeof rows === 'number' && rows !== data.count) return say;
  return null;
}

/** `logits: float32 [300×2] = [0.12, -0.4, 1.1, …]` */
function describeOutput(name: string, t: Tensor): string {
  const head = Array.from(t.data.subarray(0, 4), (v) => Number(v.toPrecision(4)));
  const more = t.data.length > head.length ? ', …' : '';
  return `${name}: ${t.type} [${t.dims.join('×')}] = [${head.join(', ')}${more}]`;
}

/** The share of rows whose largest score is at their label, when `t` is `[rows, classes]`. */
function accuracyOf(t: Tensor, data: Dataset): number | null {
  if (t.dims.length !== 2 || t.dims[0] !== data.count || t.dims[1] !== data.classes) return null;
  let correct = 0;
  for (let r = 0; r < data.count; r++) {
    let best = 0;
    for (let c = 1; c < data.classes; c++)
      if (t.data[r * data.classes + c]! > t.data[r * data.classes + best]!) best = c;
    if (best === data.labels[r]) correct++;
  }
  return correct / data.count;
}

export const modelOnnx = defineNodeKind({
  kind: 'model.onnx',
  version: 1,
  cache: 'backend',
  title: 'ONNX model',
  category: 'model',
  description:
    'Runs inference with an imported .onnx model on a dataset’s rows; reports each output, and the accuracy when the first output scores the dataset’s classes.',
  params: {
    file: {
      type: 'file',
      accept: '.onnx',
      default: '',
      description: 'The .onnx model file (picked in the inspector; the flow keeps its digest).',
    },
    backend: backendParam('Where inference runs'),
  },
  inputs: [
    {
      name: 'dataset',
      type: 'dataset',
      description: 'Rows fed to the model’s one input as float32 [rows × features].',
    },
  ],
  outputs: [
    { name: 'outputs', type: 'text', description: 'Each output’s type, shape and first values.' },
    {
      name: 'accuracy',
      type: 'number',
      description:
        'Rows whose largest score is their label (when the first output is [rows × classes]).',
    },
  ],
  async execute(ctx) {
    const { file: digest, backend } = ctx.params;
    if (digest === '')
      throw new FlowbenchError('node-input', {
        problem: "no model file: pick a .onnx file for param 'file' in the inspector",
      });
    const data = expectDataset(ctx.inputs.dataset, 'dataset');
    const file = await ctx.readFile(digest);
    let signature: OnnxSignature;
    try {
      signature = readOnnxSignature(file.bytes);
    } catch (error) {
      if (isFlowbenchError(error, 'onnx-invalid'))
        throw new FlowbenchError('node-input', {
          problem: `model file '${file.name}': ${error.message}`,
        });
      throw error;
    }
    ctx.log(
      `model ${file.name} (${formatBytes(file.bytes.byteLength)}, ${file.digest.slice(0, 19)}…): ` +
        `inputs ${signature.inputs.map((i) => `${i.name} ${describeValueInfo(i)}`).join(', ')}; ` +
        `outputs ${signature.outputs.map((o) => `${o.name} ${describeValueInfo(o)}`).join(', ')}`,
    );
    const [input, ...others] = signature.inputs;
    if (input === undefined || others.length > 0)
      throw new FlowbenchError('node-input', {
        problem:
          `this node feeds one input (the dataset's rows); the model has ${signature.inputs.length}: ` +
          (signature.inputs.map((i) => `${i.name} ${describeValueInfo(i)}`).join(', ') || 'none'),
      });
    const problem = mismatch(input, data);
    if (problem !== null) throw new FlowbenchError('node-input', { problem });
    ctx.artifact(file.name, file.bytes, 'application/onnx');

    const id = modelId(`${ctx.node}/model`);
    const seen: { ran: Backend | null; outputs: Record<string, Tensor> } = {
      ran: null,
      outputs: {},
    };
    const report = await ctx.programs.run({
      node: ctx.node,
      backend,
      models: [
        { id, label: file.name, model: file.bytes, backend, residentBytes: file.bytes.byteLength },
      ],
      requests: [
        {
          id: requestId(ctx.node),
          signal: ctx.signal,
          program: {
            steps: [
              component({
                name: 'infer',
                models: [id],
                // Inputs and outputs alive at once: the fed rows and as much again per output.
                peakBytes: 4 * data.features.length * (1 + signature.outputs.length),
                async run(sctx) {
                  const session = sctx.session(id);
                  seen.ran = session.backend;
                  const out = await session.run({
                    [input.name]: float32(data.features, [data.count, data.featureSize]),
                  });
                  for (const o of signature.outputs) {
                    const t = out[o.name];
                    if (t !== undefined && !isDeviceTensor(t)) seen.outputs[o.name] = t;
                  }
                },
              }),
            ],
          },
        },
      ],
    });
    const result = report.results[0]!;
    if (result.status !== 'ok')
      throw new Error(result.error?.message ?? `inference ended ${result.status}`);
    const lines = signature.outputs.flatMap((o) => {
      const t = seen.outputs[o.name];
      return t === undefined ? [] : [describeOutput(o.name, t)];
    });
    for (const line of lines) ctx.log(line);
    ctx.log(`ran on ${seen.ran ?? 'an unknown backend'}`);
    ctx.emit('outputs', lines.join('\n'));
    const first = signature.outputs[0];
    const scores = first === undefined ? undefined : seen.outputs[first.name];
    const accuracy = scores === undefined ? null : accuracyOf(scores, data);
    if (accuracy !== null) ctx.emit('accuracy', accuracy);
  },
});
