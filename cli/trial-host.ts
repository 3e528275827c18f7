/**
 * The child side of `flowbench sweep`'s local runner: a `flowbench run`
 * that stays, running one trial after another as its sweep hands them over.
 * A sweep starts one such process per `--parallel` lane, once, so the
 * process's start (loading the engine's sources, compiling onnxruntime's
 * WASM build, V8 optimising it) is paid once per lane, not once per trial,
 * and every trial after the first runs on code already compiled and hot.
 * Trade-off: trials in one lane share a process, so one that crashes it
 * takes down only itself (the sweep starts a fresh process for the next),
 * but one that leaks memory leaks it into the next.
 *
 * The protocol, one JSON object a line: the sweep writes a `HostRequest` on
 * stdin (a trial's `flowbench run` arguments); the host runs it exactly as
 * `flowbench run --json` would, printing the same events on stdout, then a
 * `trial-exit` line with the status `flowbench run` would have exited with.
 * When stdin ends, the host leaves. Ctrl+C (SIGINT from the sweep) cancels
 * the running trial as it cancels a `flowbench run`.
 *
 * A host warms its engine as it starts (`--backend`, the sweep's): onnxruntime
 * compiles its WASM on V8's background threads while the first trial's flow
 * is read, checked and journaled on this one, rather than after.
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { badOption, errorEvent, EXIT, parseBackend } from './args';
import { warmUp } from './backend';
import { jsonReporter, type RunEvent } from './report';
import { runCommand } from './run-command';

/** Sweep → host: run this trial (`flowbench run`'s arguments, `--json` among them). */
export interface HostRequest {
  run: string[];
}

/** Host → sweep: a trial's events, as `flowbench run --json` prints them, then how it ended. */
export type HostMessage = RunEvent | { event: 'trial-exit'; code: number };

/** `flowbench trial-host [--backend B]`: run trials from stdin until it ends; resolves with 0. */
export async function trialHostCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { backend: { type: 'string', default: 'wasm' } } });
  // Not awaited: a warm-up that fails leaves the first trial to load the engine, and say why.
  void warmUp(parseBackend(values.backend)).catch(() => undefined);
  const write = (message: HostMessage) => process.stdout.write(JSON.stringify(message) + '\n');
  const requests = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of requests) {
    if (line.trim() === '') continue;
    const request = JSON.parse(line) as HostRequest;
    let code: number;
    try {
      code = await runCommand(request.run, () =>
        jsonReporter((text) => process.stdout.write(text + '\n')),
      );
    } catch (error) {
      // As `main` answers a `flowbench run` whose options parseArgs refused.
      const message = error instanceof Error ? error.message : String(error);
      write(errorEvent(badOption('run', `refused its arguments: ${message}`)));
      code = EXIT.badInput;
    }
    write({ event: 'trial-exit', code });
  }
  return 0;
}
