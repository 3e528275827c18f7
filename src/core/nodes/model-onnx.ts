/**
 * `model.onnx`: inference with a model the person brings, as a `.onnx` file
 * picked in the inspector. The flow keeps the file's digest; the bytes are
 * read from the browser's store when the node runs, checked (is it ONNX, does
 * every input's feed — the dataset's rows, the array on one of the tensor
 * ports (`tensor`, `tensor2` … `tensor4`) or a constant, as param `inputs`
 * maps them — fit its type and shape), recorded
 * as an artifact of the run,
 * and run as a one-step program over the model made resident for it. The
 * map is a param, so it is in the run record, the digest and the cache key.
 *
 * With param `sequence` naming an input, the model runs over a sequence
 * instead: that input's feed (the `samples` port, the dataset's features,
 * a tensor or an array) is cut
 * into frames, the model runs once per frame as a program loop, the carried
 * outputs (`stateN→state`) feed the next frame, and the first other output
 * is emitted once per frame on the streaming `frames` port (see
 * `onnx/sequence.ts` and `programs/sequence-loop.ts`).
 */
import { backendParam } from './backend-param';
import { defineNodeKind } from '../catalog/kind';
import { dtypeOf } from '../arrays/dtypes';
import { expectDataset, expectTensor, type Dataset, type TensorValue } from '../catalog/values';
import {
  float32,
  isDeviceTensor,
  type Backend,
  type Feed,
  type Tensor,
} from '../runtime/tensor-runtime';
import {
  effectiveInputMap,
  isTensorPort,
  parseInputMap,
  planFeeds,
  tensorPorts,
  type FeedPlan,
  type InputSource,
  type TensorPort,
} from '../onnx/feeds';
import { describeValueInfo, readOnnxSignature, type OnnxSignature } from '../onnx/signature';
import { component, formatBytes, modelId, requestId } from '../programs';
import { runOverSequence } from './model-onnx-sequence';
import { describeOutput } from '../onnx/output-values';
import { FlowbenchError, isFlowbenchError } from '../errors';

/** The arrays on the node's tensor ports, by port (a port not wired is absent). */
export type WiredTensors = Partial<Record<TensorPort, TensorValue>>;

