/**
 * One side of the command line's train-step rows (cli.ts), in a process of
 * its own, as a person runs either: `node --import tsx
 * bench/node/train-window.ts <ours|bare> <from> <steps>` trains ort.ts's MLP
 * from fresh weights and prints, as JSON, its ms per step over `steps` steps
 * from step `from` on.
 *
 * A process each, because a process remembers what ran in it. onnxruntime
 * sets the calling thread's denormal flag once, from the first session a
 * process makes (cli/backend.ts), so the second side would run on the
 * first's; and the bare loop ran some 30 % slower in a process where the
 * engine had run before it (1.45–1.54 ms a step against 1.04–1.14 in the
 * same process beforehand; any burst of large buffers did the same), so
 * pairs in one shared process flattered the command line.
 */
import * as ortNode from 'onnxruntime-node';
import { runHeadless } from '../../cli/headless-run';
import { bareTrainer, trainCatalog, trainFlow } from './ort';

/**
 * Longest gap between two units reported by one call. A unit is told when
 * the call that ran it comes back, with the call's other units
 * (mlp-loop-ahead.ts), each a runner tick of some tens of µs apart, while
 * calls come back a step's work (a millisecond or more) apart.
 */
const SAME_CALL_MS = 0.25;

interface Report {
  readonly done: number;
  readonly at: number;
}

/**
 * `flowbench run --backend cpu`'s path, as a lone run (every core): ms per
 * step from the end of the call that ran step `from` to the end of the last,
 * so the window holds whole calls.
 */
async function ours(from: number, steps: number): Promise<number> {
  const reports: Report[] = [];
  const { status } = await runHeadless({
    flow: trainFlow(from + steps),
    params: {},
    catalog: trainCatalog,
    backend: 'cpu',
    signal: new AbortController().signal,
    events: {
      started: () => undefined,
      progress: (node, done) => {
        if (node === 'train') reports.push({ done, at: performance.now() });
      },
      live: () => undefined,
    },
  });
  if (status !== 'ok') throw new Error(`the train run ended ${status}`);
  let first = reports.findIndex((r) => r.done >= from);
  if (first < 0) throw new Error(`the run reported no step from ${from} on`);
  while (first + 1 < reports.length && reports[first + 1]!.at - reports[first]!.at < SAME_CALL_MS)
    first++;
  const start = reports[first]!;
  const end = reports.at(-1)!;
  if (end.done <= start.done) throw new Error('the window holds no whole call');
  return (end.at - start.at) / (end.done - start.done);
}

/** A person's loop on onnxruntime's defaults: `steps` steps timed after `from` untimed. */
async function bare(from: number, steps: number): Promise<number> {
  const loop = await bareTrainer(ortNode, { executionProviders: ['cpu'] }, 'prepared', steps, from);
  const ms = await loop.trial();
  await loop.release();
  return ms;
}

const [side, from, steps] = process.argv.slice(2);
if ((side !== 'ours' && side !== 'bare') || !from || !steps) {
  console.error('usage: train-window.ts <ours|bare> <from> <steps>');
  process.exit(2);
}
const ms = await (side === 'ours' ? ours : bare)(Number(from), Number(steps));
console.log(JSON.stringify({ ms }));
// onnxruntime's thread pools keep the event loop alive.
process.exit(0);
