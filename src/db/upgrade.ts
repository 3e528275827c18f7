/**
 * Dexie `upgrade()` steps made from the record migrations: for database
 * version n, every migration whose `db` is n runs on every row of its table,
 * in the versionchange transaction. The step that brings a record to its
 * current version also checks each row against the record's schema; a row
 * that fails aborts the upgrade whole, so the database stays as it was
 * (readable by the release that wrote it) and the error names the row and
 * field (`bad-stored-record`), instead of a bad row reaching code that
 * trusts its type.
 */
import type { Table, Transaction } from 'dexie';
import { FlowbenchError } from '../core/errors';
import { describeIssues, issuesFromZod } from '../core/flow/issues';
import { migrate, migrationsAtDb, recordVersion, type RecordKind } from '../core/records/migration';

/** At most this many bad rows are named in one error. */
const NAMED_ROWS = 5;

/** The tables `upgrade()` at database version `db` must rewrite, with their migrations. */
export function upgradesAt(
  records: Readonly<Record<string, RecordKind>>,
  db: number,
): { table: string; kind: RecordKind }[] {
  return Object.entries(records)
    .filter(([, kind]) => migrationsAtDb(kind, db).length > 0)
    .map(([table, kind]) => ({ table, kind }));
}

/** Run the migrations of database version `db` on `table`'s rows, checking those it brings up to date. */
async function upgradeTable(table: Table, kind: RecordKind, db: number): Promise<void> {
  const migrations = migrationsAtDb(kind, db);
  const current = migrations.at(-1)?.to === recordVersion(kind);
  const bad: string[] = [];
  await table.toCollection().modify((row: unknown, ref: { value: unknown }) => {
    const next = migrate(row, migrations);
    if (current) {
      const checked = kind.schema.safeParse(next);
      if (!checked.success) {
        const issues = describeIssues(issuesFromZod(checked.error));
        bad.push(`${JSON.stringify(keyOf(table, next))}: ${issues}`);
        return;
      }
    }
    ref.value = next;
  });
  if (bad.length > 0)
    throw new FlowbenchError('bad-stored-record', {
      record: kind.name,
      table: table.name,
      db,
      count: bad.length,
      rows: bad.slice(0, NAMED_ROWS),
    });
}

function keyOf(table: Table, row: unknown): unknown {
  const path = table.schema.primKey.keyPath;
  const fields = row as Record<string, unknown>;
  return Array.isArray(path) ? path.map((p) => fields[p]) : path ? fields[path] : undefined;
}

/** The `upgrade()` function of database version `db`. */
export function upgradeFor(
  records: Readonly<Record<string, RecordKind>>,
  db: number,
): (tx: Transaction) => Promise<void> {
  return async (tx) => {
    for (const { table, kind } of upgradesAt(records, db))
      await upgradeTable(tx.table(table), kind, db);
  };
}
