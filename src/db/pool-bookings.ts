/**
 * Pool bookings: the bytes of the device pools' budget each engine (one per
 * tab) holds, so that the engines of every tab admit programs against one
 * budget (see `core/programs/ledger.ts`).
 *
 * Idea: a booking is granted in one read-write transaction that sums every
 * live booking of its backend and writes it only if the sum and it fit the
 * budget, so two engines booking at once are serialised by IndexedDB and can
 * never both get the last bytes. A booking is live while its engine is: the
 * engine renews its lease, and an engine that holds its Web Lock is alive
 * whatever its lease says (a starved tab keeps its bytes). A booking neither
 * vouches for counts for nothing and is deleted by the next transaction that
 * meets it, so a tab that dies mid-reservation leaves nothing booked beyond
 * its lease. Trade-off: liveness is read from the locks just before the
 * transaction (the lock query cannot run inside one); an engine that starts
 * in between is covered by its fresh lease, one that dies in between counts
 * until the next booking.
 */
import type { PoolBookingRow } from '../core/records/pool-booking';
import type { Backend } from '../core/runtime/tensor-runtime';
import type { FlowbenchDb } from './schema';

export type { PoolBookingRow };

/** Who vouches for bookings now. */
export interface Liveness {
  /** Epoch ms: a booking whose lease ends later counts. */
  readonly now: number;
  /** Engines that hold their Web Lock now: their bookings count whatever their lease. */
  readonly live: ReadonlySet<string>;
}

/** Whether `row` counts: it is `engine`'s own, its lease runs, or its engine holds its lock. */
function counts(row: PoolBookingRow, engine: string, liveness: Liveness): boolean {
  return row.engine === engine || row.leaseUntil > liveness.now || liveness.live.has(row.engine);
}

/** What a booking attempt found. */
export interface BookingAnswer {
  /** Whether the row was written. */
  readonly booked: boolean;
  /** The other engines' live bookings on the row's backend (after it, if it was booked). */
  readonly others: PoolBookingRow[];
}

/**
 * Books `row` (its engine's) in one transaction if every live booking on its
 * backend and it fit `budget` together; sweeps the dead ones it meets.
 */
export function bookIfRoom(
  db: FlowbenchDb,
  row: PoolBookingRow,
  budget: number,
  liveness: Liveness,
): Promise<BookingAnswer> {
  return db.transaction('rw', db.poolBookings, async () => {
    const rows = await db.poolBookings.where('backend').equals(row.backend).toArray();
    const alive = rows.filter((r) => counts(r, row.engine, liveness));
    const dead = rows.filter((r) => !alive.includes(r)).map((r) => r.id);
    if (dead.length > 0) await db.poolBookings.bulkDelete(dead);
    const others = alive.filter((r) => r.engine !== row.engine);
    const booked = alive.reduce((sum, r) => sum + r.bytes, 0) + row.bytes <= budget;
    if (booked) await db.poolBookings.put(row);
    return { booked, others };
  });
}

/** Gives a booking back; a booking already gone is no error. */
export async function releaseBooking(db: FlowbenchDb, id: string): Promise<void> {
  await db.poolBookings.delete(id);
}

/**
 * Renews `engine`'s bookings — their lease, and on each backend in `activeAt`
 * when it last moved — sweeps dead bookings, and returns the other engines'
 * live ones, on every backend: all in one transaction.
 */
export function renewBookings(
  db: FlowbenchDb,
  engine: string,
  renewal: { readonly leaseUntil: number; readonly activeAt: Partial<Record<Backend, number>> },
  liveness: Liveness,
): Promise<PoolBookingRow[]> {
  return db.transaction('rw', db.poolBookings, async () => {
    await db.poolBookings
      .where('engine')
      .equals(engine)
      .modify((row) => {
        row.leaseUntil = renewal.leaseUntil;
        row.activeAt = renewal.activeAt[row.backend] ?? row.activeAt;
      });
    const rows = await db.poolBookings.toArray();
    const dead = rows.filter((r) => !counts(r, engine, liveness)).map((r) => r.id);
    if (dead.length > 0) await db.poolBookings.bulkDelete(dead);
    return rows.filter((r) => r.engine !== engine && counts(r, engine, liveness));
  });
}

/** Every booking that counts now, of every engine (what the fuzzer and tests check). */
export async function liveBookings(db: FlowbenchDb, liveness: Liveness): Promise<PoolBookingRow[]> {
  const rows = await db.poolBookings.toArray();
  return rows.filter((r) => counts(r, '', liveness));
}
