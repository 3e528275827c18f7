/**
 * The run list (table `runList`): one small entry per run, the projection
 * the lists of runs read instead of run rows (see `records/run-entry.ts`).
 *
 * Writes: `src/db/runs.ts` calls these inside its own transactions, so an
 * entry never disagrees with its run. Each write stamps the entries it
 * changes with the next revision (one past the greatest stored), and a
 * deletion bumps the list's epoch (a settings row), since a deleted entry
 * leaves no revision behind.
 *
 * Reads: `liveRunList` holds the whole list and, on each change, reads only
 * the entries whose revision is past the last it saw, so a status change costs
 * one entry read, not the table; only a deletion (a new epoch) reads it all
 * again. Trade-off: every write pays one index step to find the last revision.
 */
import { liveQuery } from 'dexie';
import { entryChanges, runEntryOf, type RunEntry } from '../core/run/run-entry';
import type { RunId, RunRow } from '../core/run/record';
import { Paced, perDb, SharedLive, type Live } from './live';
import type { FlowbenchDb } from './schema';

/** The settings row whose value changes whenever entries are deleted. */
const EPOCH_KEY = 'runList.epoch';

/** The list's revision: the greatest any entry holds (0 when empty). */
export async function listRevision(db: FlowbenchDb): Promise<number> {
  const [last] = await db.runList.orderBy('rev').reverse().limit(1).keys();
  return typeof last === 'number' ? last : 0;
}

async function nextRev(db: FlowbenchDb): Promise<number> {
  return (await listRevision(db)) + 1;
}

/** Write the entries of `runs` (new or rewritten whole); call inside a transaction over `runList`. */
export async function putRunEntries(db: FlowbenchDb, runs: readonly RunRow[]): Promise<void> {
  if (runs.length === 0) return;
  const rev = await nextRev(db);
  await db.runList.bulkPut(runs.map((run, i) => runEntryOf(run, rev + i)));
}

/**
 * Apply `changes` to run `id`'s entry, if they change anything it shows;
 * call inside a transaction over `runList`.
 */
export async function patchRunEntry(
  db: FlowbenchDb,
  id: RunId,
  changes: Partial<RunRow>,
): Promise<void> {
  const shown = entryChanges(changes);
  if (shown === null) return;
  await db.runList.update(id, { ...shown, rev: await nextRev(db) });
}

/** Delete the entries `ids`; call inside a transaction over `runList` and `settings`. */
export async function deleteRunEntries(db: FlowbenchDb, ids: readonly RunId[]): Promise<void> {
  await db.runList.bulkDelete(ids as RunId[]);
  const epoch = (await db.settings.get(EPOCH_KEY))?.value;
  await db.settings.put({ key: EPOCH_KEY, value: (typeof epoch === 'number' ? epoch : 0) + 1 });
}

/** Every entry, newest run first (ids are time-ordered). */
export function listRunEntries(db: FlowbenchDb): Promise<RunEntry[]> {
  return db.runList.reverse().toArray();
}

/** The entries changed since revision `rev` (every write past it). */
export function runEntriesSince(db: FlowbenchDb, rev: number): Promise<RunEntry[]> {
  return db.runList.where('rev').above(rev).toArray();
}

/** The entries of a sweep group. */
export function runEntriesOfGroup(db: FlowbenchDb, groupId: string): Promise<RunEntry[]> {
  return db.runList.where('groupId').equals(groupId).toArray();
}

/**
 * A list of run entries held in memory, brought up to date by the entries
 * changed since the last revision it saw; pure, so its rule is tested apart
 * from IndexedDB.
 */
export class RunListMirror {
  private readonly entries = new Map<RunId, RunEntry>();
  private list: readonly RunEntry[] = [];
  /** The greatest revision applied; -1 before the first read. */
  rev = -1;
  epoch: unknown = undefined;

  /** Replace everything with `all` (the first read, or after a deletion). */
  reset(all: readonly RunEntry[], epoch: unknown): void {
    this.entries.clear();
    this.rev = 0;
    this.epoch = epoch;
    this.apply(all);
    this.list = this.ordered();
  }

  /** Apply changed entries; returns whether any was applied (the list is a new array then). */
  apply(changed: readonly RunEntry[]): boolean {
    let any = false;
    for (const entry of changed) {
      const held = this.entries.get(entry.id);
      if (held && held.rev >= entry.rev) continue;
      this.entries.set(entry.id, entry);
      this.rev = Math.max(this.rev, entry.rev);
      any = true;
    }
    if (any) this.list = this.ordered();
    return any;
  }

  /** Every entry, newest run first; the same array until something changes. */
  get current(): readonly RunEntry[] {
    return this.list;
  }

  private ordered(): RunEntry[] {
    return [...this.entries.values()].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  }
}

/**
 * The whole run list, live: read once, then, on each change, only the
 * entries changed since (see the module comment). Every watcher of one
 * database shares one read and one list: the runs table, the storage line
 * and the charts' sweep picker each watching it read each change three
 * times, and a view opened later (the charts, as a row is selected) read the
 * whole list again; it now gets the list held, at once.
 */
export function liveRunList(db: FlowbenchDb): Live<readonly RunEntry[]> {
  return sharedLists(db);
}

const sharedLists = perDb((db: FlowbenchDb) => new SharedLive(() => runListRead(db)));

/**
 * The least time between two tellings of a changing list to its watchers:
 * a tenth of a millisecond per run listed, at most 100 ms. Drawing the list
 * costs its views more the more runs it holds; a short list is told at once.
 */
const spellOf = (list: readonly RunEntry[]) => Math.min(100, list.length / 10);

/** One live read of a database's run list: the whole list, then what changed, kept in a mirror. */
function runListRead(db: FlowbenchDb): Live<readonly RunEntry[]> {
  return {
    subscribe(observer) {
      const mirror = new RunListMirror();
      // One transaction for both reads: the list is read again after every write of a run, and
      // in a sweep each read's transactions cost the browser's storage thread more than its rows.
      const read = () =>
        db.transaction('r', db.settings, db.runList, async () => {
          const epoch = (await db.settings.get(EPOCH_KEY))?.value;
          if (mirror.rev < 0 || epoch !== mirror.epoch)
            return { epoch, all: true, entries: await db.runList.toArray() };
          return { epoch, all: false, entries: await runEntriesSince(db, mirror.rev) };
        });
      // A sweep changes the list many times a second; its watchers (the table, the charts'
      // sweep, the parallel coordinates) draw it at most once a spell (spellOf), a lone change
      // at once.
      const paced = new Paced<readonly RunEntry[]>(spellOf, (list) => observer.next?.(list));
      const subscription = liveQuery(read).subscribe({
        next: ({ epoch, all, entries }) => {
          if (all) mirror.reset(entries, epoch);
          else if (!mirror.apply(entries)) return;
          paced.give(mirror.current);
        },
        error: (error: unknown) => {
          paced.cancel();
          observer.error?.(error);
        },
      });
      return {
        unsubscribe: () => {
          paced.cancel();
          subscription.unsubscribe();
        },
      };
    },
  };
}
