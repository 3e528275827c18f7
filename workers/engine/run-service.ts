/**
 * The run service: this engine's share of the browser's one run queue.
 *
 * The queue is the runs table itself. A run waits there `queued` until an
 * engine — the one of any open Flowbench tab — claims it, so a run outlives
 * the tab that submitted it: close that tab mid-sweep and another tab (or the
 * next visit) runs the rest. An engine takes the oldest queued run it can
 * serve and leaves the ones it cannot (a run that requires WebGPU, on an
 * engine without an adapter) with the reason on their record, for an engine
 * that can; the claim is one compare-and-swap transaction
 * (`claimNextRun`), so two engines taking at once get different runs.
 *
 * At most `maxActive` runs execute at once in the whole browser profile, not
 * per tab. The limit is a set of `maxActive` slots, each a Web Lock
 * (`flowbench.slot.<i>`) that every tab and worker of the origin shares: an
 * engine takes a slot only when it is free, claims a run inside it, and holds
 * it until the run ends. The browser frees a closed tab's locks at once, so
 * its slots pass on with no lease to wait out, while a starved but living
 * engine keeps them, as it keeps its runs. The trade-off: the limit lives in
 * the lock manager, not in the records, so it holds within one browser
 * profile — which is also all that one IndexedDB spans.
 *
 * When to look at the queue: when this tab journals runs (the UI asks), when
 * one of this engine's runs ends (its slot is free), on start-up, on a nudge
 * from another engine, and every few seconds as a safety net. An engine whose
 * own look leaves runs queued nudges the others (the entry file's
 * BroadcastChannel); a nudged engine never nudges back. So a run is driven by
 * the tab that submitted it whenever that tab can take it, and by any other
 * when it cannot.
 *
 * Cancel goes through the record too: any tab writes a cancel request into a
 * running run (`requestCancel`); the driver reads it at each lease renewal,
 * and a nudge (`cancelRequested`) makes the engine driving it look at once.
 * A nudge that arrives between the claim and the moment the engine counts the
 * run as driven finds nothing to stop, so the engine also reads the record
 * once as it starts driving.
 */
import type { BackendChoice, EngineInfo } from '../../src/core/runtime/tensor-runtime';
import type { RunId, RunRow, RunStatus } from '../../src/core/run/record';
import type { RunFingerprint } from '../../src/core/run/fingerprint';
import { missingDevice, waitingReason } from '../../src/core/run/devices';
import {
  anyRunQueued,
  cancelRequested,
  claimNextRun,
  sayWhyRunsWait,
  type QueueReader,
} from '../../src/db/runs';
import {
  claimChanges,
  driveClaimedRun,
  engineOf,
  LEASE_MS,
  type RunDriverOptions,
} from './run-driver';

export interface RunServiceOptions extends Omit<
  RunDriverOptions,
  'runtimeFor' | 'onProgress' | 'onLive' | 'onStorageFailure' | 'onStorageStall'
> {
  engineInfo(): Promise<EngineInfo>;
  runtimeFor(choice: BackendChoice, info: EngineInfo): ReturnType<RunDriverOptions['runtimeFor']>;
  onProgress(runId: RunId, node: string, done: number, total: number, perSecond?: number): void;
  onLive?(runId: RunId, node: string, port: string, value: number): void;
  /** A write of the run's record failed and the run is being stopped (see run-ending.ts). */
  onStorageFailure?(runId: RunId, reason: string): void;
  /** The run's writes wait on storage that does not answer (see storage-watch.ts); `null`: they answer again. */
  onStorageStall?(runId: RunId, waitedMs: number | null): void;
  /** A run this engine drove has ended, its record closed with `status`. */
  onFinished?(runId: RunId, status: RunStatus): void;
  /** Driving a run failed outside its record (most often: its ending could not be stored yet). */
  onFailed?(runId: RunId, error: unknown): void;
  /** Hold `name` while `body` runs (Web Locks in the browser). */
  withLock<T>(name: string, body: () => Promise<T>): Promise<T>;
  /** Hold `name` while `body` runs if nobody holds it; null, without running `body`, if somebody does. */
  tryLock<T>(name: string, body: () => Promise<T>): Promise<{ value: T } | null>;
  /** Tell the other engines that runs wait in the queue. */
  announce?(): void;
  /** Runs at once in the whole browser (default `MAX_ACTIVE_RUNS`). */
  maxActive?: number;
}

/** How many runs execute at once, across every tab of the browser. */
export const MAX_ACTIVE_RUNS = 2;

