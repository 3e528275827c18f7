/**
 * Record versions and their migrations: one list per stored record, used by
 * both the database upgrade and the file importers.
 *
 * A record (a run, a node outcome, a flow row …) has one zod schema, the
 * current one, and a list of migrations, each a pure function that brings
 * a record one version forward (`to - 1 → to`). A migration says where the
 * change appears: `db`, the Dexie version whose `upgrade()` applies it to the
 * rows a browser already holds; and `file`, for a record that travels in a
 * file, the file format version from which files carry it, so an older file
 * gets the same function on import. One function for both paths means an old
 * database and an old file can never come out different.
 *
 * Old versions keep no schema of their own: old data is migrated first and
 * then checked once against the current schema (as tldraw does). So a
 * migration runs on data not yet checked and must only add or rewrite its
 * own fields, never trust the others.
 */
import { z } from '../schema';

/** A record's fields as storage or a file holds them, before they are checked. */
export type RecordFields = Record<string, unknown>;

/** One step of a record's history. */
export interface Migration {
  /** The record version it produces; it reads version `to - 1`. */
  readonly to: number;
  /** The Dexie version whose `upgrade()` applies it to stored rows. */
  readonly db: number;
  /** The file format version from which files hold the record at `to`; absent when files never carry what changed. */
  readonly file?: number;
  /** What changed, in a sentence (for docs/records.md and for a reader of the list). */
  readonly change: string;
  /** Pure: the record at version `to`, from the record at `to - 1`. */
  readonly up: (record: RecordFields) => RecordFields;
  /**
   * For a migration that changes how many rows a record takes (metric points
   * into chunks of a series): given rows already through `up`, in key order,
   * the rows that replace them. Each row it returns must have the key of one
   * of the rows it was given, so the database upgrade can rewrite a table in
   * key-ordered pages. Pure, like `up`; the rows are not checked yet.
   */
  readonly regroup?: (records: RecordFields[]) => RecordFields[];
}

/** A stored record: its current schema and the migrations that lead to it. */
export interface RecordKind<S extends z.ZodMiniType = z.ZodMiniType> {
  /** In the product's words, for messages: "run", "metric point". */
  readonly name: string;
  readonly schema: S;
  readonly migrations: readonly Migration[];
}

/** The record's current version: 1, plus one per migration. */
export function recordVersion(kind: RecordKind): number {
  return kind.migrations.length + 1;
}

/**
 * A record kind whose migrations are numbered in order (`to` = 2, 3, …) and
 * whose database and file versions never go back; throws when they are not,
 * so a misnumbered list fails every test instead of one browser.
 */
export function defineRecord<S extends z.ZodMiniType>(kind: RecordKind<S>): RecordKind<S> {
  let db = 0;
  let file = 0;
  kind.migrations.forEach((m, i) => {
    const where = `${kind.name} migration to v${m.to}`;
    if (m.to !== i + 2) throw new Error(`${where}: expected to be v${i + 2}`);
    if (m.db < db) throw new Error(`${where}: database version ${m.db} goes back from ${db}`);
    if (m.file !== undefined && m.file < file)
      throw new Error(`${where}: file version ${m.file} goes back from ${file}`);
    db = m.db;
    file = m.file ?? file;
  });
  return kind;
}

/** Apply `migrations` in order; a value that is not an object is left for the schema to refuse. */
export function migrate(value: unknown, migrations: readonly Migration[]): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return migrations.reduce<RecordFields>((record, m) => m.up(record), value as RecordFields);
}

/** The migrations of `kind` that Dexie version `db` applies. */
export function migrationsAtDb(kind: RecordKind, db: number): Migration[] {
  return kind.migrations.filter((m) => m.db === db);
}

/** The newest file format version any migration of `kinds` names (1 when none does). */
export function latestFileVersion(kinds: readonly RecordKind[]): number {
  return Math.max(1, ...kinds.flatMap((k) => k.migrations.map((m) => m.file ?? 1)));
}

/** The newest Dexie version any migration of `kinds` names (0 when none does). */
export function latestDbVersion(kinds: readonly RecordKind[]): number {
  return Math.max(0, ...kinds.flatMap((k) => k.migrations.map((m) => m.db)));
}

/** The version a `format` field names (`"flowbench.run/2"` → 2), or undefined. */
export function formatVersion(name: string, format: unknown): number | undefined {
  if (typeof format !== 'string' || !format.startsWith(`${name}/`)) return undefined;
  const version = Number(format.slice(name.length + 1));
  return Number.isInteger(version) && version >= 1 ? version : undefined;
}
