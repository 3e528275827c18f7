/**
 * Events that also hand each artifact to its node's state, so the node-output
 * cache can store what a node kept beside what it emitted (a hit then records
 * the same artifacts in the run that used it). Every other report passes
 * through untouched; without a cache the executor does not wrap its events.
 */
import type { RunEvents } from './events';

/** What a node kept while it ran. */
export interface KeptArtifact {
  readonly name: string;
  readonly mediaType: string;
  readonly bytes: Uint8Array;
}

export function collectingArtifacts(
  events: RunEvents,
  stateOf: (node: string) => { artifacts?: KeptArtifact[] } | undefined,
): RunEvents {
  return {
    nodeQueued: (node) => events.nodeQueued(node),
    nodeStarted: (node, at) => events.nodeStarted(node, at),
    nodeFinished: (node, outcome) => events.nodeFinished(node, outcome),
    emitted: (node, port, value, stream) => events.emitted(node, port, value, stream),
    log: (node, message) => events.log(node, message),
    progress: (node, done, total, perSecond) => events.progress(node, done, total, perSecond),
    interval: (node, kind, start, end) => events.interval(node, kind, start, end),
    artifact(node, name, bytes, mediaType) {
      const state = stateOf(node);
      if (state) (state.artifacts ??= []).push({ name, mediaType, bytes });
      events.artifact(node, name, bytes, mediaType);
    },
  };
}
