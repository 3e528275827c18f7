/**
 * One side of the command line's late-step row (cli.ts), in a process of its
 * own: `node --import tsx bench/node/late-step.ts <ours|bare> <from> <steps>`
 * trains the train row's MLP from fresh weights and prints, as JSON, its ms
 * per step over `steps` steps from step `from` on. A process each, because
 * onnxruntime sets the calling thread's denormal flag once, from the first
 * session a process makes (cli/backend.ts): side by side in one process, the
 * second side would run on the first one's flag.
 */
import * as ortNode from 'onnxruntime-node';
import { runHeadless } from '../../cli/headless-run';
import { bareTrainer, trainCatalog, trainFlow } from './ort';

/** `flowbench run --backend cpu`'s path: ms per step between its first report at `from` or later and its last. */
async function ours(from: number, steps: number): Promise<number> {
  let first: { done: number; at: number } | null = null;
  let last = { done: 0, at: 0 };
  const { status } = await runHeadless({
    flow: trainFlow(from + steps),
    params: {},
    catalog: trainCatalog,
    backend: 'cpu',
    signal: new AbortController().signal,
    events: {
      started: () => undefined,
      progress: (node, done) => {
        if (node !== 'train') return;
        last = { done, at: performance.now() };
        if (first === null && done >= from) first = last;
      },
      live: () => undefined,
    },
  });
  if (status !== 'ok') throw new Error(`the train run ended ${status}`);
  const start = first as { done: number; at: number } | null;
  if (start === null || last.done <= start.done) throw new Error('the run reported no late steps');
  return (last.at - start.at) / (last.done - start.done);
}

/** A person's loop, on onnxruntime's defaults: `steps` steps timed after `from` untimed. */
async function bare(from: number, steps: number): Promise<number> {
  const loop = await bareTrainer(ortNode, { executionProviders: ['cpu'] }, 'prepared', steps, from);
  const ms = await loop.trial();
  await loop.release();
  return ms;
}

const [side, from, steps] = process.argv.slice(2);
if ((side !== 'ours' && side !== 'bare') || !from || !steps) {
  console.error('usage: late-step.ts <ours|bare> <from> <steps>');
  process.exit(2);
}
const ms = await (side === 'ours' ? ours : bare)(Number(from), Number(steps));
console.log(JSON.stringify({ ms }));
// onnxruntime's thread pools keep the event loop alive.
process.exit(0);