export function runLockName(runId: RunId): string {
  return `flowbench.run.${runId}`;
}

/** The Web Lock of run slot `slot` (0 … maxActive-1). */
export function slotLockName(slot: number): string {
  return `flowbench.slot.${slot}`;
}

/** What became of one try at a slot. */
type SlotOutcome = 'busy' | 'nothing-to-serve' | { run: RunRow; othersQueued: boolean };

/** A look at the queue waiting for the one in progress to finish. */
interface NextLook {
  announce: boolean;
  result: Promise<RunId[]>;
}

export class RunService {
  private readonly driving = new Map<RunId, AbortController>();
  /** Slots this engine holds, each for a run it drives. */
  private readonly slots = new Set<number>();
  /** Each try at a slot, until the slot is given back (and the next look asked for). */
  private readonly slotLives = new Set<Promise<void>>();
  private looks: Promise<unknown> = Promise.resolve();
  private next: NextLook | null = null;
  /** The run list's revision when this engine last wrote why runs wait, and what it could serve then. */
  private reasons: { hasAdapter: boolean; since: number } | null = null;
  /** The fingerprints made for the engine state last asked about (`printOf`). */
  private prints: {
    info: EngineInfo;
    byChoice: Map<BackendChoice, Promise<RunFingerprint>>;
  } | null = null;

  constructor(private readonly options: RunServiceOptions) {}

  /**
   * Look at the queue: while a slot is free, claim the oldest queued run this
   * engine can serve and start driving it. Resolves with the runs it took
   * (they go on running). Looks asked for while one is in progress make one
   * more look after it. With `announce`, runs left queued are told to the
   * other engines; a look that a nudge from another engine asked for passes
   * false, so engines never nudge each other in circles.
   */
  take({ announce }: { announce: boolean }): Promise<RunId[]> {
    if (this.next) {
      this.next.announce ||= announce;
      return this.next.result;
    }
    const next: NextLook = { announce, result: Promise.resolve([]) };
    next.result = this.looks.then(() => {
      this.next = null;
      return this.look(next.announce);
    });
    this.next = next;
    this.looks = next.result.catch(() => undefined);
    return next.result;
  }

  /**
   * A tab asked to cancel `runId`: when this engine drives it and its record
   * holds the request, stop it. Resolves with whether it did.
   */
  async cancelRequested(runId: RunId): Promise<boolean> {
    const controller = this.driving.get(runId);
    if (!controller || !(await cancelRequested(this.options.db, runId))) return false;
    controller.abort();
    return true;
  }

  /** The runs this engine drives now. */
  drivenRuns(): RunId[] {
    return [...this.driving.keys()];
  }

  /** Resolves once this engine drives nothing and looks at nothing (for tests). */
  async settled(): Promise<void> {
    while (this.slotLives.size > 0 || this.next) {
      await Promise.all(this.slotLives);
      await this.looks;
    }
  }

  private async look(announce: boolean): Promise<RunId[]> {
    const { db } = this.options;
    if (!(await anyRunQueued(db))) return [];
    const info = await this.options.engineInfo();
    const hasAdapter = info.adapter !== null;
    const cannotServe: QueueReader = (run) => {
      const missing = missingDevice(run.requires, hasAdapter);
      return missing ? waitingReason(missing) : null;
    };
    const known = await this.knownOfRuns(info);
    const taken: RunId[] = [];
    // After a claim, another slot is tried only while runs wait (the claim read whether others
    // do): a claim is a write over the run tables, and one that found nothing held the run just
    // started behind it.
    let waiting = true;
    for (let slot = 0; slot < (this.options.maxActive ?? MAX_ACTIVE_RUNS) && waiting; slot++) {
      if (this.slots.has(slot)) continue;
      const outcome = await this.trySlot(slot, cannotServe, known);
      if (outcome === 'nothing-to-serve') break;
      if (outcome === 'busy') continue;
      taken.push(outcome.run.id);
      waiting = outcome.othersQueued;
    }
    // Nothing waits: no reason to say, nobody to tell.
    if (!waiting) return taken;
    // A run nobody here can serve says why it waits, even while every slot is taken. Only
    // what changed since the last look is read (all of the queue when what it can serve changes).
    if (this.reasons?.hasAdapter !== hasAdapter) this.reasons = { hasAdapter, since: -1 };
    this.reasons.since = await sayWhyRunsWait(db, cannotServe, this.reasons.since);
    if (announce && (await anyRunQueued(db))) this.options.announce?.();
    return taken;
  }

