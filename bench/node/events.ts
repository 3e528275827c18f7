/**
 * Run events that go nowhere, except the ones a bench listens to. What the
 * run driver records is not the engine's cost, so the engine rows hand the
 * executor sinks that do nothing. The known events are plain own properties
 * (no Proxy trap on the hot path); an event the executor gains later falls
 * through to a Proxy prototype that answers with a no-op, so the bench keeps
 * running while the engine grows.
 */
import type { RunEvents } from '../../src/core/engine/events';

const noop = () => undefined;

const unknownEvents: object = new Proxy(
  {},
  { get: (_target, key) => (typeof key === 'symbol' || key === 'then' ? undefined : noop) },
);

const knownEvents = [
  'nodeQueued',
  'nodeStarted',
  'nodeFinished',
  'emitted',
  'log',
  'progress',
  'artifact',
  'interval',
] as const satisfies readonly (keyof RunEvents)[];

export function quietEvents(listen: Partial<RunEvents> = {}): RunEvents {
  const events = Object.create(unknownEvents) as Record<string, unknown>;
  for (const key of knownEvents) events[key] = noop;
  return Object.assign(events, listen) as unknown as RunEvents;
}
