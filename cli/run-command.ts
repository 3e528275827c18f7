/**
 * `flowbench run <flow.json>`: one flow run headless (headless-run.ts), its
 * progress reported as it goes (report.ts), its run file written into `--out`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Catalog } from '../src/core/catalog/catalog';
import { hasCategory } from '../src/core/errors';
import { builtinCatalog } from '../src/core/nodes';
import { packRunBundle, runFileDigests, type BundleFile } from '../src/core/run/bundle';
import type { RunRecord } from '../src/core/run/export';
import type { RunId } from '../src/core/run/record';
import {
  badOption,
  errorEvent,
  EXIT,
  parseBackend,
  parseParams,
  parseSeed,
  parseThreads,
  runOptions,
} from './args';
import { applyFiles, type FileBeside, type GivenFile } from './files';
import { fileSources, ranFrom, readFlowSource } from './flow-source';
import { runHeadless, type HeadlessRun } from './headless-run';
import { progressGate } from './progress-gate';
import type { RanFrom, Reporter } from './report';

/** `flowbench run`'s arguments, run; resolves with its exit status. */
export async function runCommand(args: string[], reporter: () => Reporter): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...runOptions,
      bundle: { type: 'boolean', default: false },
      // Set by `flowbench sweep` for each of its trials: the sweep's id and the trial's run id.
      group: { type: 'string' },
      'run-id': { type: 'string' },
    },
  });
  const report = reporter();
  try {
    if (positionals.length !== 1)
      throw badOption('run', `expects one flow file, got ${positionals.length}`);
    const backend = parseBackend(values.backend);
    const givenSeed = parseSeed(values.seed);
    const threads = parseThreads(values.threads);
    const { flow: read, recorded } = await readFlowSource(positionals[0]!);
    // A recorded run runs again as it ran, but for what the command line sets.
    const seed = givenSeed ?? recorded?.seed;
    const { flow, params, files, beside } = await applyFiles(
      read,
      { ...recorded?.params, ...parseParams(read, values.param) },
      values.file,
      builtinCatalog,
      fileSources(positionals[0]!, recorded),
    );
    const out = resolve(values.out);
    await mkdir(out, { recursive: true });
    return await runToFile(
      {
        flow,
        params,
        ...(seed !== undefined && { seed }),
        backend,
        ...(threads !== undefined && { threads }),
        files,
        ...(values.group !== undefined && { groupId: values.group }),
        ...(values['run-id'] !== undefined && { runId: values['run-id'] as RunId }),
        // Run again with nothing changed (a bare --file only supplies bytes the flow names), it
        // is the recorded run's re-run, which the app checks.
        ...(recorded &&
          values.param.length === 0 &&
          givenSeed === undefined &&
          JSON.stringify(flow) === JSON.stringify(read) && { rerunOf: recorded.id }),
      },
      out,
      report,
      {
        bundle: values.bundle,
        beside,
        ...(recorded && { from: ranFrom(positionals[0]!, recorded, files) }),
      },
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
 * `said`: what it says as it starts (the files it reads that were found
 * beside the flow, the recorded run it runs again), and whether it writes
 * the run's bundle beside its run file too.
 */
export async function runToFile(
  run: Omit<HeadlessRun, 'signal' | 'events'>,
  out: string,
  report: Reporter,
  said: {
    readonly beside?: readonly FileBeside[];
    readonly from?: RanFrom;
    /** Also write the run bundle: the run file with the files its flow read and its artifacts. */
    readonly bundle?: boolean;
  } = {},
): Promise<number> {
  const beside = said.beside ?? [];
  const cancel = new AbortController();
  const onInterrupt = () => {
    if (cancel.signal.aborted) process.exit(EXIT.cancelled);
    cancel.abort();
  };
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);
  const steps = new Map<string, { at: number; done: number }>();
  const printable = progressGate();
  try {
    const { status, file, record } = await runHeadless({
      ...run,
      signal: cancel.signal,
      events: {
        started: (runId: RunId) =>
          report.event({
            event: 'started',
            runId,
            flow: run.flow.name,
            ...(said.from && { from: said.from }),
            ...(beside.length > 0 && { beside }),
          }),
        progress(node, done, total, perSecond) {
          if (!printable(node, done, total)) return;
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
    const bundle = said.bundle === true ? join(out, `${file.run.id}.flowbench.zip`) : undefined;
    if (bundle !== undefined)
      await writeFile(bundle, runBundle(record, run.files ?? [], run.catalog ?? builtinCatalog));
    report.event({
      event: 'finished',
      runId: file.run.id,
      status,
      statusReason: file.run.statusReason,
      file: written,
      ...(bundle !== undefined && { bundle }),
    });
    report.close(file);
    return status === 'ok' ? EXIT.ok : status === 'cancelled' ? EXIT.cancelled : EXIT.error;
  } finally {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
  }
}

/**
 * The bundle the app's Export bundle makes of `record`: its run file, the
 * files of `given` it names and its artifacts' bytes, so that a run on a
 * person's own files imports, and re-runs, in a browser that lacks them.
 */
function runBundle(record: RunRecord, given: readonly GivenFile[], catalog: Catalog): Uint8Array {
  const named = new Set(runFileDigests(record.run, catalog));
  const files: BundleFile[] = [];
  for (const file of given)
    if (named.has(file.digest) && !files.some((f) => f.digest === file.digest)) files.push(file);
  return packRunBundle(record, files);
}
