/**
 * The model node's file, as the engine read it: producer, IR version and
 * opsets, inputs and outputs with their types and shapes (symbolic
 * dims by name), and how many nodes of each operator the graph has. The
 * page never decodes the model: it asks the engine (`describeModel`), so a
 * file that is not a model says so here, before a run. Under the inputs,
 * how each is fed (`ModelFeeds`, which writes the node's `inputs` param),
 * and whether it runs over a sequence (`ModelSequence`).
 */
import { useQuery } from '@tanstack/react-query';
import { planSequence } from '../../core/onnx/sequence';
import {
  describeValueInfo,
  type OnnxSignature,
  type OnnxValueInfo,
} from '../../core/onnx/signature';
import { useEngine } from '../engine/EngineContext';
import { ModelFeeds } from './ModelFeeds';
import type { TensorFiles, WiredPorts } from './model-feeds';
import { ModelSequence } from './ModelSequence';
import './panels.css';

function Values({ label, values }: { label: string; values: readonly OnnxValueInfo[] }) {
  return (
    <>
      <small>{label.replace('Model ', '').replace(/^./, (c) => c.toUpperCase())}</small>
      <ul aria-label={label} className="fb-signature">
        {values.map((value) => (
          <li key={value.name}>
            <code>{value.name}</code> {describeValueInfo(value)}
          </li>
        ))}
      </ul>
    </>
  );
}

/** Over a sequence whose plan fits: the input fed frame by frame and one frame's dims. */
function sequenceFrame(
  signature: OnnxSignature,
  params: { sequence: string; frame: number; carry: string },
): { input: string; dims: readonly number[] } | null {
  if (params.sequence === '') return null;
  try {
    const plan = planSequence(signature, { ...params, input: params.sequence });
    return { input: plan.input, dims: plan.frameDims };
  } catch {
    return null; // the sequence section says why
  }
}

/** Output types the engine reads as they are; any other is shown in its own type. */
const ENGINE_TYPES = new Set(['float32', 'int32']);

export function ModelCard({
  digest,
  inputs,
  onSetInputs,
  sequence,
  onSetSequence,
  wired,
  tensorFiles,
}: {
  digest: string;
  /** The node's `inputs` param: how each model input is fed. */
  inputs: string;
  onSetInputs: (value: string) => void;
  /** The node's `sequence`, `frame` and `carry` params. */
  sequence: { sequence: string; frame: number; carry: string };
  onSetSequence: (value: string) => void;
  /** Which of the node's ports have an edge. */
  wired?: WiredPorts;
  /** The NumPy file behind each wired tensor port, where a `data.tensor` node feeds it. */
  tensorFiles?: TensorFiles;
}) {
  const engine = useEngine();
  const query = useQuery({
    queryKey: ['model-card', digest],
    queryFn: () => engine.call('describeModel', { digest }),
    staleTime: Infinity,
    retry: false,
  });
  if (query.isPending) return <p className="fb-muted">Reading the model…</p>;
  if (query.isError)
    return (
      <small className="fb-invalid" role="alert">
        {query.error.message}
      </small>
    );
  const card = query.data;
  const opsets = card.opsets
    .map(({ domain, version }) => `${domain === '' ? 'ai.onnx' : domain} ${version}`)
    .join(', ');
  return (
    <section className="fb-table" aria-label="Model card">
      <small>
        {card.producer || 'unknown producer'} · IR {card.irVersion} · opset {opsets || 'none'}
      </small>
      <Values label="Model inputs" values={card.inputs} />
      <ModelFeeds
        inputs={card.inputs}
        value={inputs}
        onChange={onSetInputs}
        frame={sequenceFrame(card, sequence)}
        sequence={sequence.sequence}
        wired={wired}
        tensorFiles={tensorFiles}
      />
      <ModelSequence signature={card} {...sequence} onSetSequence={onSetSequence} />
      <Values label="Model outputs" values={card.outputs} />
      {card.outputs.some((o) => !ENGINE_TYPES.has(o.type)) && (
        <p className="fb-muted" aria-label="Output types">
          Outputs of other types than float32 and int32 (
          {card.outputs
            .filter((o) => !ENGINE_TYPES.has(o.type))
            .map((o) => `${o.name} ${o.type}`)
            .join(', ')}
          ) are shown in their own type: int64 and uint64 as whole numbers (their digits beyond
          ±2^53, which cannot be charted), bool as true/false, float16, float64 and the smaller
          integers as numbers.
        </p>
      )}
      <p className="fb-muted" aria-label="Model operators">
        {card.nodeCount} nodes: {card.operators.map((o) => `${o.op} ×${o.count}`).join(', ')}
      </p>
    </section>
  );
}
