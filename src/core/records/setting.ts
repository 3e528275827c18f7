/**
 * The setting record (table `settings`): a small value that must survive a
 * reload (the open flow, the chosen backend), by key. The value's type is
 * the business of the code that owns the key.
 */
import { z } from '../schema';
import { defineRecord } from './migration';

export const settingRowSchema = z.object({ key: z.string(), value: z.unknown() });
/** Small key-value settings that must survive a reload (e.g. the open flow). */
export type SettingRow = z.output<typeof settingRowSchema>;

export const settingRecord = defineRecord({
  name: 'setting',
  schema: settingRowSchema,
  migrations: [],
});
