/**
 * What a portable report holds: plain data, no store, no database. The
 * runs as the comparison shows them (label, colour, params, seed, result,
 * fingerprint facts, final values), every point of every charted series,
 * the chart settings as they were on screen (x unit, log scales, smoothing,
 * grouping — with each group's mean and min–max band as the charts drew them),
 * the parallel coordinates as they were set (axes shown, log and flipped
 * axes, brushes, the colouring metric), and the run diff of the first two
 * runs. `html.ts` turns it into one file.
 */
import type { FingerprintRow, MetricDiff, ParamDiff } from '../../core/run/diff';
import type { InputValue } from '../../core/run/params';
import type { XMode } from '../../core/series/columns';
import type { ParallelView } from '../../core/run/parallel';

/** A run as the report shows it. */
export interface ReportRun {
  readonly id: string;
  /** `0b1c2d3e lr=0.05`, as the charts' legend names it. */
  readonly label: string;
  /** `#rrggbb`, the run's colour in the charts. */
  readonly colour: string;
  readonly flow: string;
  readonly status: string;
  readonly seed: number;
  readonly params: Readonly<Record<string, InputValue>>;
  readonly result: Readonly<Record<string, unknown>>;
  /** The fingerprint as a person reads it: label and value per fact. */
  readonly facts: readonly { readonly label: string; readonly value: string }[];
  /** Each metric's last finite value. */
  readonly finals: Readonly<Record<string, number>>;
}

/** One run's series of one metric, as columns; a non-finite value is `null`. */
export interface ReportSeries {
  readonly run: string;
  readonly step: readonly number[];
  readonly value: readonly (number | null)[];
  /** Wall time, seconds since 1970. */
  readonly ts: readonly number[];
  /** The smoothed line as the charts drew it, when smoothing was on. */
  readonly smoothed?: readonly (number | null)[];
}

/**
 * Runs grouped by a param, as the charts draw them: the group's mean at each
 * step, its min–max band when it has several runs, and the smoothed mean
 * when smoothing was on. x is in the chart's unit already (for time, the
 * mean of the runs' times at the step); a step with no finite value is `null`.
 */
export interface ReportGroup {
  /** `lr=0.1`, as the charts' legend names it. */
  readonly label: string;
  /** `#rrggbb`. */
  readonly colour: string;
  /** The runs behind it. */
  readonly runs: readonly string[];
  readonly x: readonly number[];
  readonly mean: readonly (number | null)[];
  readonly band: {
    readonly low: readonly (number | null)[];
    readonly high: readonly (number | null)[];
  } | null;
  readonly smoothed?: readonly (number | null)[];
}

export interface ReportMetric {
  readonly name: string;
  readonly series: readonly ReportSeries[];
  /** When the charts grouped runs by a param: one curve per group, drawn in place of the runs'. */
  readonly groups?: readonly ReportGroup[];
}

/** The run diff of the report's first two runs, as the dialog shows it. */
export interface ReportDiff {
  readonly a: string;
  readonly b: string;
  readonly params: readonly ParamDiff[];
  /** One line per node or edge change, in words; empty when the flows compute the same. */
  readonly flow: readonly string[];
  readonly fingerprints: readonly FingerprintRow[];
  readonly metrics: readonly MetricDiff[];
}

export interface ReportData {
  readonly title: string;
  /** When the report was made, ISO 8601. */
  readonly created: string;
  readonly settings: {
    readonly xMode: XMode;
    readonly log: boolean;
    readonly logX: boolean;
    /** TensorBoard smoothing weight, 0 (off) to 0.99. */
    readonly smoothing: number;
    /** The param runs were grouped by in the charts, if any (each metric's `groups`). */
    readonly groupBy?: string | null;
  };
  readonly runs: readonly ReportRun[];
  readonly metrics: readonly ReportMetric[];
  /** The parallel coordinates' settings on screen; null when they were not shown (defaults then). */
  readonly parallel: ParallelView | null;
  readonly diff: ReportDiff | null;
}
