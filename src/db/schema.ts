/**
 * The IndexedDB schema (Dexie), shared by the UI and the engine worker.
 *
 * Each `version(n)` stays in this file forever: Dexie upgrades a profile
 * step by step from whatever version it has, so a person's runs survive
 * every release. Add a version; never edit an old one.
 */
import { Dexie, type EntityTable, type Table } from 'dexie';
import type { FlowDocument } from '../core/flow/document';
import type {
  ArtifactRow,
  FlowId,
  IntervalRow,
  MetricRow,
  RunId,
  RunNodeRow,
  RunRow,
} from '../core/run/record';

/** A flow in the library, autosaved as it is edited. */
export interface FlowRow {
  id: FlowId;
  name: string;
  doc: FlowDocument;
  /** Bumped on every saved change; a run records the version it ran. */
  version: number;
  updatedAt: string;
}

/** Small key-value settings that must survive a reload (e.g. the open flow). */
export interface SettingRow {
  key: string;
  value: unknown;
}

/** A file a person picked for a file param (an imported `.onnx` model), by its digest. */
export interface FileRow {
  /** `sha256:<hex>` of `bytes`; what the flow's param holds. */
  digest: string;
  /** The name it had when picked. */
  name: string;
  size: number;
  mediaType: string;
  bytes: Uint8Array;
  addedAt: string;
}

export interface IntervalRecord extends IntervalRow {
  id?: number;
}

export class FlowbenchDb extends Dexie {
  flows!: EntityTable<FlowRow, 'id'>;
  runs!: EntityTable<RunRow, 'id'>;
  runNodes!: Table<RunNodeRow, [RunId, string]>;
  metrics!: Table<MetricRow, [RunId, string, number]>;
  artifacts!: Table<ArtifactRow, [RunId, string]>;
  intervals!: EntityTable<IntervalRecord, 'id'>;
  settings!: EntityTable<SettingRow, 'key'>;
  files!: EntityTable<FileRow, 'digest'>;

  constructor(name = 'flowbench') {
    super(name);
    this.version(1).stores({
      flows: 'id, name, updatedAt',
      runs: 'id, flowId, status, groupId, createdAt',
      runNodes: '[runId+node], runId',
      metrics: '[runId+name+step], runId',
      artifacts: '[runId+name], runId',
      intervals: '++id, runId',
      settings: 'key',
    });
    // Files picked for file params (imported models), kept by digest.
    this.version(2).stores({ files: 'digest' });
  }
}
