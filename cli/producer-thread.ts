/**
 * A producer of `flowbench run` under Node: a `worker_threads` thread that
 * serves the producer protocol with the product's own `serveProducer`, as
 * `workers/producer.worker.ts` does in the browser. Node's `MessagePort` is
 * an event target with `MessageEvent`s, so it is the worker scope as is.
 */
import { parentPort } from 'node:worker_threads';
import { serveProducer, type ProducerScope } from '../workers/engine/producers';

if (!parentPort) throw new Error('producer-thread.ts runs only as a worker thread');
serveProducer(parentPort as unknown as ProducerScope);
