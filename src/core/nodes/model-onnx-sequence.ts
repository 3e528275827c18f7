/**
 * `model.onnx` over a sequence: the plan checked (frame, carried pairs,
 * every other input's constant at a batch of one frame), then the model
 * resident for a loop of one unit per frame (`sequenceLoop`), each frame's
 * charted value streamed on the `frames` port as the loop emits it, like a
 * trainer's loss. Apart from the node's file because a one-shot inference
 * and a loop share only the model's reading.
 */
import { arrayKinds } from '../arrays/dtypes';
import type { NodeContext, NodeFile } from '../catalog/kind';
import type { Dataset, TensorValue } from '../catalog/values';
import { FlowbenchError } from '../errors';
import {
  describeTensorPort,
  isTensorPort,
  planFeeds,
  type InputMap,
  type TensorPort,
} from '../onnx/feeds';
import { float32Values } from '../onnx/tensor-feed';
import { formatCarry, frameCount, frameStandIn, planSequence, sequenceOf } from '../onnx/sequence';
import type { OnnxSignature } from '../onnx/signature';
import {
  loopProgress,
  modelId,
  nodeRequest,
  sequenceLoop,
  sequenceSession,
  type ProgramValue,
} from '../programs';
import type { Backend, NodeBackend, Tensor, TypedConstant } from '../runtime/tensor-runtime';

/** The loop's name in the program (its metric is `<LOOP>.frame`, its outputs `<LOOP>.<output>`). */
const LOOP = 'frames';

/** What the sequence run needs of the node's params. */
export interface SequenceParams {
  readonly sequence: string;
  readonly frame: number;
  readonly carry: string;
  readonly backend: NodeBackend;
}

function constantBytes(c: TypedConstant): number {
  return arrayKinds[c.type].BYTES_PER_ELEMENT * c.values.length;
}

/** A sequence's samples as float32, or a `model-feed` error naming the first that float32 cannot hold. */
function sequenceValues(input: string, tensor: TensorValue): Float32Array {
  const converted = float32Values(tensor);
  if ('problem' in converted)
    throw new FlowbenchError('model-feed', {
      input,
      problem: `is the sequence, read as float32; ${converted.problem}`,
    });
  return converted.values;
}

/**
 * Runs the model over the sequence fed to input `params.sequence`; returns
 * the last frame's outputs by name (the carried ones as they would be fed next).
 */
