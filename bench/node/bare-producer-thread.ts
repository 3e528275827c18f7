/**
 * The ceiling's thread: a producer's share as bare rollouts, answered with
 * the count only. What two of these achieve over one thread is what two
 * threads can give on this machine with no protocol and no episodes moved.
 */
import { parentPort } from 'node:worker_threads';
import { bareRollouts, type BareShare } from './bare-rollouts';

if (!parentPort) throw new Error('bare-producer-thread.ts runs only as a worker thread');
const port = parentPort;
port.on('message', (share: BareShare) => {
  void bareRollouts(share).then((episodes) => port.postMessage(episodes));
});
