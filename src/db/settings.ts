/**
 * A person's settings that survive a reload, kept in the settings table
 * (key → value): every setting there is, with its stored key and the type
 * of its value, in one place.
 *
 * Idea: a stored value was written by some earlier release or another tab,
 * so it is read through its setting's check, and a value that no longer
 * fits reads as not set (the default applies) instead of reaching the app.
 *
 * Also the unsaved edits a page leaves as it goes away (`stashUnsavedEdit`),
 * one per flow under `unsaved-edit:<flow id>`: a closing page runs its
 * `pagehide` handler and nothing after it (no promise settles, no IndexedDB
 * callback fires), so a checked save (read the version, then write over it)
 * never lands then. One write issued inside the handler and committed at
 * once does, so the edit is written blind to a key of its own, with the
 * library version it was made on (`base`); the next open applies it over
 * that version or, when another tab saved since, asks as for any conflict.
 */
import { flowDocumentSchema, type FlowDocument } from '../core/flow/document';
import { backendChoices, type Backend, type BackendChoice } from '../core/runtime/tensor-runtime';
import type { FlowId } from '../core/run/record';
import type { FlowbenchDb } from './schema';

/** The device pools' budgets in bytes, by backend; a backend left out has the default. */
export type PoolBudgets = Partial<Record<Backend, number>>;

/**
 * How long the engine's waits last, in ms, where they differ from its defaults
 * (workers/engine/timings.ts): a run's lease, the sweep for runs whose engine
 * died, and a write's wait before the run says storage does not answer.
 */
export interface EngineTimings {
  /** How long a lease vouches for a run (its engine renews it every third of it). */
  leaseMs?: number;
  /** How often every open tab's engine sweeps for runs whose engine died, and looks at the queue. */
  sweepMs?: number;
  /** How long a write may wait before the run says storage does not answer. */
  storageStallMs?: number;
}

/**
 * The engine's waits where the setting names none, in ms: what suits
 * people's machines. The engine reads them with the setting
 * (workers/engine/timings.ts); a test that waits on one imports them from
 * here, where nothing of the engine comes with them.
 */
export const ENGINE_TIMING_DEFAULTS: Readonly<Required<EngineTimings>> = {
  // Refreshed every third of it.
  leaseMs: 10_000,
  sweepMs: 5_000,
  // Past the slowest healthy writes measured on a loaded 2-core machine (about 17 s).
  storageStallMs: 30_000,
};

/** Every setting, by name, with the type of its value. */
export interface Settings {
  /** The library flow open in the editor, reopened after a reload. */
  openFlow: FlowId;
  /** The backend new runs ask for. */
  backend: BackendChoice;
  /** The device pools' budgets the person set (the engine reads them when it starts). */
  poolBudgets: PoolBudgets;
  /** `Use cache`: whether new runs may take node outputs from the node-output cache. */
  useCache: boolean;
  /**
   * The engine's waits (read when an engine starts). No control in the app
   * sets it: the end-to-end tests shorten the waits so that a fault's outcome
   * shows in seconds rather than half a minute.
   */
  engineTimings: EngineTimings;
}

export type SettingName = keyof Settings;

interface SettingSpec<T> {
  /** The row's key in the settings table; never change one, or the stored value is lost. */
  readonly key: string;
  /** The stored value as this setting's type, or `undefined` when it is not one. */
  read(value: unknown): T | undefined;
}

function poolBudgetsOf(value: unknown): PoolBudgets {
  if (typeof value !== 'object' || value === null) return {};
  const kept: PoolBudgets = {};
  for (const [backend, bytes] of Object.entries(value))
    if ((backend === 'webgpu' || backend === 'wasm') && typeof bytes === 'number')
      kept[backend] = bytes;
  return kept;
}

/** The shortest and longest wait a stored timing may ask for: the engine's timers stay sane. */
const TIMING_RANGE_MS = [500, 3_600_000] as const;

function engineTimingsOf(value: unknown): EngineTimings {
  if (typeof value !== 'object' || value === null) return {};
  const kept: EngineTimings = {};
  for (const [name, ms] of Object.entries(value))
    if (
      (name === 'leaseMs' || name === 'sweepMs' || name === 'storageStallMs') &&
      typeof ms === 'number' &&
      ms >= TIMING_RANGE_MS[0] &&
      ms <= TIMING_RANGE_MS[1]
    )
      kept[name] = ms;
  return kept;
}

