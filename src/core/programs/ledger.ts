/**
 * The ledger: how the pools of several engines (one per browser tab) share
 * one budget.
 *
 * Idea: each engine keeps its own pool — its holds, its waits, its units —
 * but a pool with a ledger books every hold that takes bytes of the device
 * (a resident model, a loop's reservation, a one-shot step's peak) in the
 * ledger first, and the ledger grants it only if every engine's bookings
 * and this one fit the budget together. Bookings are coarse on purpose: a
 * loop books its weights, its optimizer state and one step's peak once,
 * when it starts, and its units draw their peak from that allowance, so
 * a step costs no booking. The ledger also tells the pool what the others
 * hold, so a request can say whom it waits for, and whether they still move
 * (a deadlock across tabs is one where nobody anywhere moves). Trade-off: a
 * loop holds its peak from first unit to last, where one engine alone could
 * let interleaved loops take turns with one peak.
 */

/** `model`: a resident model; `state`: a loop's reservation; `activation`: one step's peak. */
export type HoldKind = 'model' | 'state' | 'activation';

/** What a pool asks the ledger to book for one hold. */
export interface BookingRequest {
  readonly kind: HoldKind;
  readonly bytes: number;
  /** The holder's name: a request id or a model's label. */
  readonly holder: string;
  readonly label: string;
  /** The run and node the holder works for, when it works for one (shown to other tabs). */
  readonly run: string | null;
  readonly node: string | null;
}

/** A booking of another engine, as this one last read it. */
export interface ExternalBooking extends BookingRequest {
  /** The engine that holds it. */
  readonly engine: string;
}

/** One backend's share of the budget that several engines book against; see the module comment. */
export interface PoolLedger {
  /**
   * Books `request` if the bookings of every live engine and it fit
   * `budget` together; resolves with the booking's id, or null (booking
   * nothing) when they do not. Rejects when the booking cannot be written.
   */
  book(request: BookingRequest, budget: number): Promise<string | null>;
  /** Gives a booking back; harmless twice. Never throws (a booking left behind expires). */
  release(id: string): void;
  /** The other engines' live bookings, as last read. */
  readonly others: readonly ExternalBooking[];
  /** Counts every change of `others`. */
  readonly version: number;
  /** Resolves at the next change of `others`. */
  nextChange(): Promise<void>;
  /** Whether another engine that books on this backend moved lately (ran a unit, booked or released). */
  othersActive(): boolean;
  /** Told by the pool at every hold and release: it moved; `busy`, a unit runs now. */
  moved(busy: boolean): void;
}
