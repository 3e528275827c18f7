/**
 * What `flowbench run` and `flowbench sweep` run: a flow file (what the
 * app's flow export writes), a run file (`<id>.run.json`, the app's or the
 * command's) or a run bundle (`<id>.flowbench.zip`, the app's _Export
 * bundle_: a run file with the bytes of the files its flow read).
 *
 * Idea: a run file or bundle is a run, so running it is the app's Re-run on
 * this machine: its flow snapshot, its params and seed (each overridden
 * where the command line sets it), and for a bundle the files its flow
 * names, taken from it by digest. A bundle is opened by the core's
 * `openRunBundle`, which checks every entry against its digest, so one with
 * a byte changed is refused whole, as the app refuses it; a run file goes
 * through the app's importer.
 */
import { basename, dirname, resolve } from 'node:path';
import { FlowbenchError } from '../src/core/errors';
import type { FlowDocument } from '../src/core/flow/document';
import { parseFlow } from '../src/core/flow/validate';
import { looksLikeZip, openRunBundle } from '../src/core/run/bundle';
import { fromRunExport } from '../src/core/run/export';
import { refuseImport } from '../src/core/run/import-file';
import type { RunId } from '../src/core/run/record';
import { readBytes, type FileSources, type GivenFile } from './files';
import type { RanFrom } from './report';

/** The run a run file or bundle records: its id, the params and seed it ran with, the files it carries. */
export interface RecordedRun {
  readonly id: RunId;
  readonly params: Readonly<Record<string, unknown>>;
  readonly seed: number;
  /** The files a bundle carries, by digest (none in a run file). */
  readonly carried: ReadonlyMap<string, GivenFile>;
}

/** A flow to run, and the run it comes from, if any. */
export interface FlowSource {
  readonly flow: FlowDocument;
  /** The run a run file or bundle records; absent for a flow file. */
  readonly recorded?: RecordedRun;
}

/**
 * The flow in the flow file, run file or run bundle at `path`. Throws
 * `bad-import` naming the file when it cannot be read, is not JSON, is a
 * zip but no run bundle, or is a run file or bundle the importer refuses
 * (a bundle entry that does not match its digest among them), and
 * `invalid-flow` for a flow file that is no flow.
 */
export async function readFlowSource(path: string): Promise<FlowSource> {
  const bytes = await readBytes(path);
  if (looksLikeZip(bytes)) {
    const file = basename(path);
    const bundle = await openRunBundle(file, bytes);
    const carried = new Map(
      bundle.files.map(({ digest, name, bytes, mediaType }) => [
        digest,
        { name, bytes, mediaType, digest },
      ]),
    );
    return recordedIn(`${file} (run.json)`, bundle.runFile, carried);
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new FlowbenchError('bad-import', {
      file: path,
      problem: `is not JSON (${(error as Error).message}); expected a flow file, a run file or a run bundle`,
    });
  }
  if (isRunFile(json)) return recordedIn(path, json, new Map());
  const parsed = parseFlow(json);
  if (!parsed.ok)
    throw new FlowbenchError('invalid-flow', {
      issues: parsed.issues,
      subject: `The flow file ${path} is`,
    });
  return { flow: parsed.flow };
}

/** Whether `json` says it is a run file (`flowbench.run/<n>`), whatever else it holds. */
function isRunFile(json: unknown): boolean {
  if (typeof json !== 'object' || json === null || !('format' in json)) return false;
  return typeof json.format === 'string' && json.format.startsWith('flowbench.run/');
}

/** The flow and run of the run file `json` (named `file` in a refusal), with the files `carried`. */
function recordedIn(
  file: string,
  json: unknown,
  carried: ReadonlyMap<string, GivenFile>,
): FlowSource {
  const parsed = fromRunExport(json);
  if (!parsed.ok) refuseImport(file, 'run file', parsed.issues);
  const { run } = parsed.record;
  return {
    flow: run.flowSnapshot,
    recorded: { id: run.id, params: run.params, seed: run.seed, carried },
  };
}

/** What a run of `recorded`, read from `file`, says it runs: of its `files`, those the bundle carries. */
export function ranFrom(file: string, recorded: RecordedRun, files: readonly GivenFile[]): RanFrom {
  const carried = files.filter((given) => recorded.carried.has(given.digest)).length;
  return { file, runId: recorded.id, files: carried };
}

/**
 * Where the files the flow at `path` names and no `--file` gives are taken
 * from: the bundle it came in (`recorded`'s files), else the folder it lies in.
 */
export function fileSources(path: string, recorded: RecordedRun | undefined): FileSources {
  return {
    near: dirname(resolve(path)),
    ...(recorded !== undefined && recorded.carried.size > 0 && { carried: recorded.carried }),
  };
}
