/**
 * The values on the data engine's edges. A `LiveSource` is a data engine
 * running for one run: its cache, its producers and its telemetry. It is
 * owned by the run that opened it (closed when the run ends, whatever way);
 * consumers only read from it, each through its own flow controller, so two
 * consumers never share a pacing clock. `ContextWindows` is a source with a
 * window shape and a batch size: what a training loop samples from.
 */
import type { Clock } from '../data/clock';
import type { DataEngine } from '../data/data-engine';
import type { ContextWindow } from '../data/episode';
import type { EnvironmentSpec } from '../data/environment-spec';
import type { SourceTelemetry } from './source-telemetry';
import { FlowbenchError } from '../errors';

/** The value on a `live` port. */
export class LiveSource {
  readonly kind = 'live';

  constructor(
    /** The node that opened it. */
    readonly node: string,
    readonly engine: DataEngine,
    readonly environment: EnvironmentSpec,
    readonly clock: Clock,
    readonly telemetry: SourceTelemetry,
  ) {}

  /** Stop the producers, release their workers, report nothing more; idempotent. */
  close(): void {
    this.engine.close();
    this.telemetry.close();
  }
}

/** The value on a `windows` port: what to sample from a live source, and how much at a time. */
export interface ContextWindows {
  readonly kind: 'windows';
  readonly source: LiveSource;
  readonly window: ContextWindow;
  /** Windows per batch. */
  readonly batchSize: number;
  /** Seeds which episodes and offsets a consumer draws. */
  readonly seed: number;
}

export function expectLiveSource(value: unknown, port: string): LiveSource {
  if (value instanceof LiveSource) return value;
  throw new FlowbenchError('node-input', {
    problem: `input '${port}' expected a live data source`,
  });
}

export function expectContextWindows(value: unknown, port: string): ContextWindows {
  if (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'windows'
  )
    return value as ContextWindows;
  throw new FlowbenchError('node-input', {
    problem: `input '${port}' expected context windows (connect a data.sample node)`,
  });
}
