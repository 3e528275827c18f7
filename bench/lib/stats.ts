/**
 * Trials and their summaries. Every comparison in the bench is measured as
 * alternating A/B trials in one process or page (A then B, then B then A, …),
 * after warm-ups, so drift in the machine (another process, a GC, thermal
 * state) falls on both sides alike. A trial returns one figure; a row reports
 * the median of its trials and the slow-tail p95.
 */

/** Sorted copy of the samples. */
function sorted(samples: readonly number[]): number[] {
  return [...samples].sort((a, b) => a - b);
}

/** The middle sample (mean of the two middle ones for an even count). */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const s = sorted(samples);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Nearest-rank percentile (`p` in 0–100); with few samples p95 is the worst sample. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const s = sorted(samples);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length, Math.max(1, rank)) - 1]!;
}

/**
 * The median of the pairs' ratios `a[i] / b[i]`, where `a` and `b` are the
 * trials `alternate` returned (pair i's A and B ran back to back). A ratio
 * taken within a pair sees the two sides under the same load, so a burst
 * from another process spoils the pairs it lands in, not the row; the
 * median over pairs then drops those few.
 */
export function medianPairRatio(a: readonly number[], b: readonly number[]): number {
  const pairs = Math.min(a.length, b.length);
  return median(Array.from({ length: pairs }, (_, i) => a[i]! / b[i]!));
}

/** A figure over trials: median, and p95 taken on the slow side. */
export interface Summary {
  median: number;
  /** The 95th percentile of slowness: the high tail of a time, the low tail of a rate. */
  p95: number;
  trials: number;
}

export function summarise(samples: readonly number[], lowerIsBetter: boolean): Summary {
  return {
    median: median(samples),
    p95: percentile(samples, lowerIsBetter ? 95 : 5),
    trials: samples.length,
  };
}

export interface AlternateOptions<T> {
  /** Trial of our side (A). */
  a: () => Promise<T>;
  /** Trial of the reference side (B). */
  b: () => Promise<T>;
  /** Untimed pairs first, to warm JIT, caches and pools. */
  warmups?: number;
  /** At least this many pairs, even past the budget. */
  minTrials: number;
  /** At most this many pairs. */
  maxTrials: number;
  /** Stop adding pairs (beyond `minTrials`) once this much wall time is spent. */
  budgetMs?: number;
  /** Runs before every trial, untimed (e.g. a GC, clearing a store). */
  before?: () => Promise<void> | void;
}

/** Alternating A/B trials: pair i runs A first when i is even, B first when odd. */
export async function alternate<T>(options: AlternateOptions<T>): Promise<{ a: T[]; b: T[] }> {
  const a: T[] = [];
  const b: T[] = [];
  const trial = async (side: 'a' | 'b', keep: boolean) => {
    await options.before?.();
    const result = await options[side]();
    if (keep) (side === 'a' ? a : b).push(result);
  };
  for (let i = 0; i < (options.warmups ?? 0); i++) {
    await trial('a', false);
    await trial('b', false);
  }
  const started = performance.now();
  for (let i = 0; i < options.maxTrials; i++) {
    const order = i % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const side of order) await trial(side, true);
    const spent = performance.now() - started;
    if (i + 1 >= options.minTrials && options.budgetMs !== undefined && spent > options.budgetMs)
      break;
  }
  return { a, b };
}
