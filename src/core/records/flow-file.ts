/**
 * The flow file format (`flowbench.flow/<n>`) as a record with migrations,
 * read through the same mechanism as run files. It has none yet: `/2` only
 * added `bypass`, and a `/1` document is a `/2` document without bypassed
 * nodes (the writer picks the oldest format that says everything, see
 * `flowFormatFor`). A future change adds a migration here with the `file`
 * version that introduces it, and a migration of the flow and run records
 * (whose `doc` and `flowSnapshot` hold a flow document) that calls it.
 */
import { flowDocumentSchema } from '../flow/document';
import { defineRecord, formatVersion, migrate, type RecordFields } from './migration';

export const FLOW_FILE = 'flowbench.flow';

export const flowDocumentRecord = defineRecord({
  name: 'flow document',
  schema: flowDocumentSchema,
  migrations: [],
});

/** A flow file of an earlier version brought to the current one; anything unreadable is left for the schema to name. */
export function upgradeFlowFile(input: unknown, kind = flowDocumentRecord): unknown {
  if (typeof input !== 'object' || input === null) return input;
  const version = formatVersion(FLOW_FILE, (input as RecordFields).format);
  if (version === undefined) return input;
  return migrate(
    input,
    kind.migrations.filter((m) => m.file !== undefined && m.file > version),
  );
}
