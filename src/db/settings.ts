/**
 * A person's settings that survive a reload, kept in the settings table
 * (key → value): every setting there is, with its stored key and the type
 * of its value, in one place.
 *
 * Idea: a stored value was written by some earlier release or another tab,
 * so it is read through its setting's check, and a value that no longer
 * fits reads as not set (the default applies) instead of reaching the app.
 */
import { backendChoices, type Backend, type BackendChoice } from '../core/runtime/tensor-runtime';
import type { FlowId } from '../core/run/record';
import type { FlowbenchDb } from './schema';

/** The device pools' budgets in bytes, by backend; a backend left out has the default. */
export type PoolBudgets = Partial<Record<Backend, number>>;

/** Every setting, by name, with the type of its value. */
export interface Settings {
  /** The library flow open in the editor, reopened after a reload. */
  openFlow: FlowId;
  /** The backend new runs ask for. */
  backend: BackendChoice;
  /** The device pools' budgets the person set (the engine reads them when it starts). */
  poolBudgets: PoolBudgets;
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
