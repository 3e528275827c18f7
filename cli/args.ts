/**
 * What the commands share: their exit statuses, the options of a command
 * that runs a flow, and reading those options and the flow file, each
 * refusal a catalogue error of category `bad-input` (exit 2, nothing run).
 */
import type { ParseArgsConfig } from 'node:util';
import { FlowbenchError, isFlowbenchError } from '../src/core/errors';
import type { FlowDocument } from '../src/core/flow/document';
import { cliBackends, type CliBackend } from './backend';

/** 0 the run ended `ok`, 1 it ended `error` (or Flowbench failed), 2 bad input, 130 Ctrl+C. */
export const EXIT = { ok: 0, error: 1, badInput: 2, cancelled: 130 } as const;

/** The options every command that runs a flow takes, for `util.parseArgs`. */
export const runOptions = {
  param: { type: 'string', multiple: true, default: [] as string[] },
  seed: { type: 'string' },
  file: { type: 'string', multiple: true, default: [] as string[] },
  backend: { type: 'string', default: 'wasm' },
  threads: { type: 'string' },
  out: { type: 'string', default: '.' },
  json: { type: 'boolean', default: false },
} satisfies ParseArgsConfig['options'];

/** A refused option: `problem` follows the option's name. */
export const badOption = (option: string, problem: string) =>
  new FlowbenchError('bad-option', { option, problem });

/** `--backend`'s value, or `bad-option`. */
export function parseBackend(text: string): CliBackend {
  if ((cliBackends as readonly string[]).includes(text)) return text as CliBackend;
  throw badOption('--backend', `expects ${cliBackends.join(' or ')}, got '${text}'`);
}

/**
 * `--threads`' value (onnxruntime-node's threads per session, for `--backend
 * cpu`; WASM always runs on one), or `bad-option`; undefined when not given.
 */
export function parseThreads(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const threads = Number(text);
  if (!/^\d+$/.test(text) || threads < 1)
    throw badOption('--threads', `expects a positive integer, got '${text}'`);
  return threads;
}

/** `--seed`'s value, or `bad-option`. */
export function parseSeed(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const seed = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(seed))
    throw badOption('--seed', `expects a non-negative integer, got '${text}'`);
  return seed;
}

/** A number param's text as a number, or as it was when it is none (for the run's check to quote). */
function numberOrText(text: string): number | string {
  const value = Number(text);
  return text.trim() === '' || !Number.isFinite(value) ? text : value;
}

/** `--param` values, typed by the flow input they set (a name the flow lacks is left for the run's check to name). */
export function parseParams(flow: FlowDocument, given: readonly string[]): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const text of given) {
    const at = text.indexOf('=');
    if (at <= 0) throw badOption('--param', `expects name=value, got '${text}'`);
    const name = text.slice(0, at);
    const value = text.slice(at + 1);
    const input = flow.inputs.find((i) => i.name === name);
    params[name] =
      input?.type === 'number' || input?.type === 'int'
        ? numberOrText(value)
        : input?.type === 'boolean'
          ? value === 'true'
            ? true
            : value === 'false'
              ? false
              : value
          : value;
  }
  return params;
}

export function errorEvent(error: unknown) {
  return isFlowbenchError(error)
    ? {
        event: 'error' as const,
        code: error.code,
        category: error.category,
        message: error.message,
      }
    : {
        event: 'error' as const,
        code: 'internal',
        category: 'internal',
        message: error instanceof Error ? error.message : String(error),
      };
}
