/**
 * The wait intervals of a run as timeline lanes: one lane per kind of wait
 * (`data_wait`, `quota_wait`, `usage_throttle` …), each a row of bars over
 * the seconds since the run started, with its count and total time in words.
 *
 * Time, not steps, is the lane's axis: many waits happen where no step does
 * (the first generation lands before training's first step), and a wait is a
 * span of time by nature. Lanes of documented kinds come first, in the order
 * the data engine documents them; any other kind follows by name.
 */
import { formatValue } from './summary';

/** One recorded wait; times in epoch seconds. */
export interface WaitSpan {
  readonly kind: string;
  readonly start: number;
  readonly end: number;
}

/** One kind's lane. Bars are in seconds since the timeline's origin. */
export interface TimelineLane {
  readonly kind: string;
  readonly bars: readonly { readonly start: number; readonly end: number }[];
  readonly count: number;
  /** Seconds spent waiting, summed over the lane's intervals. */
  readonly total: number;
}

/** Every lane, over `[0, span]` seconds since `origin`. */
export interface Timeline {
  readonly lanes: readonly TimelineLane[];
  readonly span: number;
}

/** The order lanes of documented kinds come in. */
const documentedKinds = ['data_wait', 'quota_wait', 'usage_throttle'];

function rank(kind: string): number {
  const i = documentedKinds.indexOf(kind);
  return i < 0 ? documentedKinds.length : i;
}

/**
 * The lanes of `intervals`, timed from `origin` (epoch seconds; the run's
 * start, or the earliest interval when not given), spanning at least to
 * `until` (epoch seconds, e.g. the run's end) and to the last interval's end.
 */
export function buildTimeline(
  intervals: readonly WaitSpan[],
  origin?: number,
  until?: number,
): Timeline {
  const from = origin ?? Math.min(...intervals.map((i) => i.start));
  const byKind = new Map<string, { start: number; end: number }[]>();
  let span = until !== undefined ? until - from : 0;
  for (const { kind, start, end } of intervals) {
    const bar = { start: start - from, end: Math.max(start, end) - from };
    span = Math.max(span, bar.end);
    const bars = byKind.get(kind) ?? [];
    bars.push(bar);
    byKind.set(kind, bars);
  }
  const lanes = [...byKind.entries()]
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([kind, bars]) => ({
      kind,
      bars,
      count: bars.length,
      total: bars.reduce((sum, b) => sum + (b.end - b.start), 0),
    }));
  return { lanes, span: Number.isFinite(span) ? Math.max(0, span) : 0 };
}

/** `3 intervals · 1.25 s waiting in all` */
export function formatLaneSummary(lane: TimelineLane): string {
  const intervals = `${String(lane.count)} ${lane.count === 1 ? 'interval' : 'intervals'}`;
  return `${intervals} · ${formatValue(lane.total)} s waiting in all`;
}
