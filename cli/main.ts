/**
 * The `flowbench` command line. `flowbench run <flow.json>` runs a flow file
 * (what the app's flow export writes; or a run file or bundle, run again:
 * flow-source.ts) headless and writes its run file (`<id>.run.json`, what
 * the app's run export writes) into `--out`;
 * `flowbench sweep` runs a grid of them, grouped as one sweep, here or, with
 * `--redis`, on `flowbench worker`s anywhere through a BullMQ queue.
 *
 * Kept thin: arguments are parsed by Node's own `util.parseArgs`, the run is
 * the engine's (headless-run.ts), and every refusal is a catalogue error
 * whose category picks the exit status: 0 the run ended `ok`, 1 it ended
 * `error` (or Flowbench failed), 2 bad input (nothing run), 130 cancelled by
 * Ctrl+C (the record ends `cancelled`, every point written).
 */
import { messageOf } from '../src/core/programs/errors';
import { badOption, errorEvent, EXIT } from './args';
import { jsonReporter, textReporter } from './report';

export { EXIT } from './args';

const usage = `Usage: flowbench run <flow.json | run.json | run.flowbench.zip> [--param name=value …] [--seed N] [--file name=path …] [--backend cpu|wasm] [--threads N] [--out DIR] [--bundle] [--json]
       flowbench sweep <flow.json | run.json | run.flowbench.zip> --param name=values … [--parallel N] [run's other options]
       flowbench sweep <flow.json | run.json | run.flowbench.zip> --param name=values … --redis URL [--queue NAME] [--wait]
       flowbench worker --redis URL [--queue NAME] [--concurrency N] [--threads N] [--out DIR] [--json]
       flowbench serve --redis URL [--queue NAME] [--port P] [--host H] [--allow-origin O …] [--token T]

  A run file (<id>.run.json) or run bundle (<id>.flowbench.zip, the app's Export bundle) runs its
  run again: its flow, params and seed (and a bundle's files), but for what the options set

  --param name=value  set a flow input (repeat for more)
  --seed N            the run's seed (a non-negative integer)
  --file name=path    pick the file at path for file param name (node.param, or a param name one
                      node has), as the inspector picks it; a bare path only supplies a file the
                      flow already names by digest (repeat for more). A file the flow names by
                      digest and no --file gives is taken from beside the flow file, by its bytes
  --backend wasm|cpu  wasm (default): onnxruntime-web's WASM engine, the browser's, for series
                      the browser reproduces; cpu: onnxruntime-node's native CPU provider
  --threads N         onnxruntime threads per session on --backend cpu, asleep between steps
                      (default: run, every core, spinning between steps; sweep, the cores shared
                      out among the lanes, at least one and at most all but one)
  --out DIR           where <run id>.run.json is written (default: the current directory)
  --bundle            run: also write <run id>.flowbench.zip there, the run file with the files
                      its flow read and its artifacts, as the app's Export bundle makes it
  --json              one JSON object per event on stdout, instead of progress lines

sweep:
  --param name=values a value, a comma list (lr=0.01,0.1) or an integer range (seed=0..4); every
                      combination is one trial, one run file each, all under one sweep id
  --parallel N        trials at once: N processes, each running its trials in turn (default: the
                      machine's cores)
  --redis URL         enqueue the trials on BullMQ in that Redis (redis://host:port) for workers
                      on any machine, instead of running them here; the same sweep enqueued
                      again runs nothing twice
  --queue NAME        the queue (default: flowbench)
  --wait              follow the queued trials to their ends, copy their run files into --out

worker:
  --concurrency N     trials at once in this process (default 1; start a worker per core)
  --threads N         onnxruntime threads per trial on --backend cpu (default 1, for a worker
                      per core; WASM trials always run on one)
  --out DIR           also write each run file here (they are always stored in Redis)
  --lock-ms MS        how long a trial stays locked without a sign of life from its worker
                      before another worker runs it again (default 30000)
  Ctrl+C hands the trials running here back to the queue.

serve (HTTP for a browser: GET /runs, /runs/<id> (its run file), /runs/<id>/live (SSE)):
  --port P            default 8737
  --host H            default 127.0.0.1; any other address needs --token
  --allow-origin O    a page origin allowed to call it, e.g. http://localhost:5173 (repeat)
  --token T           requests must carry it (Authorization: Bearer T, or ?token=T);
                      default FLOWBENCH_TOKEN
`;

/** Runs the command `args` (without `node` and the script); resolves with its exit status. */
export async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  const json = rest.includes('--json');
  const reporter = () =>
    json
      ? jsonReporter((line) => process.stdout.write(line + '\n'))
      : textReporter(process.stdout, process.stderr);
  const help = (arg: string) => arg === '--help' || arg === '-h';
  if (command === undefined || help(command) || rest.some(help)) {
    process.stdout.write(usage);
    return command === undefined ? EXIT.badInput : EXIT.ok;
  }
  // Each command's modules load only when it runs: a `run` (and a sweep's trial process) has no
  // use for the queue's client, whose load alone is a few hundred ms of a process's start.
  const commands: Record<string, () => Promise<number>> = {
    run: async () => (await import('./run-command')).runCommand(rest, reporter),
    sweep: async () => (await import('./sweep-command')).sweepCommand(rest),
    worker: async () => (await import('./worker-command')).workerCommand(rest),
    serve: async () => (await import('./serve-command')).serveCommand(rest),
    // Not for people: the process `flowbench sweep` runs its trials in, one after another (trial-host.ts).
    'trial-host': async () => (await import('./trial-host')).trialHostCommand(rest),
  };
  const chosen = commands[command];
  if (!chosen) {
    process.stderr.write(`flowbench: unknown command '${command}'\n${usage}`);
    return EXIT.badInput;
  }
  try {
    return await chosen();
  } catch (error) {
    // parseArgs refuses an unknown or malformed option before anything runs.
    const report = reporter();
    report.event(
      errorEvent(
        badOption(
          command,
          `refused its arguments: ${messageOf(error)} (flowbench --help lists every option)`,
        ),
      ),
    );
    return EXIT.badInput;
  }
}
