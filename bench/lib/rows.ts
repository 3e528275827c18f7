/**
 * Rows of the bench table: our figure beside a reference measured in the
 * same run, their ratio, the issue's target and whether it is met. A row
 * never asserts; a missed target is printed as missed with its figure, and
 * a row that could not be measured says why instead of guessing a number.
 */
import { writeFile } from 'node:fs/promises';
import { medianPairRatio, summarise } from './stats';

/** One row, as printed and as written to `bench/results.json`. */
export interface BenchRow {
  name: string;
  /** Our figure: the median over trials, in `unit`; null when not measured. */
  value: number | null;
  unit: string;
  /** The reference figure from the same run, in `unit`; null when the row has none. */
  reference: number | null;
  /**
   * `value / reference`, or for a paired row the median of the pairs' own
   * ratios (its note says so); read its direction from the unit (time: lower
   * is better).
   */
  ratio: number | null;
  target: string;
  /** Whether the target is reached; null when the row has no target or was not measured. */
  met: boolean | null;
  /** Slow-tail p95 of our figure over trials. */
  p95?: number | null;
  /** Slow-tail p95 of the reference. */
  referenceP95?: number | null;
  /** Number of timed trials (pairs, for A/B rows). */
  trials?: number;
  /** What exactly was measured, or why it was not. */
  note?: string;
}

/** The figures a target is judged on. */
export interface Figures {
  value: number;
  reference: number | null;
  ratio: number | null;
}

/** A target from the issue: its words and how to judge it. */
export interface Target {
  label: string;
  met: (figures: Figures) => boolean | null;
}

export const noTarget: Target = { label: '—', met: () => null };

/** Our figure at most `limit`. */
export function atMost(limit: number, unit: string): Target {
  return { label: `≤ ${limit} ${unit}`, met: ({ value }) => value <= limit };
}

/** Our figure exceeds the reference by at most `limit`. */
export function overheadAtMost(limit: number, unit: string): Target {
  return {
    label: `≤ ref + ${limit} ${unit}`,
    met: ({ value, reference }) => (reference === null ? null : value - reference <= limit),
  };
}

/** `value / reference` at least `x` (for rates). */
export function ratioAtLeast(x: number): Target {
  return { label: `ratio ≥ ${x}×`, met: ({ ratio }) => (ratio === null ? null : ratio >= x) };
}

/** `value / reference` at most `x` (for times). */
export function ratioAtMost(x: number, words = ''): Target {
  return {
    label: `ratio ≤ ${x}×${words ? ` (${words})` : ''}`,
    met: ({ ratio }) => (ratio === null ? null : ratio <= x),
  };
}

export interface CompareInput {
  name: string;
  unit: string;
  /** Times are lower-is-better, rates higher-is-better; it decides which tail p95 is. */
  lowerIsBetter: boolean;
  ours: readonly number[];
  reference: readonly number[];
  target: Target;
  note?: string;
  /**
   * `ours[i]` and `reference[i]` are one pair of `alternate`: the ratio is
   * then the median of the pairs' ratios (`medianPairRatio`), not the ratio
   * of the two medians. For a row whose trials swing with the machine's load
   * more than the gap it must resolve.
   */
  paired?: boolean;
}

/** A row from A/B trial figures (already in `unit`). */
export function compareRow(input: CompareInput): BenchRow {
  const ours = summarise(input.ours, input.lowerIsBetter);
  const reference = summarise(input.reference, input.lowerIsBetter);
  const ratio = input.paired
    ? medianPairRatio(input.ours, input.reference)
    : reference.median === 0
      ? null
      : ours.median / reference.median;
  return {
    name: input.name,
    value: ours.median,
    unit: input.unit,
    reference: reference.median,
    ratio,
    target: input.target.label,
    met: input.target.met({ value: ours.median, reference: reference.median, ratio }),
    p95: ours.p95,
    referenceP95: reference.p95,
    trials: Math.min(ours.trials, reference.trials),
    ...(input.note !== undefined && { note: input.note }),
  };
}

export interface AbsoluteInput {
  name: string;
  unit: string;
  /** The figure the target is judged on (e.g. a p99, a byte count). */
  value: number;
  target: Target;
  trials: number;
  p95?: number | null;
  note?: string;
}

/** A row with no reference side: an absolute target such as a size or a latency. */
export function absoluteRow(input: AbsoluteInput): BenchRow {
  return {
    name: input.name,
    value: input.value,
    unit: input.unit,
    reference: null,
    ratio: null,
    target: input.target.label,
    met: input.target.met({ value: input.value, reference: null, ratio: null }),
    p95: input.p95 ?? null,
    referenceP95: null,
    trials: input.trials,
    ...(input.note !== undefined && { note: input.note }),
  };
}

/** A row that could not be measured, and why. */
export function unmeasuredRow(name: string, unit: string, target: Target, why: string): BenchRow {
  return {
    name,
    value: null,
    unit,
    reference: null,
    ratio: null,
    target: target.label,
    met: null,
    note: `not measured: ${why}`,
  };
}

/** The first lines of an error, enough to say what failed. */
export function describeFailure(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .slice(0, 3)
    .join(' ');
}

/** A number with about three significant digits and thousands separators. */
export function formatNumber(x: number | null | undefined): string {
  if (x === null || x === undefined || Number.isNaN(x)) return '—';
  const abs = Math.abs(x);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return x.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

function withUnit(x: number | null | undefined, unit: string): string {
  return x === null || x === undefined ? '—' : `${formatNumber(x)} ${unit}`;
}

/** The table as text: one line per row, then the notes. */
export function formatTable(rows: readonly BenchRow[]): string {
  const header = ['benchmark', 'ours (median)', 'ours p95', 'reference', 'ratio', 'target', 'met'];
  const cells = rows.map((row) => [
    row.name,
    row.value === null ? 'not measured' : withUnit(row.value, row.unit),
    withUnit(row.p95, row.unit),
    withUnit(row.reference, row.unit),
    row.ratio === null ? '—' : `${formatNumber(row.ratio)}×`,
    row.target,
    row.met === null ? '—' : row.met ? 'met' : 'MISSED',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]) =>
    c.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const rule = widths.map((w) => '─'.repeat(w)).join('  ');
  const notes = rows
    .filter((row) => row.note !== undefined)
    .map(
      (row) =>
        `- ${row.name}${row.trials ? ` (${row.trials} trial${row.trials === 1 ? '' : 's'})` : ''}: ${row.note}`,
    );
  return [line(header), rule, ...cells.map(line), '', ...notes].join('\n');
}

export async function writeResults(path: string, rows: readonly BenchRow[]): Promise<void> {
  await writeFile(path, `${JSON.stringify(rows, null, 2)}\n`);
}
