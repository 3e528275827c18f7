/**
 * How long the engine's waits last: a run's lease, the sweep for runs whose
 * engine died, and how long a write may wait before the run says storage does
 * not answer. The defaults suit people's machines; the `engineTimings`
 * setting (src/db/settings.ts) may shorten them, and an engine reads it once,
 * as it starts. Until then, and for any wait the setting leaves out, the
 * default applies.
 */
import {
  ENGINE_TIMING_DEFAULTS,
  readSetting,
  type EngineTimings as StoredTimings,
} from '../../src/db/settings';
import type { FlowbenchDb } from '../../src/db/schema';

/** Every wait, the setting's where it names one, the default's where not. */
export type EngineTimings = Readonly<Required<StoredTimings>>;

/**
 * The timings now: the defaults at once, and those the setting names once it
 * has been read (`read` settles then; a setting that cannot be read leaves the
 * defaults).
 */
export function engineTimings(db: FlowbenchDb): { now: () => EngineTimings; read: Promise<void> } {
  let timings: EngineTimings = ENGINE_TIMING_DEFAULTS;
  const read = readSetting(db, 'engineTimings').then(
    (stored) => void (timings = { ...ENGINE_TIMING_DEFAULTS, ...stored }),
    () => undefined,
  );
  return { now: () => timings, read };
}
