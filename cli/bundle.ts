/**
 * What `flowbench run` and `flowbench sweep` run: a flow file, or a run
 * bundle (`<id>.flowbench.zip`, what the app's _Export bundle_ writes).
 *
 * Idea: a bundle is a run with the bytes it read, so running it is the app's
 * Re-run on this machine: its flow snapshot, its params and seed (each
 * overridden where the command line sets it) and the files its flow names,
 * taken from the bundle by digest. The bundle is opened by the core's
 * `openRunBundle`, which checks every entry against its digest, so a bundle
 * with a byte changed is refused whole, as the app refuses it.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { FlowDocument } from '../src/core/flow/document';
import { looksLikeZip, openRunBundle } from '../src/core/run/bundle';
import { fromRunExport } from '../src/core/run/export';
import { refuseImport } from '../src/core/run/import-file';
import type { RunId } from '../src/core/run/record';
import { readFlowFile } from './args';
import type { GivenFile } from './files';

/** The run a bundle holds: its id, the params and seed it ran with, and the files it read. */
export interface BundledRun {
  readonly id: RunId;
  readonly params: Readonly<Record<string, unknown>>;
  readonly seed: number;
  /** The files the bundle carries, by digest. */
  readonly carried: ReadonlyMap<string, GivenFile>;
}

/** A flow to run, and what came with it. */
export interface FlowSource {
  readonly flow: FlowDocument;
  /** The bundle's run; absent for a flow file. */
  readonly bundled?: BundledRun;
}

/**
 * The flow in the flow file or run bundle at `path`. Throws `bad-import`
 * naming the file when it cannot be read, is a zip but no run bundle, or is
 * a bundle whose entries do not match their digests, and `invalid-flow` for
 * a flow file that is no flow.
 */
export async function readFlowSource(path: string): Promise<FlowSource> {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(path));
  } catch {
    // readFlowFile says why in the words it uses for every flow file.
    return { flow: await readFlowFile(path) };
  }
  if (!looksLikeZip(bytes)) return { flow: await readFlowFile(path) };
  const file = basename(path);
  const bundle = await openRunBundle(file, bytes);
  const parsed = fromRunExport(bundle.runFile);
  if (!parsed.ok) refuseImport(`${file} (run.json)`, 'run file', parsed.issues);
  const { run } = parsed.record;
  return {
    flow: run.flowSnapshot,
    bundled: {
      id: run.id,
      params: run.params,
      seed: run.seed,
      carried: new Map(
        bundle.files.map(({ digest, name, bytes, mediaType }) => [
          digest,
          { name, bytes, mediaType },
        ]),
      ),
    },
  };
}