/** How one input is fed, for the node's log. */
function describeFeed(
  input: string,
  source: InputSource | undefined,
  plan: FeedPlan,
  tensors: WiredTensors,
): string {
  if (input === plan.dataset) return `${input} ← the dataset's rows`;
  const c = plan.constants[input];
  const tensor = isTensorPort(source) ? tensors[source] : undefined;
  if (tensor !== undefined) {
    const own = dtypeOf(tensor);
    const type = c?.type ?? 'float32';
    const port = source === 'tensor' ? '' : ` (port ${String(source)})`;
    return `${input} ← the tensor ${tensor.name}${port} ${own}${own === type ? '' : ` as ${type}`} [${tensor.dims.join('×')}]`;
  }
  return `${input} ← constant ${c?.type ?? '?'} [${c?.dims.join('×') ?? ''}]`;
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
  // 2: inputs mapped by param; outputs of other types than float32 and int32 read as float32.
  // 3: runs over a sequence, carrying state (params sequence, frame, carry).
  // 4: outputs of every type described in their own type (int64 exactly, bool as true/false).
  // 5: a sequence from the `samples` port.
  // 6: any input fed from the `tensor` port.
  // 7: a tensor fed in its own element type (an int64 array exactly), converted only where no value changes.
  // 8: tensor ports tensor2 … tensor4, each feeding one more input (flows with `tensor` alone run as before).
  version: 8,
  cache: 'backend',
  title: 'ONNX model',
  category: 'model',
  description:
    'Runs inference with an imported .onnx model; each model input is fed the dataset’s rows, the array on one of the tensor ports or a constant. Reports each output in its own type (int64, bool, float16 …), and the accuracy when the first output scores the dataset’s classes.',
  params: {
    file: {
      type: 'file',
      accept: '.onnx',
      default: '',
      description: 'The .onnx model file (picked in the inspector; the flow keeps its digest).',
    },
    inputs: {
      type: 'string',
      default: '',
      description:
        'How each model input is fed, as JSON: {"name": "dataset" | "tensor" | "tensor2" | "tensor3" | "tensor4" | a number | an array}; each tensor port feeds one input, in its own type where no value changes. A number fills the input’s shape; values take the model’s type, any numeric type or bool, within its range (int64 and uint64 within ±2^53). Empty: a one-input model takes the dataset’s rows.',
    },
    sequence: {
      type: 'string',
      default: '',
      description:
        'The model input fed a sequence frame by frame: the `samples` port, or its feed in `inputs` (the dataset — its features row after row —, a tensor or an array), cut into frames. Empty: one run over the whole feed.',
    },
    frame: {
      type: 'int',
      default: 0,
      min: 0,
      description:
        'Samples per frame of the sequence; 0: the sequence input’s last dimension, when the model fixes it.',
    },
    carry: {
      type: 'string',
      default: '',
      description:
        'Outputs fed back into inputs from frame to frame, as output→input pairs ("stateN→state, hn→h"); a carried input’s first value is its constant in `inputs`. Empty: proposed from matching names and shapes.',
    },
    backend: backendParam('Where inference runs'),
  },
  inputs: [
    {
      name: 'dataset',
      type: 'dataset',
      optional: true,
      description:
        'Rows fed as float32 [rows × features] to the model input mapped to the dataset.',
    },
    ...tensorPorts.map((port) => ({
      name: port,
      type: 'tensor' as const,
      optional: true,
      description: `An array (a data.tensor node’s .npy) fed, as it is shaped, to the model input mapped to "${port}", converted to its type where no value changes.`,
    })),
    {
      name: 'samples',
      type: 'tensor',
      optional: true,
      description:
        'A sequence (a data.audio node’s samples, a data.tensor’s array read row-major) fed frame by frame to the input param `sequence` names, in place of its feed in `inputs`.',
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
    {
      name: 'frames',
      type: 'number',
      stream: true,
      description:
        'Over a sequence: the first output that is not carried, one point per frame (its mean when it has several values).',
    },
  ],
  async execute(ctx) {
    const { file: digest, backend, inputs: inputMap } = ctx.params;
    if (digest === '')
      throw new FlowbenchError('node-input', {
        problem: "no model file: pick a .onnx file for param 'file' in the inspector",
      });
    const map = parseInputMap(inputMap);
    const data =
      ctx.inputs.dataset === undefined ? null : expectDataset(ctx.inputs.dataset, 'dataset');
    const tensors: WiredTensors = {};
    for (const port of tensorPorts)
      if (ctx.inputs[port] !== undefined) tensors[port] = expectTensor(ctx.inputs[port], port);
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
    if (ctx.params.sequence === '' && ctx.inputs.samples !== undefined)
      throw new FlowbenchError('node-input', {
        problem: `a sequence is wired to port 'samples': name the model input it feeds frame by frame in param 'sequence' (the model's inputs: ${signature.inputs.map((i) => i.name).join(', ')})`,
      });
    const mapped = effectiveInputMap(signature.inputs, map);
    for (const port of tensorPorts)
      if (tensors[port] !== undefined && !Object.values(mapped).includes(port))
        throw new FlowbenchError('node-input', {
          problem: `a tensor is wired to port '${port}': map the model input it feeds to "${port}" in param 'inputs' (the model's inputs: ${signature.inputs.map((i) => i.name).join(', ')})`,
        });
    if (ctx.params.sequence !== '') {
      const samples =
        ctx.inputs.samples === undefined ? null : expectTensor(ctx.inputs.samples, 'samples');
      const last = await runOverSequence(ctx, { file, signature, map, data, samples, tensors });
      ctx.artifact(file.name, file.bytes, 'application/onnx');
      const lines = signature.outputs.flatMap((o) => {
        const t = last[o.name];
        return t === undefined ? [] : [describeOutput(o, t)];
      });
      for (const line of lines) ctx.log(`after the last frame: ${line}`);
      ctx.emit('outputs', lines.join('\n'));
      return;
    }
    const plan = planFeeds(signature.inputs, map, data, tensors);
    ctx.log(
      'feeds ' +
        signature.inputs.map((i) => describeFeed(i.name, mapped[i.name], plan, tensors)).join(', '),
    );
    const feeds: Record<string, Feed> = { ...plan.constants };
    if (plan.dataset !== null && data !== null)
      feeds[plan.dataset] = float32(data.features, [data.count, data.featureSize]);
    let fedBytes = plan.dataset === null || data === null ? 0 : 4 * data.features.length;
    for (const [input, port] of Object.entries(plan.tensors)) {
      const tensor = tensors[port]!; // planned from it
      feeds[input] = float32(tensor.data as Float32Array, tensor.dims); // a float32 tensor (see planFeeds)
      fedBytes += 4 * tensor.data.length;
    }
    for (const c of Object.values(plan.constants)) fedBytes += 8 * c.values.length;
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
                // Inputs and outputs alive at once: the feeds and as much again per output.
                peakBytes: fedBytes * (1 + signature.outputs.length),
                async run(sctx) {
                  const session = sctx.session(id);
                  seen.ran = session.backend;
                  const out = await session.run(feeds);
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
      return t === undefined ? [] : [describeOutput(o, t)];
    });
    for (const line of lines) ctx.log(line);
    ctx.log(`ran on ${seen.ran ?? 'an unknown backend'}`);
    ctx.emit('outputs', lines.join('\n'));
    const first = signature.outputs[0];
    const scores = first === undefined ? undefined : seen.outputs[first.name];
    const accuracy =
      scores === undefined || data === null || plan.dataset === null
        ? null
        : accuracyOf(scores, data);
    if (accuracy !== null) ctx.emit('accuracy', accuracy);
  },
});
