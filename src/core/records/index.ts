/**
 * Every stored record, by the Dexie table that holds it: the list the
 * database upgrade and the file importers both take. A test may pass another
 * list (with one more migration) to show that both paths apply it.
 */
import { artifactRecord } from './artifact';
import { fileRecord } from './file';
import { flowRecord } from './flow';
import { intervalRecord } from './interval';
import { metricRecord } from './metric';
import { nodeCacheRecord } from './node-cache';
import type { RecordKind } from './migration';
import { poolBookingRecord } from './pool-booking';
import { runRecord } from './run';
import { runEntryRecord } from './run-entry';
import { runNodeRecord } from './run-node';
import { settingRecord } from './setting';

export const storedRecords = {
  flows: flowRecord,
  runs: runRecord,
  runNodes: runNodeRecord,
  metrics: metricRecord,
  artifacts: artifactRecord,
  intervals: intervalRecord,
  settings: settingRecord,
  files: fileRecord,
  poolBookings: poolBookingRecord,
  runList: runEntryRecord,
  nodeCache: nodeCacheRecord,
} as const satisfies Record<string, RecordKind>;

/** The record list, by table; the shape every consumer of `storedRecords` accepts. */
export type StoredRecords = { readonly [T in keyof typeof storedRecords]: RecordKind };
export type StoredTable = keyof typeof storedRecords;
