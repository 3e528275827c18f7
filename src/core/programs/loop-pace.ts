/**
 * How many units of a loop go over in one message to where its model runs.
 *
 * Idea: a hop to the model worker and back costs about the same whatever it
 * carries, so a message should carry enough units to pay for it, and few
 * enough that a cancel (seen between two messages where no shared flag
 * stops a loop between its steps) and the run's progress still arrive
 * promptly. The pace sends one unit first, to measure one, then as many as
 * fill `targetMs` at the rate measured so far (a running mean that follows
 * the machine's load), never more than `cancelMs` worth nor `maxUnits`.
 * Trade-off: the first message is a single unit, paid with a hop of its own.
 */

export interface LoopPaceOptions {
  /** The work one message should carry, in ms; default 75. */
  readonly targetMs?: number;
  /** The most work one message may carry, in ms (how late a cancel may land); default 100. */
  readonly cancelMs?: number;
  /** The most units in one message; default 256. */
  readonly maxUnits?: number;
}

/** What the pace chose, for the node's log and the bench's note. */
export interface LoopPaceSummary {
  readonly messages: number;
  readonly minUnits: number;
  readonly maxUnits: number;
  /** Units per message over all messages. */
  readonly meanUnits: number;
  /** The work of a message, on average, in ms. */
  readonly meanMs: number;
}

/** The size of each message of a loop; see the module comment. */
export class LoopPace {
  private readonly targetMs: number;
  private readonly cancelMs: number;
  private readonly maxUnits: number;
  private msPerUnit: number | null = null;
  private messages = 0;
  private units = 0;
  private ms = 0;
  private smallest = Number.POSITIVE_INFINITY;
  private largest = 0;

  constructor(options: LoopPaceOptions = {}) {
    this.targetMs = options.targetMs ?? 75;
    this.cancelMs = Math.max(this.targetMs, options.cancelMs ?? 100);
    this.maxUnits = Math.max(1, Math.floor(options.maxUnits ?? 256));
  }

  /** Units for the next message, when `left` units remain (0 when none do). */
  next(left: number): number {
    if (left <= 0) return 0;
    if (this.msPerUnit === null) return 1;
    const per = Math.max(this.msPerUnit, 1e-3);
    const wanted = Math.round(this.targetMs / per);
    const most = Math.max(1, Math.floor(this.cancelMs / per));
    return Math.max(1, Math.min(wanted, most, this.maxUnits, left));
  }

  /** A message's `units` took `ms` where they ran. */
  record(units: number, ms: number): void {
    if (units <= 0 || !Number.isFinite(ms) || ms < 0) return;
    const per = ms / units;
    // Half the weight on the newest message: a loaded machine shows within two messages.
    this.msPerUnit = this.msPerUnit === null ? per : (this.msPerUnit + per) / 2;
    this.messages++;
    this.units += units;
    this.ms += ms;
    this.smallest = Math.min(this.smallest, units);
    this.largest = Math.max(this.largest, units);
  }

  summary(): LoopPaceSummary {
    const n = Math.max(1, this.messages);
    return {
      messages: this.messages,
      minUnits: this.messages === 0 ? 0 : this.smallest,
      maxUnits: this.largest,
      meanUnits: this.units / n,
      meanMs: this.ms / n,
    };
  }
}
