/**
 * What a run reports while it executes: the seam between the executor and
 * whoever watches it (the run driver, which decides what becomes the durable
 * record; a test; a benchmark). It has a file of its own because both the
 * executor and a node's context (`NodeRun`) report through it, and neither
 * should import the other for it.
 */
import type { NodeStatus } from '../run/record';

/** How one node's body ended. */
export interface NodeOutcome {
  status: Extract<NodeStatus, 'ok' | 'error' | 'cancelled' | 'skipped' | 'cached'>;
  durationMs: number | null;
  error: string;
  /** A `cached` node's outputs: the run that computed them and the node in it. */
  cachedFrom?: { runId: string; node: string };
}

/** What a run reports while it executes. */
export interface RunEvents {
  nodeQueued(node: string): void;
  nodeStarted(node: string, at: number): void;
  nodeFinished(node: string, outcome: NodeOutcome): void;
  emitted(node: string, port: string, value: unknown, stream: boolean): void;
  log(node: string, message: string): void;
  progress(node: string, done: number, total: number, perSecond?: number): void;
  artifact(node: string, name: string, bytes: Uint8Array, mediaType: string): void;
  interval(node: string, kind: string, start: number, end: number): void;
}
