/**
 * Crash-fuzzer scenarios: a pure function of a seed. A scenario is a list of
 * actions, each after a delay, over two or three tabs of one browser: start
 * runs and sweeps, and at random moments close a tab, terminate its engine
 * worker, reload it, cancel a run from another tab, or fill the storage quota.
 * The same seed always gives the same list, so a failing seed replays the
 * same actions (the browser's own timing still varies; that is what it hunts).
 *
 * The generator simulates which tabs are open and which still have an engine,
 * so that every action it emits can be carried out: runs start only from a tab
 * whose engine lives, and the last open tab is never closed.
 */
import { createRandom, type Random } from '../../../src/core/random';

/** A tab slot: 0, 1 or 2. A closed slot may be opened again as a new tab. */
export type TabSlot = number;

export type Action =
  /** Start one run of the default flow with these params. */
  | { kind: 'run'; tab: TabSlot; steps: number; lr: number }
  /** Start a sweep over `lrs` (one run each). */
  | { kind: 'sweep'; tab: TabSlot; steps: number; lrs: number[] }
  /** Close the tab (its engine dies with it). */
  | { kind: 'close'; tab: TabSlot }
  /** Open a new tab in a closed slot (a later visit). */
  | { kind: 'open'; tab: TabSlot }
  /** Terminate the tab's engine worker; the page stays, engineless. */
  | { kind: 'terminate'; tab: TabSlot }
  /** Reload the tab: a new page and a new engine. */
  | { kind: 'reload'; tab: TabSlot }
  /** In this tab, select the `pick`-th run row (modulo the rows shown) and cancel it if it can be. */
  | { kind: 'cancel'; tab: TabSlot; pick: number }
  /**
   * Force the origin's quota to what it uses and give it back `holdMs` later,
   * while the scenario goes on (Chromium refuses writes only once it renews
   * its figure of the room left, some 20 s after the quota is forced).
   */
  | { kind: 'quota'; tab: TabSlot; holdMs: number };

/** An action and how long to wait before it. */
export interface Step {
  /** Its place in the whole scenario (kept when the minimiser leaves steps out). */
  index: number;
  afterMs: number;
  action: Action;
}

export interface Scenario {
  seed: number;
  /** Tabs open at the start (slots 0 … tabs-1). */
  tabs: number;
  steps: Step[];
}

/**
 * Run lengths and learning rates: few values, so that runs share params and
 * can be compared. Most runs are short (a scenario stays short); a long one
 * is still running, or still queued behind it, when the faults come.
 */
const STEPS = [20, 60, 300] as const;
const LRS = [0.05, 0.1] as const;
/** The longest pause between two actions. */
const MAX_DELAY_MS = 2_500;

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function int(random: Random, below: number): number {
  return Math.floor(random() * below);
}

/**
 * Seeds `npm test` runs (e2e/fuzz.spec.ts): those the fuzzer found broken, once fixed, that
 * between them start runs and sweeps, close, kill, reload, cancel and fill (fuzz.test.ts checks
 * that they do). 5051: a run cancelled from a tab that reloads as it writes the request (no
 * nudge) ended `ok` before its driver read the request. 7008: right after a row was selected,
 * the run panel still showed the run selected before, and its export (and the toolbar's Cancel)
 * acted on that one. Seeds 229 and 16 (a short one) were dropped from the list, as every kind of
 * action they take is taken by these two.
 */
export const FIXED_SEEDS = [5051, 7008] as const;

/** The scenario of `seed` (a 32-bit integer). */
export function scenarioFor(seed: number): Scenario {
  const random = createRandom(seed);
  const tabs = 2 + int(random, 2);
  const open = new Set<TabSlot>(Array.from({ length: tabs }, (_, i) => i));
  const engineless = new Set<TabSlot>();
  const steps: Step[] = [];
  const delay = () => int(random, MAX_DELAY_MS);
  const any = (slots: Iterable<TabSlot>) => pick(random, [...slots]);
  const withEngine = () => [...open].filter((tab) => !engineless.has(tab));
  const startRun = (tab: TabSlot): Action =>
    random() < 0.25
      ? { kind: 'sweep', tab, steps: pick(random, STEPS), lrs: [...LRS] }
      : { kind: 'run', tab, steps: pick(random, STEPS), lr: pick(random, LRS) };

  // Work first, so that the faults have runs to hit.
  const first = 1 + int(random, 2);
  for (let i = 0; i < first; i++)
    steps.push({ index: steps.length, afterMs: delay(), action: startRun(any(open)) });

  const count = 4 + int(random, 4);
  for (let i = 0; i < count; i++) {
    const roll = random();
    const engines = withEngine();
    let action: Action;
    if (roll < 0.3 && engines.length > 0) action = startRun(any(engines));
    else if (roll < 0.45 && open.size > 1) {
      action = { kind: 'close', tab: any(open) };
      open.delete(action.tab);
      engineless.delete(action.tab);
    } else if (roll < 0.55 && open.size < 3) {
      const closed = [0, 1, 2].filter((tab) => !open.has(tab));
      action = { kind: 'open', tab: any(closed) };
      open.add(action.tab);
    } else if (roll < 0.67 && engines.length > 0) {
      action = { kind: 'terminate', tab: any(engines) };
      engineless.add(action.tab);
    } else if (roll < 0.79) {
      action = { kind: 'reload', tab: any(open) };
      engineless.delete(action.tab);
    } else if (roll < 0.92) action = { kind: 'cancel', tab: any(open), pick: int(random, 4) };
    else action = { kind: 'quota', tab: any(open), holdMs: 25_000 + int(random, 15_000) };
    steps.push({ index: steps.length, afterMs: delay(), action });
  }
  return { seed, tabs, steps };
}

/** One line per action, as printed with a failing seed. */
export function describeScenario({ seed, tabs, steps }: Scenario): string {
  const lines = steps.map(({ index, afterMs, action }) => {
    const { kind, tab, ...rest } = action;
    const args = Object.entries(rest)
      .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join(',') : String(value)}`)
      .join(' ');
    return `  #${index} +${afterMs} ms  ${kind} tab ${tab}${args ? ` ${args}` : ''}`;
  });
  return [`seed ${seed}: ${tabs} tabs`, ...lines].join('\n');
}
