/**
 * A sweep's trials: `--param name=values` fields read as the app's sweep
 * form reads them (a value, a comma list, or an integer range `0..4`), every
 * combination one trial, all grouped under one sweep id (the record's
 * `groupId`, as the app's sweeps group runs). Every trial is checked before
 * any runs, so a bad value refuses the whole sweep with exit 2, as the app
 * refuses a sweep it cannot run. `seed` sweeps the run's seed whether or not
 * the flow declares a `seed` input.
 */
import { v7 as uuidv7 } from 'uuid';
import type { Catalog } from '../src/core/catalog/catalog';
import { FlowbenchError } from '../src/core/errors';
import type { FlowDocument } from '../src/core/flow/document';
import { checkRequest } from '../src/core/run/check';
import { planSweep, type FormRun } from '../src/core/run/form';
import type { RunId } from '../src/core/run/record';
import type { CliBackend } from './backend';

/** One grid point of a sweep, with the run id it will be recorded under. */
export interface Trial {
  /** Its place in the grid, from 0. */
  index: number;
  runId: RunId;
  params: FormRun['params'];
  seed?: number;
}

/** The `--param` fields of a sweep by input name, each as typed; `bad-option` for a name the flow lacks. */
export function sweepFields(flow: FlowDocument, given: readonly string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const text of given) {
    const at = text.indexOf('=');
    if (at <= 0)
      throw new FlowbenchError('bad-option', {
        option: '--param',
        problem: `expects name=values, got '${text}'`,
      });
    const name = text.slice(0, at);
    if (name !== 'seed' && !flow.inputs.some((input) => input.name === name))
      throw new FlowbenchError('bad-option', {
        option: '--param',
        problem: `'${name}' is not an input of flow '${flow.name}' (it declares: ${
          flow.inputs.map((i) => i.name).join(', ') || 'none'
        })`,
      });
    fields[name] = text.slice(at + 1);
  }
  return fields;
}

/**
 * Every trial of the sweep, each checked as a run of `flow` would be;
 * throws `bad-option` for a field that cannot be read or a grid too large,
 * and `invalid-flow` for a trial that cannot run.
 */
export function planTrials(
  flow: FlowDocument,
  fields: Record<string, string>,
  catalog: Catalog,
  backend: CliBackend,
): Trial[] {
  // The form's reading makes a numeric `seed` field the run's seed; a flow without one gets it too.
  const withSeed: FlowDocument = flow.inputs.some((input) => input.name === 'seed')
    ? flow
    : { ...flow, inputs: [...flow.inputs, { name: 'seed', type: 'int', min: 0 }] };
  const plan = planSweep(withSeed, fields);
  if (typeof plan === 'string')
    throw new FlowbenchError('bad-option', { option: '--param', problem: plan });
  return plan.map(({ params, seed }, index) => {
    checkRequest(
      {
        flowId: null,
        flowVersion: 1,
        flow,
        params,
        ...(seed !== undefined && { seed }),
        backendChoice: backend === 'cpu' ? 'auto' : 'wasm',
        cause: 'sweep',
      },
      catalog,
    );
    return { index, runId: uuidv7() as RunId, params, ...(seed !== undefined && { seed }) };
  });
}

/** A trial's params as a person reads them: `lr=0.1 seed=2`. */
export function describeTrial(trial: Pick<Trial, 'params' | 'seed'>): string {
  const parts = Object.entries(trial.params).map(([name, value]) => `${name}=${String(value)}`);
  if (trial.seed !== undefined) parts.push(`seed=${trial.seed}`);
  return parts.join(' ') || '(defaults)';
}

/** A new sweep id: time-ordered, as the app's sweep groups. */
export const newSweepId = (): string => uuidv7();