export async function runOverSequence(
  ctx: NodeContext<SequenceParams>,
  model: {
    file: NodeFile;
    signature: OnnxSignature;
    map: InputMap;
    data: Dataset | null;
    /** The `samples` port's sequence, which takes the place of the input's feed in `map`. */
    samples: TensorValue | null;
    /** The tensor ports' arrays: the sequence when `map` feeds it one, else other inputs' feeds. */
    tensors: Partial<Record<TensorPort, TensorValue>>;
  },
): Promise<Record<string, Tensor>> {
  const { file, signature, map, data, samples, tensors } = model;
  const { backend } = ctx.params;
  const plan = planSequence(signature, {
    input: ctx.params.sequence,
    frame: ctx.params.frame,
    carry: ctx.params.carry,
  });
  const source = map[plan.input];
  let sequence: Float32Array;
  let from: string;
  if (samples !== null) {
    sequence = sequenceValues(plan.input, samples);
    from = `the samples of ${samples.name}${samples.sampleRate === undefined ? '' : ` at ${samples.sampleRate} Hz`}`;
  } else if (source === 'dataset') {
    if (data === null)
      throw new FlowbenchError('model-feed', {
        input: plan.input,
        problem: 'is the sequence, mapped to the dataset, but no dataset is wired to the node',
      });
    sequence = data.features;
    from = `the dataset's features (${data.count} rows × ${data.featureSize})`;
  } else if (isTensorPort(source)) {
    const tensor = tensors[source];
    if (tensor === undefined)
      throw new FlowbenchError('model-feed', {
        input: plan.input,
        problem: `is the sequence, mapped to ${describeTensorPort(source)}, but no tensor is wired to the node's '${source}' port`,
      });
    sequence = sequenceValues(plan.input, tensor);
    from = `the tensor ${tensor.name} [${tensor.dims.join('×')}] read row-major`;
  } else if (Array.isArray(source)) {
    sequence = sequenceOf(plan.input, source);
    from = 'its constant';
  } else
    throw new FlowbenchError('model-feed', {
      input: plan.input,
      problem: `is the sequence: wire samples to the node's 'samples' port, or map it to the dataset, a tensor or an array in param 'inputs'`,
    });
  const frames = frameCount(sequence.length, plan.frame);
  if (frames === 0)
    throw new FlowbenchError('model-feed', {
      input: plan.input,
      problem: `is the sequence; ${from} holds ${sequence.length} samples, less than one frame of ${plan.frame}`,
    });
  // Every other input's feed, planned at the frame's shape (a `batch` of 1).
  const others = planFeeds(
    signature.inputs,
    { ...map, [plan.input]: frameStandIn(plan.frameDims) },
    null,
    tensors,
  );
  const { [plan.input]: _frame, ...constants } = others.constants;
  const feeds: Record<string, TypedConstant> = { ...constants };
  // A float32 input a tensor feeds: the same array every frame (a carried input's first value).
  for (const [input, port] of Object.entries(others.tensors)) {
    const tensor = tensors[port]!; // planned from it
    feeds[input] = {
      location: 'constant',
      type: 'float32',
      dims: [...tensor.dims],
      values: Array.from(tensor.data as Float32Array), // a float32 tensor (see planFeeds)
    };
  }
  const carriedBytes = plan.carried.reduce((sum, p) => sum + constantBytes(feeds[p.input]!), 0);
  const otherBytes = Object.values(feeds).reduce((sum, c) => sum + constantBytes(c), 0);
  const left = sequence.length - frames * plan.frame;
  ctx.log(
    `sequence ${plan.input} ← ${from}: ${frames} frames of ${plan.frame} samples` +
      (left > 0 ? ` (the last ${left} left out)` : '') +
      `, frame [${plan.frameDims.join('×')}]; carried ${formatCarry(plan.carried) || 'none'}` +
      `; charted ${plan.charted ?? 'none'}`,
  );
  const id = modelId(`${ctx.node}/model`);
  const seen: { ran: Backend | null } = { ran: null };
  const report = await ctx.programs.run({
    node: ctx.node,
    backend,
    models: [
      {
        id,
        label: file.name,
        model: file.bytes,
        backend,
        session: sequenceSession(plan),
        residentBytes: file.bytes.byteLength,
      },
    ],
    requests: [
      nodeRequest(
        ctx.node,
        sequenceLoop({
          name: LOOP,
          model: id,
          plan,
          sequence,
          feeds,
          residentBytes: carriedBytes,
          // The frame, the state in and out, the other constants.
          peakBytes: 4 * plan.frame + 2 * carriedBytes + otherBytes,
          onStart: (backend) => (seen.ran = backend),
        }),
        ctx.signal,
      ),
    ],
    onTick: loopProgress(LOOP, (done, total, perSecond) =>
      ctx.progress(done, total, perSecond ?? undefined),
    ),
    onEmit(_request, metric, value) {
      if (metric === `${LOOP}.frame`) ctx.emit('frames', value);
    },
  });
  const result = report.results[0]!;
  if (result.status !== 'ok')
    throw new Error(result.error?.message ?? `the sequence run ended ${result.status}`);
  ctx.log(`ran on ${seen.ran ?? 'an unknown backend'}`);
  const outputs: Record<string, Tensor> = {};
  for (const o of signature.outputs) {
    const value: ProgramValue | undefined = result.outputs[`${LOOP}.${o.name}`];
    if (value !== undefined && typeof value !== 'number') outputs[o.name] = value;
  }
  return outputs;
}