const settings: { readonly [N in SettingName]: SettingSpec<Settings[N]> } = {
  openFlow: {
    key: 'openFlow',
    read: (value) => (typeof value === 'string' && value !== '' ? (value as FlowId) : undefined),
  },
  backend: {
    key: 'backend',
    read: (value) => backendChoices.find((choice) => choice === value),
  },
  // A budget that is not a number of bytes is dropped; the other backend's is kept.
  poolBudgets: { key: 'pool-budgets', read: poolBudgetsOf },
  useCache: {
    key: 'use-cache',
    read: (value) => (typeof value === 'boolean' ? value : undefined),
  },
  // A timing out of range is dropped (its default applies); the others are kept.
  engineTimings: { key: 'engine-timings', read: engineTimingsOf },
};

/** The setting `name`, or `undefined` when it is not set (or its stored value does not fit). */
export async function readSetting<N extends SettingName>(
  db: FlowbenchDb,
  name: N,
): Promise<Settings[N] | undefined> {
  const row = await db.settings.get(settings[name].key);
  return row === undefined ? undefined : settings[name].read(row.value);
}

/** Set the setting `name` to `value`. */
export async function writeSetting<N extends SettingName>(
  db: FlowbenchDb,
  name: N,
  value: Settings[N],
): Promise<void> {
  await db.settings.put({ key: settings[name].key, value });
}

/**
 * Rewrite the setting `name` from its value now, in one transaction: two
 * changes in quick succession (two tabs, two backends' budgets) cannot lose
 * one another.
 */
export async function changeSetting<N extends SettingName>(
  db: FlowbenchDb,
  name: N,
  change: (before: Settings[N] | undefined) => Settings[N],
): Promise<void> {
  await db.transaction('rw', db.settings, async () => {
    await writeSetting(db, name, change(await readSetting(db, name)));
  });
}

// Unsaved edits of a page that went away (see the module's opening comment).

/** The open document of a flow, not yet saved, and the library version it was made on. */
export interface UnsavedEdit {
  flowId: FlowId;
  /** The library version the edits stand on. */
  base: number;
  doc: FlowDocument;
}

const keyOf = (flowId: FlowId) => `unsaved-edit:${flowId}`;

/**
 * Keep `edit` with one write, issued before this returns and committed at
 * once: for a page that is going away. Fire and forget: a page closing has
 * no one left to tell of a failure.
 */
export function stashUnsavedEdit(db: FlowbenchDb, edit: UnsavedEdit): void {
  const row = { key: keyOf(edit.flowId), value: { base: edit.base, doc: edit.doc } };
  if (!db.isOpen()) {
    // Not reached in the app (the open flow was read through `db`); a write
    // that waits for the database to open is the best left.
    void db.settings.put(row).catch(() => undefined);
    return;
  }
  const transaction = db.backendDB().transaction('settings', 'readwrite');
  transaction.objectStore('settings').put(row);
  transaction.commit();
}

/** The unsaved edit of `flowId`, removed from the store as it is read. */
export async function takeUnsavedEdit(
  db: FlowbenchDb,
  flowId: FlowId,
): Promise<UnsavedEdit | undefined> {
  const row = await db.transaction('rw', db.settings, async () => {
    const found = await db.settings.get(keyOf(flowId));
    if (found) await db.settings.delete(keyOf(flowId));
    return found;
  });
  const value = row?.value as { base?: unknown; doc?: unknown } | undefined;
  // Written by this page's code, maybe of an earlier release: a value that no longer fits is let go.
  const doc = flowDocumentSchema.safeParse(value?.doc);
  if (!doc.success || typeof value?.base !== 'number') return undefined;
  return { flowId, base: value.base, doc: doc.data };
}

/**
 * Forget the unsaved edit of `flowId` made on version `base`, once a save
 * holding it has landed (a page hidden, not closed, saves it after all). An
 * edit made on another version (another tab's) is kept.
 */
export async function dropUnsavedEdit(
  db: FlowbenchDb,
  flowId: FlowId,
  base: number,
): Promise<void> {
  await db.transaction('rw', db.settings, async () => {
    const found = await db.settings.get(keyOf(flowId));
    const value = found?.value as { base?: unknown } | undefined;
    if (value?.base === base) await db.settings.delete(keyOf(flowId));
  });
}
