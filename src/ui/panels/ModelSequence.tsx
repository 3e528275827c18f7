/**
 * Running a model over a sequence, picked in the inspector: which float32
 * input takes the sequence frame by frame (its feed above is cut into
 * frames), and the plan the engine will run — frame shape, carried pairs
 * (declared in param `carry`, or proposed from names and shapes), the
 * output charted per frame — or why it cannot. The pick writes the node's
 * `sequence` param; `frame` and `carry` are ordinary params beside it.
 */
import { formatCarry, planSequence } from '../../core/onnx/sequence';
import type { OnnxSignature } from '../../core/onnx/signature';
import './panels.css';

/** The plan in words, or the problem with it. */
function describePlan(
  signature: OnnxSignature,
  params: { input: string; frame: number; carry: string },
): { plan: string } | { problem: string } {
  try {
    const plan = planSequence(signature, params);
    const carried = formatCarry(plan.carried) || 'nothing';
    const how = params.carry.trim() === '' ? ' (proposed from names and shapes)' : '';
    return {
      plan:
        `Frames [${plan.frameDims.join('×')}] of ${plan.frame} samples; carries ${carried}${how}; ` +
        `charts ${plan.charted ?? 'no output'} per frame.`,
    };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

export function ModelSequence({
  signature,
  sequence,
  frame,
  carry,
  onSetSequence,
}: {
  signature: OnnxSignature;
  /** The node's `sequence`, `frame` and `carry` params. */
  sequence: string;
  frame: number;
  carry: string;
  onSetSequence: (value: string) => void;
}) {
  const described =
    sequence === '' ? null : describePlan(signature, { input: sequence, frame, carry });
  return (
    <section aria-label="Model sequence">
      <label>
        <small>Run over a sequence</small>{' '}
        <select
          aria-label="Sequence input"
          value={sequence}
          onChange={(e) => onSetSequence(e.currentTarget.value)}
        >
          <option value="">no: one run over the feeds</option>
          {signature.inputs
            .filter((i) => i.type === 'float32')
            .map((i) => (
              <option key={i.name} value={i.name}>
                frame by frame into {i.name}
              </option>
            ))}
        </select>
      </label>
      {described !== null && 'plan' in described && (
        <p className="fb-muted" aria-label="Sequence plan">
          {described.plan}
        </p>
      )}
      {described !== null && 'problem' in described && (
        <small className="fb-invalid" aria-label="Sequence problem">
          {described.problem}
        </small>
      )}
    </section>
  );
}
