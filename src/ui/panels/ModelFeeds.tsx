/**
 * How each of a model's inputs is fed, picked in the inspector: the node's
 * dataset (its rows), the array on one of its tensor ports (`tensor`,
 * `tensor2` … — one input each), or a constant typed as JSON in the
 * input's own type (any numeric type or bool, what it may be said beside the
 * field) — one number fills the input's shape, an array is taken as it is;
 * the sequence input shows the `samples` port when that feeds it
 * (`model-feeds.ts`). The choices write the node's
 * `inputs` param (so they are in the run record and the cache key); the
 * engine checks types and shapes when the node runs; what can be told
 * before the rows are read is said here already. A constant being typed
 * is written only once it reads as one, so a half-typed array never
 * reaches the flow.
 */
import { useId, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
  formatInputMap,
  isTensorPort,
  tensorPorts,
  tensorShapeProblem,
  type InputSource,
  type TensorPort,
} from '../../core/onnx/feeds';
import { describeValueInfo, type OnnxValueInfo } from '../../core/onnx/signature';
import { useEngine } from '../engine/EngineContext';
import { feedsView, type TensorFile, type TensorFiles, type WiredPorts } from './model-feeds';
import './panels.css';

/**
 * What the array on a tensor port is (its file, element type and shape), read
 * by the engine as the run will read it, and what of its shape does not fit
 * the input, before a run. Its values (whether each fits the input's type) are
 * checked when the node runs.
 */
function TensorNote({
  input,
  port,
  file,
}: {
  input: OnnxValueInfo;
  port: TensorPort;
  file: TensorFile;
}) {
  const engine = useEngine();
  const query = useQuery({
    queryKey: ['array-card', file.digest, file.array],
    queryFn: () => engine.call('describeArray', file),
    staleTime: Infinity,
    retry: false,
  });
  if (query.isPending) return null;
  if (query.isError)
    return (
      <small className="fb-invalid" role="alert">
        {query.error.message}
      </small>
    );
  const { name, dtype, dims } = query.data;
  const misfit = tensorShapeProblem(input, dims, `the tensor ${name}`);
  return (
    <>
      {' '}
      <small aria-label={`Tensor for ${input.name}`}>
        {port}: {name} {dtype} [{dims.join('×')}]
      </small>
      {misfit !== null && (
        <small className="fb-invalid" role="alert">
          {misfit}
        </small>
      )}
    </>
  );
}

/** A constant's text as JSON, or why it is not one. */
function readConstant(text: string): { value: InputSource } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: 'not JSON: type a number, true/false or an array like [[0, 1], [2, 3]]' };
  }
  if (typeof value === 'number' || typeof value === 'boolean' || Array.isArray(value))
    return { value: value as InputSource };
  return { problem: 'type a number, true/false or an array' };
}

function ConstantField({
  input,
  value,
  takes,
  onChange,
}: {
  input: OnnxValueInfo;
  value: InputSource;
  /** What the constant may be in the input's type, said beside it. */
  takes: string | undefined;
  onChange: (value: InputSource) => void;
}) {
  const [text, setText] = useState(JSON.stringify(value));
  const read = readConstant(text);
  const takesId = useId();
  return (
    <>
      <input
        type="text"
        aria-label={`Constant for ${input.name}`}
        aria-describedby={takes === undefined ? undefined : takesId}
        value={text}
        spellCheck={false}
        onChange={(e) => {
          const next = e.currentTarget.value;
          setText(next);
          const parsed = readConstant(next);
          if ('value' in parsed) onChange(parsed.value);
        }}
      />
      {takes !== undefined && <small id={takesId}>{takes}</small>}
      {'problem' in read && <small className="fb-invalid">{read.problem}</small>}
    </>
  );
}

export function ModelFeeds({
  inputs,
  value,
  onChange,
  frame,
  sequence,
  wired,
  tensorFiles,
}: {
  inputs: readonly OnnxValueInfo[];
  /** The node's `inputs` param. */
  value: string;
  onChange: (value: string) => void;
  /** Over a sequence: the input fed frame by frame and one frame's dims (the others are checked at them). */
  frame?: { input: string; dims: readonly number[] } | null;
  /** The node's `sequence` param: the input its `samples` port feeds, when wired. */
  sequence?: string;
  /** Which of the node's ports have an edge. */
  wired?: WiredPorts;
  /** The NumPy file behind each wired tensor port, where a `data.tensor` node feeds it. */
  tensorFiles?: TensorFiles;
}) {
  const { rows, map, problem } = feedsView(inputs, value, { wired, sequence, frame });
  const set = (name: string, source: InputSource | null) => {
    const others = Object.entries(map).filter(([other]) => other !== name);
    const next = source === null ? others : [...others, [name, source] as const];
    onChange(formatInputMap(Object.fromEntries(next)));
  };
  return (
    <section aria-label="Model input feeds">
      <small>Feeds (a constant takes the input’s type; one number fills its shape)</small>
      <ul className="fb-signature">
        {rows.map(({ input, choice, constant, takes }) => (
          <li key={input.name}>
            <code>{input.name}</code> {describeValueInfo(input)}{' '}
            <select
              aria-label={`Feed ${input.name}`}
              value={choice}
              disabled={choice === 'samples'}
              onChange={(e) => {
                const picked = e.currentTarget.value;
                set(
                  input.name,
                  picked === 'dataset' || isTensorPort(picked)
                    ? picked
                    : picked === 'constant'
                      ? input.type === 'bool'
                        ? false
                        : 0
                      : null,
                );
              }}
            >
              <option value="">not fed</option>
              <option value="dataset">the dataset’s rows</option>
              {tensorPorts.map((port) => (
                <option key={port} value={port}>
                  {port === 'tensor'
                    ? 'the tensor (port ‘tensor’)'
                    : `the tensor on port ‘${port}’`}
                </option>
              ))}
              <option value="constant">a constant</option>
              {choice === 'samples' && (
                <option value="samples">the sequence on port ‘samples’, frame by frame</option>
              )}
            </select>
            {isTensorPort(choice) && tensorFiles?.[choice] !== undefined && (
              <TensorNote input={input} port={choice} file={tensorFiles[choice]} />
            )}
            {constant !== undefined && (
              <ConstantField
                key={`${input.name}:${choice}`}
                input={input}
                value={constant}
                takes={takes}
                onChange={(v) => set(input.name, v)}
              />
            )}
          </li>
        ))}
      </ul>
      {problem !== null && (
        <small className="fb-invalid" aria-label="Feed problem">
          {problem}
        </small>
      )}
    </section>
  );
}
