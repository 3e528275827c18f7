/**
 * Run parameters: checked when a run is submitted, not by a run that fails a
 * minute later. A flow's inputs declare what a run may set; the run's seed
 * fills an input named `seed` unless the params set it, and an input the run
 * leaves unset takes its default (the seed input too, when no seed is given).
 *
 * A run records the values it used, not what was typed: every input's value
 * and the seed (`effectiveParams`). Two runs of the same experiment then
 * share a params digest whether a field was typed or left to its default.
 */
import type { NodeKind } from '../catalog/kind';
import { checkParam } from '../catalog/params';
import { isInputRef, type FlowDocument, type FlowInput, type FlowNode } from '../flow/document';
import type { FlowIssue } from '../flow/issues';

export type InputValue = number | string | boolean;
export type RunParams = Readonly<Record<string, InputValue>>;

function describeInput(input: FlowInput): string {
  const kind =
    input.type === 'int'
      ? 'an integer'
      : input.type === 'number'
        ? 'a number'
        : input.type === 'boolean'
          ? 'true or false'
          : 'text';
  if (input.min !== undefined && input.max !== undefined)
    return `${kind} from ${input.min} to ${input.max}`;
  if (input.min !== undefined) return `${kind} ≥ ${input.min}`;
  if (input.max !== undefined) return `${kind} ≤ ${input.max}`;
  return kind;
}

/** Check one value against a flow input; a message when it does not fit. */
export function checkInputValue(input: FlowInput, value: unknown): string | undefined {
  const fits =
    input.type === 'string'
      ? typeof value === 'string'
      : input.type === 'boolean'
        ? typeof value === 'boolean'
        : typeof value === 'number' &&
          Number.isFinite(value) &&
          (input.type === 'number' || Number.isInteger(value)) &&
          (input.min === undefined || value >= input.min) &&
          (input.max === undefined || value <= input.max);
  return fits
    ? undefined
    : `'${input.name}' expects ${describeInput(input)}, got ${value === undefined ? 'nothing' : JSON.stringify(value)}`;
}

/**
 * The value of every flow input for one run: the run's params, then the
 * seed for an input named `seed` (when the run gives one), then defaults.
 * Findings name the param.
 */
export function resolveRunParams(
  flow: FlowDocument,
  params: Readonly<Record<string, unknown>>,
  seed?: number,
): { values: RunParams; issues: FlowIssue[] } {
  const issues: FlowIssue[] = [];
  const values: Record<string, InputValue> = {};
  const declared = flow.inputs.map((i) => i.name);
  for (const name of Object.keys(params)) {
    if (!declared.includes(name))
      issues.push({
        path: `params.${name}`,
        message: `'${name}' is not an input of flow '${flow.name}' (it declares: ${declared.join(', ') || 'nothing'})`,
      });
  }
  if (seed !== undefined && (!Number.isSafeInteger(seed) || seed < 0))
    issues.push({ path: 'seed', message: `the seed must be a non-negative integer, got ${seed}` });
  for (const input of flow.inputs) {
    const given = Object.hasOwn(params, input.name) ? params[input.name] : undefined;
    const value = given ?? (input.name === 'seed' ? seed : undefined) ?? input.default;
    if (value === undefined) {
      issues.push({
        path: `params.${input.name}`,
        message: `'${input.name}' has no default: the run must set it`,
      });
      continue;
    }
    const problem = checkInputValue(input, value);
    if (problem) issues.push({ path: `params.${input.name}`, message: problem });
    else values[input.name] = value as InputValue;
  }
  return { values, issues };
}

/** What a run records of its parameters: the values it used. */
export interface EffectiveParams {
  /** Every flow input's value, except the seed input's (that is `seed`). */
  params: RunParams;
  seed: number;
}

/**
 * Split resolved input values into what the record keeps: the `seed`
 * input's value is the run's seed (kept once, in `seed`); every other input
 * is a param. In a flow without a numeric `seed` input nothing consumes the
 * seed, so the run's is kept as given, or 0: a constant, so two runs of the
 * same experiment still share a digest.
 */
export function effectiveParams(values: RunParams, seed: number | undefined): EffectiveParams {
  const { seed: seedValue, ...params } = values;
  if (typeof seedValue === 'number') return { params, seed: seedValue };
  return { params: values, seed: seed ?? 0 };
}

/** A stored run's flow and what it was given: its params and seed. */
export interface RanFlow {
  readonly flowSnapshot: FlowDocument;
  readonly params: Readonly<Record<string, InputValue>>;
  readonly seed: number;
}

/**
 * The values a stored run ran with, resolved as its driver resolves them
 * (its flow snapshot's defaults fill what the record left out, as runs
 * recorded before every value was kept did). A value that no longer
 * resolves is shown as recorded.
 */
export function runValues(run: RanFlow): EffectiveParams {
  const { values } = resolveRunParams(run.flowSnapshot, run.params, run.seed);
  const { params, seed } = effectiveParams({ ...run.params, ...values }, run.seed);
  return { params, seed };
}

/**
 * A node's params for one run: declared defaults, its own values, flow inputs substituted.
 * With the node's `index` in the flow, findings carry its document path (`nodes[2].params.lr`).
 */
export function resolveNodeParams(
  node: FlowNode,
  kind: NodeKind,
  inputs: RunParams,
  index?: number,
): { params: Record<string, InputValue>; issues: FlowIssue[] } {
  const at = index === undefined ? node.id : `nodes[${index}]`;
  const params: Record<string, InputValue> = {};
  const issues: FlowIssue[] = [];
  for (const [name, spec] of Object.entries(kind.params)) {
    const raw = Object.hasOwn(node.params, name) ? node.params[name] : undefined;
    const value = isInputRef(raw) ? inputs[raw.$input] : (raw ?? spec.default);
    const problem = checkParam(spec, value);
    if (problem)
      issues.push({
        path: `${at}.params.${name}`,
        message: `node '${node.id}' param '${name}'${isInputRef(raw) ? ` (from input '${raw.$input}')` : ''}: ${problem}`,
      });
    else params[name] = value as InputValue;
  }
  // Across params only once each fits on its own: a finding about a bad pair would only repeat it.
  if (issues.length === 0 && kind.checkParams)
    for (const finding of kind.checkParams(params)) {
      const raw = node.params[finding.param];
      issues.push({
        path: `${at}.params.${finding.param}`,
        message: `node '${node.id}' param '${finding.param}'${isInputRef(raw) ? ` (from input '${raw.$input}')` : ''}: ${finding.message}`,
      });
    }
  return { params, issues };
}
