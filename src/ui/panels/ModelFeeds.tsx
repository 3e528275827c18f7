/**
 * How each of a model's inputs is fed, picked in the inspector: the node's
 * dataset (its rows) or a constant typed as JSON — one number fills the
 * input's shape, an array is taken as it is. The choices write the node's
 * `inputs` param (so they are in the run record and the cache key); the
 * engine checks types and shapes when the node runs; what can be told
 * before the rows are read is said here already. A constant being typed
 * is written only once it reads as one, so a half-typed array never
 * reaches the flow.
 */
import { useState } from 'react';
import {
  effectiveInputMap,
  feedsProblem,
  formatInputMap,
  parseInputMap,
  type InputMap,
  type InputSource,
} from '../../core/onnx/feeds';
import { frameStandIn } from '../../core/onnx/sequence';
import { describeValueInfo, type OnnxValueInfo } from '../../core/onnx/signature';
import './panels.css';

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
  onChange,
}: {
  input: OnnxValueInfo;
  value: InputSource;
  onChange: (value: InputSource) => void;
}) {
  const [text, setText] = useState(JSON.stringify(value));
  const read = readConstant(text);
  return (
    <>
      <input
        type="text"
        aria-label={`Constant for ${input.name}`}
        value={text}
        spellCheck={false}
        onChange={(e) => {
          const next = e.currentTarget.value;
          setText(next);
          const parsed = readConstant(next);
          if ('value' in parsed) onChange(parsed.value);
        }}
      />
      {'problem' in read && <small className="fb-invalid">{read.problem}</small>}
    </>
  );
}

export function ModelFeeds({
  inputs,
  value,
  onChange,
  frame,
}: {
  inputs: readonly OnnxValueInfo[];
  /** The node's `inputs` param. */
  value: string;
  onChange: (value: string) => void;
  /** Over a sequence: the input fed frame by frame and one frame's dims (the others are checked at them). */
  frame?: { input: string; dims: readonly number[] } | null;
}) {
  let given: InputMap = {};
  let problem: string | null = null;
  try {
    given = parseInputMap(value);
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
  }
  const map = effectiveInputMap(inputs, given);
  // What can be told before the rows are read; the node checks the dims they fix.
  problem ??= feedsProblem(
    inputs,
    frame ? { ...given, [frame.input]: frameStandIn(frame.dims) } : given,
  );
  const set = (name: string, source: InputSource | null) => {
    const others = Object.entries(map).filter(([other]) => other !== name);
    const next = source === null ? others : [...others, [name, source] as const];
    onChange(formatInputMap(Object.fromEntries(next)));
  };
  return (
    <section aria-label="Model input feeds">
      <small>Feeds (a constant takes the input’s type; one number fills its shape)</small>
      <ul className="fb-signature">
        {inputs.map((input) => {
          const source = map[input.name];
          const choice = source === undefined ? '' : source === 'dataset' ? 'dataset' : 'constant';
          return (
            <li key={input.name}>
              <code>{input.name}</code> {describeValueInfo(input)}{' '}
              <select
                aria-label={`Feed ${input.name}`}
                value={choice}
                onChange={(e) => {
                  const picked = e.currentTarget.value;
                  set(
                    input.name,
                    picked === 'dataset'
                      ? 'dataset'
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
                <option value="constant">a constant</option>
              </select>
              {source !== undefined && source !== 'dataset' && (
                <ConstantField
                  key={`${input.name}:${choice}`}
                  input={input}
                  value={source}
                  onChange={(v) => set(input.name, v)}
                />
              )}
            </li>
          );
        })}
      </ul>
      {problem !== null && (
        <small className="fb-invalid" aria-label="Feed problem">
          {problem}
        </small>
      )}
    </section>
  );
}
