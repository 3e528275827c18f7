/**
 * The `flowbench` command line. `flowbench run <flow.json>` runs a flow file
 * (what the app's flow export writes) headless and writes its run file
 * (`<id>.run.json`, what the app's run export writes) into `--out`.
 *
 * Kept thin: arguments are parsed by Node's own `util.parseArgs`, the run is
 * the engine's (headless-run.ts), and every refusal is a catalogue error
 * whose category picks the exit status: 0 the run ended `ok`, 1 it ended
 * `error` (or Flowbench failed), 2 bad input (nothing run), 130 cancelled by
 * Ctrl+C (the record ends `cancelled`, every point written).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { FlowbenchError, hasCategory, isFlowbenchError } from '../src/core/errors';
import type { FlowDocument } from '../src/core/flow/document';
import { parseFlow } from '../src/core/flow/validate';
import { builtinCatalog } from '../src/core/nodes';
import type { RunId } from '../src/core/run/record';
import { cliBackends, type CliBackend } from './backend';
import { applyFiles } from './files';
import { runHeadless, type HeadlessRun } from './headless-run';
import { jsonReporter, textReporter, type Reporter } from './report';

export const EXIT = { ok: 0, error: 1, badInput: 2, cancelled: 130 } as const;

const usage = `Usage: flowbench run <flow.json> [--param name=value …] [--seed N] [--file name=path …] [--backend cpu|wasm] [--out DIR] [--json]

  --param name=value  set a flow input (repeat for more)
  --seed N            the run's seed (a non-negative integer)
  --file name=path    pick the file at path for file param name (node.param, or a param name one
                      node has), as the inspector picks it; a bare path only supplies a file the
                      flow already names by digest (repeat for more)
  --backend wasm|cpu  wasm (default): onnxruntime-web's WASM engine, the browser's, for series
                      the browser reproduces; cpu: onnxruntime-node's native CPU provider
  --out DIR           where <run id>.run.json is written (default: the current directory)
  --json              one JSON object per event on stdout, instead of progress lines
`;

/** The options every command that runs a flow takes, for `util.parseArgs`. */
export const runOptions = {
  param: { type: 'string', multiple: true, default: [] as string[] },
  seed: { type: 'string' },
  file: { type: 'string', multiple: true, default: [] as string[] },
  backend: { type: 'string', default: 'wasm' },
  out: { type: 'string', default: '.' },
  json: { type: 'boolean', default: false },
} satisfies ParseArgsConfig['options'];

const badOption = (option: string, problem: string) =>
  new FlowbenchError('bad-option', { option, problem });

/** `--backend`'s value, or `bad-option`. */
export function parseBackend(text: string): CliBackend {
  if ((cliBackends as readonly string[]).includes(text)) return text as CliBackend;
  throw badOption('--backend', `expects ${cliBackends.join(' or ')}, got '${text}'`);
}

/** `--seed`'s value, or `bad-option`. */
export function parseSeed(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const seed = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(seed))
    throw badOption('--seed', `expects a non-negative integer, got '${text}'`);
  return seed;
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
        ? value.trim() === ''
          ? value
          : Number(value)
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

/** The flow in a flow file, or a `bad-import` / `invalid-flow` error naming the file. */
export async function readFlowFile(path: string): Promise<FlowDocument> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new FlowbenchError('bad-import', {
      file: path,
      problem: missing ? 'does not exist' : `cannot be read: ${(error as Error).message}`,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new FlowbenchError('bad-import', {
      file: path,
      problem: `is not JSON (${(error as Error).message}); expected a flow file`,
    });
  }
  const parsed = parseFlow(json);
  if (!parsed.ok)
    throw new FlowbenchError('invalid-flow', {
      issues: parsed.issues,
      subject: `The flow file ${path} is`,
    });
  return parsed.flow;
}

async function runCommand(args: string[], reporter: () => Reporter): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...runOptions,
      // Set by `flowbench sweep` for each of its runs: the sweep's group id.
      group: { type: 'string' },
    },
  });
  const report = reporter();
  try {
    if (positionals.length !== 1)
      throw badOption('run', `expects one flow file, got ${positionals.length}`);
    const backend = parseBackend(values.backend);
    const seed = parseSeed(values.seed);
    const read = await readFlowFile(positionals[0]!);
    const { flow, params, files } = await applyFiles(
      read,
      parseParams(read, values.param),
      values.file,
      builtinCatalog,
    );
    const out = resolve(values.out);
    await mkdir(out, { recursive: true });
    return await runToFile(
      {
        flow,
        params,
        ...(seed !== undefined && { seed }),
        backend,
        files,
        ...(values.group !== undefined && { groupId: values.group }),
      },
      out,
      report,
    );
  } catch (error) {
    report.event(errorEvent(error));
    report.close();
    return hasCategory(error, 'bad-input') ? EXIT.badInput : EXIT.error;
  }
}

/**
 * Run to its end, reporting as it goes, and write its run file into `out`;
 * resolves with the exit status its end calls for. Ctrl+C (or SIGTERM)
 * cancels the run, which then ends its record; a second one leaves at once.
 */
export async function runToFile(
  run: Omit<HeadlessRun, 'signal' | 'events'>,
  out: string,
  report: Reporter,
  signal?: AbortSignal,
): Promise<number> {
  const cancel = new AbortController();
  const onInterrupt = () => {
    if (cancel.signal.aborted) process.exit(EXIT.cancelled);
    cancel.abort();
  };
  signal?.addEventListener('abort', () => cancel.abort(), { once: true });
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);
  const steps = new Map<string, { at: number; done: number }>();
  try {
    const { status, file } = await runHeadless({
      ...run,
      signal: cancel.signal,
      events: {
        started: (runId: RunId) => report.event({ event: 'started', runId, flow: run.flow.name }),
        progress(node, done, total, perSecond) {
          const now = performance.now();
          const first = steps.get(node) ?? { at: now, done };
          steps.set(node, first);
          const seconds = (now - first.at) / 1000;
          const stepsPerSecond = seconds > 0 ? (done - first.done) / seconds : (perSecond ?? null);
          report.event({ event: 'progress', node, done, total, stepsPerSecond });
        },
        live: (node, port, value) => report.event({ event: 'live', node, port, value }),
      },
    });
    const written = join(out, `${file.run.id}.run.json`);
    await writeFile(written, JSON.stringify(file, null, 2) + '\n');
    report.event({
      event: 'finished',
      runId: file.run.id,
      status,
      statusReason: file.run.statusReason,
      file: written,
    });
    report.close(file);
    return status === 'ok' ? EXIT.ok : status === 'cancelled' ? EXIT.cancelled : EXIT.error;
  } finally {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
  }
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

/** Runs the command `args` (without `node` and the script); resolves with its exit status. */
export async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  const json = rest.includes('--json');
  const reporter = () =>
    json
      ? jsonReporter((line) => process.stdout.write(line + '\n'))
      : textReporter(process.stdout, process.stderr);
  if (command === undefined || command === '--help' || command === '-h') {
    process.stdout.write(usage);
    return command === undefined ? EXIT.badInput : EXIT.ok;
  }
  if (command !== 'run') {
    process.stderr.write(`flowbench: unknown command '${command}'\n${usage}`);
    return EXIT.badInput;
  }
  try {
    return await runCommand(rest, reporter);
  } catch (error) {
    // parseArgs refuses an unknown or malformed option before anything runs.
    const report = reporter();
    const message = error instanceof Error ? error.message : String(error);
    report.event(errorEvent(badOption('run', `refused its arguments: ${message}`)));
    return EXIT.badInput;
  }
}