  /**
   * Take slot `slot` if it is free and claim a run in it; the slot is held
   * until that run ends, and then the queue is looked at again.
   */
  private trySlot(
    slot: number,
    cannotServe: QueueReader,
    known: (run: RunRow) => Partial<RunRow>,
  ): Promise<SlotOutcome> {
    const { db, now } = this.options;
    return new Promise<SlotOutcome>((resolve, reject) => {
      let drove = false;
      const held = this.options.tryLock(slotLockName(slot), async () => {
        const claim = claimChanges(now(), this.options.leaseMs ?? LEASE_MS);
        // A failed claim rejects `held`, and so this try.
        const claimed = await claimNextRun(db, cannotServe, (run) => ({ ...claim, ...known(run) }));
        if (claimed === undefined) {
          resolve('nothing-to-serve');
          return;
        }
        drove = true;
        this.slots.add(slot);
        resolve(claimed);
        await this.drive(claimed.run);
        this.slots.delete(slot);
      });
      // Once the slot is given back after a run, there may be more to take.
      const life = held.then((got) => {
        if (got === null) resolve('busy');
        else if (drove) void this.take({ announce: true }).catch(() => undefined);
      }, reject);
      this.slotLives.add(life);
      void life.then(() => this.slotLives.delete(life));
    });
  }

  /**
   * What a run claimed now will say it runs on (its `engine` and
   * `fingerprint`), written with the claim: otherwise the driver writes them
   * as the run starts, a second write of the whole run row, flow and
   * fingerprint, for every run of a sweep.
   */
  private async knownOfRuns(info: EngineInfo): Promise<(run: RunRow) => Partial<RunRow>> {
    const { fingerprint } = this.options;
    const byChoice = new Map<BackendChoice, RunFingerprint>();
    // One that cannot be made is left to the driver, which asks for it again as the run starts.
    if (fingerprint)
      for (const choice of ['auto', 'wasm', 'webgpu'] as const) {
        const print = await this.printOf(fingerprint, info, choice).catch(() => undefined);
        if (print) byChoice.set(choice, print);
      }
    return (run) => {
      const print = byChoice.get(run.backendChoice);
      return { engine: engineOf(run.backendChoice, info), ...(print && { fingerprint: print }) };
    };
  }

  /**
   * The fingerprint of a run with backend choice `choice` on engine state
   * `info`, made once per state and choice: the claim and the driver ask for
   * the same one. One that could not be made is made again when next asked.
   */
  private printOf(
    fingerprint: NonNullable<RunServiceOptions['fingerprint']>,
    info: EngineInfo,
    choice: BackendChoice,
  ): Promise<RunFingerprint> {
    if (this.prints?.info !== info) this.prints = { info, byChoice: new Map() };
    const { byChoice } = this.prints;
    let print = byChoice.get(choice);
    if (!print) {
      const made = fingerprint(choice);
      made.catch(() => byChoice.get(choice) === made && byChoice.delete(choice));
      byChoice.set(choice, made);
      print = made;
    }
    return print;
  }

  private async drive(run: RunRow): Promise<void> {
    const controller = new AbortController();
    this.driving.set(run.id, controller);
    const runId = run.id;
    // A cancel request written between the claim and this moment found no driver to nudge:
    // read the record once now, so it lands at once rather than at the next lease renewal
    // (and one the claim read stops the run before its first node).
    if (run.cancelRequestedAt !== null) controller.abort();
    void cancelRequested(this.options.db, runId).then(
      (asked) => asked && controller.abort(),
      () => undefined,
    );
    try {
      const info = await this.options.engineInfo();
      const { fingerprint } = this.options;
      const status = await this.options.withLock(runLockName(runId), () =>
        driveClaimedRun(run, controller.signal, {
          ...this.options,
          ...(fingerprint && { fingerprint: (choice) => this.printOf(fingerprint, info, choice) }),
          runtimeFor: (choice) => this.options.runtimeFor(choice, info),
          onProgress: (node, done, total, perSecond) =>
            this.options.onProgress(runId, node, done, total, perSecond),
          onLive: (node, port, value) => this.options.onLive?.(runId, node, port, value),
          onStorageFailure: (reason) => this.options.onStorageFailure?.(runId, reason),
          onStorageStall: (waitedMs) => this.options.onStorageStall?.(runId, waitedMs),
        }),
      );
      this.options.onFinished?.(runId, status);
    } catch (error) {
      this.options.onFailed?.(runId, error);
    } finally {
      this.driving.delete(runId);
    }
  }
}
