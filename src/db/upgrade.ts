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
import type { IndexableType, Table, Transaction } from 'dexie';
import { FlowbenchError } from '../core/errors';
import { describeIssues, issuesFromZod } from '../core/flow/issues';
import {
  migrate,
  migrationsAtDb,
  recordVersion,
  type Migration,
  type RecordFields,
  type RecordKind,
} from '../core/records/migration';

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

/** Rows read per page when a migration regroups a table's rows. */
const REGROUP_PAGE = 16_384;

/** Run the migrations of database version `db` on `table`'s rows, checking those it brings up to date. */
async function upgradeTable(table: Table, kind: RecordKind, db: number): Promise<void> {
  const migrations = migrationsAtDb(kind, db);
  const current = migrations.at(-1)?.to === recordVersion(kind);
  const bad: string[] = [];
  const check = (next: unknown): boolean => {
    if (!current) return true;
    const checked = kind.schema.safeParse(next);
    if (checked.success) return true;
    const issues = describeIssues(issuesFromZod(checked.error));
    bad.push(`${JSON.stringify(keyOf(table, next))}: ${issues}`);
    return false;
  };
  if (migrations.some((m) => m.regroup)) await regroupTable(table, migrations, check);
  else
    await table.toCollection().modify((row: unknown, ref: { value: unknown }) => {
      const next = migrate(row, migrations);
      if (check(next)) ref.value = next;
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

/**
 * Rewrite `table` page by page in key order: each page's rows through the
 * migrations (`up` on each row, then `regroup` on the page), the page's rows
 * deleted and what they became put back. A regrouped row keeps the key of a
 * row of its page, so the next page, read past the page's last key, never
 * sees it again. Memory stays one page, however big the table.
 */
async function regroupTable(
  table: Table,
  migrations: readonly Migration[],
  check: (row: unknown) => boolean,
): Promise<void> {
  let after: IndexableType | undefined;
  for (;;) {
    const page: unknown[] = await (
      after === undefined ? table.orderBy(':id') : table.where(':id').above(after)
    )
      .limit(REGROUP_PAGE)
      .toArray();
    if (page.length === 0) return;
    after = keyOf(table, page.at(-1)) as IndexableType;
    let rows = page.map((row) => migrate(row, migrations) as RecordFields);
    for (const m of migrations) if (m.regroup) rows = m.regroup(rows);
    await table.bulkDelete(page.map((row) => keyOf(table, row) as IndexableType));
    await table.bulkPut(rows.filter(check));
  }
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
