/**
 * A typed table to a `dataset`: which column is the label, which are
 * features, classification or regression, what to do with missing cells,
 * categorical features one-hot, and standardisation left `pending` so it is
 * fitted on the training rows only (catalog/standardise.ts).
 *
 * Every choice has a default a person can read off the columns (the label:
 * the last non-numeric column, else the last; the features: every other
 * numeric, boolean or categorical column; the task: from the label's type)
 * and every failure names the file, the row and the column.
 */
import type { Dataset, DatasetTask } from '../catalog/values';
import { FlowbenchError } from '../errors';
import { scanColumns, type ColumnInfo, type ColumnScan } from './columns';
import { cellAt, numberOf, textOf, type RawTable } from './table';

export const missingPolicies = ['drop rows', 'mean', 'error'] as const;
export type MissingPolicy = (typeof missingPolicies)[number];
export const taskChoices = ['auto', 'classification', 'regression'] as const;
export type TaskChoice = (typeof taskChoices)[number];

export interface TableChoices {
  /** The file's name, for messages and the dataset's name. */
  readonly file: string;
  /** The label column; `''` picks the default. */
  readonly label: string;
  /** Feature columns, comma-separated; `''` picks the default. */
  readonly features: string;
  readonly task: TaskChoice;
  readonly missing: MissingPolicy;
  readonly standardise: boolean;
}

/** A dataset made from a table, and what was chosen on the way (for the log). */
export interface TableDataset {
  readonly dataset: Dataset;
  readonly label: string;
  readonly features: readonly string[];
  readonly task: DatasetTask;
  readonly droppedRows: number;
  readonly columns: readonly ColumnInfo[];
}

/** The label a table gets when none is chosen: the last non-numeric column, else the last. */
export function defaultLabel(columns: readonly ColumnInfo[]): string {
  const named = [...columns].reverse().find((c) => c.type === 'category' || c.type === 'boolean');
  return (named ?? columns[columns.length - 1])?.name ?? '';
}

/** The features a table gets when none are chosen: every other number, boolean or category column. */
export function defaultFeatures(columns: readonly ColumnInfo[], label: string): string[] {
  return columns.filter((c) => c.name !== label && c.type !== 'text').map((c) => c.name);
}

/** Classification for a non-numeric label or a few whole numbers; regression otherwise. */
export function inferTask(label: ColumnInfo): DatasetTask {
  if (label.type !== 'number') return 'classification';
  return label.integers && label.distinct <= 20 ? 'classification' : 'regression';
}

/** Comma-separated names, trimmed, blanks dropped. */
export function splitNames(list: string): string[] {
  return list
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
}

/** Sorted distinct texts: numerically when every one is a number. */
function sortedValues(values: Iterable<string>): string[] {
  const list = [...new Set(values)];
  const numeric = list.every((v) => numberOf(v) !== null);
  return numeric
    ? list.sort((a, b) => Number(a) - Number(b))
    : list.sort((a, b) => a.localeCompare(b));
}

/** How one feature column becomes one or more feature values. */
type Encoder =
  | { kind: 'number'; column: number; name: string }
  | { kind: 'one-hot'; column: number; name: string; values: string[]; shares: number[] };

/** Where each value of a one-hot encoder goes. */
const slotsOf = (values: readonly string[]) => new Map(values.map((v, k) => [v, k]));

/** Builds the dataset; throws a catalogue error naming the file, row and column at fault. */
export function tableToDataset(table: RawTable, choices: TableChoices): TableDataset {
  const { file } = choices;
  if (table.rowCount === 0) throw new FlowbenchError('table-empty', { file });
  const scans = scanColumns(table);
  const columns = scans.map((scan) => scan.info);
  const indexOf = (name: string, role: string): number => {
    const at = table.names.indexOf(name);
    if (at === -1)
      throw new FlowbenchError('table-column-missing', {
        file,
        role,
        column: name,
        columns: table.names,
      });
    return at;
  };
  const label = choices.label.trim() === '' ? defaultLabel(columns) : choices.label.trim();
  const labelAt = indexOf(label, 'label column');
  const labelInfo = columns[labelAt]!;
  const chosen = splitNames(choices.features);
  const featureNames = (chosen.length > 0 ? chosen : defaultFeatures(columns, label)).filter(
    (n) => n !== label,
  );
  const featureAt = featureNames.map((n) => indexOf(n, 'feature column'));
  if (featureAt.length === 0)
    throw new FlowbenchError('node-input', {
      problem: `${file}: no feature columns besides the label '${label}' (columns: ${table.names.join(', ')})`,
    });
  const task = choices.task === 'auto' ? inferTask(labelInfo) : choices.task;

  const keep = keptRows(table, scans, labelAt, featureAt, choices);
  const kept = keep.length;

  // Encoders, from the kept rows: a category's values and shares first; numbers below.
  const encoders: Encoder[] = featureAt.map((c) => {
    const info = columns[c]!;
    if (info.type === 'number' || info.type === 'boolean')
      return { kind: 'number', column: c, name: info.name };
    const { missing } = scans[c]!;
    const counts = new Map<string, number>();
    let present = 0;
    for (let i = 0; i < kept; i++) {
      const r = keep[i]!;
      if (missing[r]) continue;
      const text = textOf(cellAt(table, r, c));
      counts.set(text, (counts.get(text) ?? 0) + 1);
      present++;
    }
    const values = sortedValues(counts.keys());
    const shares = values.map((v) => (counts.get(v) ?? 0) / Math.max(1, present));
    return { kind: 'one-hot', column: c, name: info.name, values, shares };
  });
  const names = encoders.flatMap((e) =>
    e.kind === 'number' ? [e.name] : e.values.map((v) => `${e.name}=${v}`),
  );
  const featureSize = names.length;
  const offsets = offsetsOf(encoders);
  const features = new Float32Array(kept * featureSize);
  writeNumbers(features, featureSize, encoders, offsets, keep, table, scans, file);
  encoders.forEach((e, n) => {
    if (e.kind === 'number') return;
    const { missing } = scans[e.column]!;
    const slots = slotsOf(e.values);
    for (let i = 0; i < kept; i++) {
      const r = keep[i]!;
      const at = i * featureSize + offsets[n]!;
      if (missing[r]) e.shares.forEach((share, k) => (features[at + k] = share));
      else features[at + slots.get(textOf(cellAt(table, r, e.column)))!] = 1;
    }
  });
  const numericColumns = offsets.filter((_, n) => encoders[n]!.kind === 'number');

  const base = {
    kind: 'dataset' as const,
    name: file,
    features,
    count: kept,
    featureSize,
    featureNames: names,
    ...(choices.standardise && numericColumns.length > 0
      ? { standardisation: { state: 'pending' as const, columns: numericColumns } }
      : {}),
  };
  let dataset: Dataset;
  if (task === 'regression') {
    const targets = new Float32Array(kept);
    const parsed = scans[labelAt]!.numbers;
    for (let i = 0; i < kept; i++) {
      const r = keep[i]!;
      const v = parsed ? parsed[r]! : Number.NaN;
      if (Number.isNaN(v))
        throw new FlowbenchError('table-bad-value', {
          file,
          row: r + 1,
          column: label,
          problem: `${JSON.stringify(cellAt(table, r, labelAt))} is not a number, and a regression label must be`,
        });
      targets[i] = v;
    }
    dataset = { ...base, labels: new Int32Array(kept), classes: 1, task, targets };
  } else {
    // Each row's class by first sight, then renumbered in the classes' sorted order.
    const seen = new Map<string, number>();
    const labels = new Int32Array(kept);
    for (let i = 0; i < kept; i++) {
      const text = textOf(cellAt(table, keep[i]!, labelAt));
      let k = seen.get(text);
      if (k === undefined) seen.set(text, (k = seen.size));
      labels[i] = k;
    }
    const classNames = sortedValues(seen.keys());
    if (classNames.length < 2)
      throw new FlowbenchError('table-single-class', { file, column: label, classes: classNames });
    const sortedAt = new Int32Array(seen.size);
    classNames.forEach((name, at) => (sortedAt[seen.get(name)!] = at));
    for (let i = 0; i < kept; i++) labels[i] = sortedAt[labels[i]!]!;
    dataset = { ...base, labels, classes: classNames.length, task, classNames };
  }
  return {
    dataset,
    label,
    features: featureNames,
    task,
    droppedRows: table.rowCount - kept,
    columns,
  };
}

/** Where each encoder's first value sits among the features. */
function offsetsOf(encoders: readonly Encoder[]): number[] {
  let offset = 0;
  return encoders.map((e) => {
    const at = offset;
    offset += e.kind === 'number' ? 1 : e.values.length;
    return at;
  });
}

/** The rows a dataset keeps: a missing label is never usable; a missing feature per the policy. */
function keptRows(
  table: RawTable,
  scans: readonly ColumnScan[],
  labelAt: number,
  featureAt: readonly number[],
  choices: TableChoices,
): Int32Array {
  const { file } = choices;
  const labelMissing = scans[labelAt]!.missing;
  // Only a column with a missing cell can drop a row or fail; most columns have none.
  const watched = featureAt.filter((c) => scans[c]!.info.missing > 0);
  const watchedMissing = watched.map((c) => scans[c]!.missing);
  const keep = new Int32Array(table.rowCount);
  let kept = 0;
  for (let r = 0; r < table.rowCount; r++) {
    let missingAt = labelMissing[r] ? labelAt : -1;
    for (let f = 0; missingAt === -1 && f < watched.length; f++)
      if (watchedMissing[f]![r]) missingAt = watched[f]!;
    if (missingAt === -1 || (missingAt !== labelAt && choices.missing === 'mean')) {
      keep[kept++] = r;
      continue;
    }
    if (choices.missing === 'error')
      throw new FlowbenchError('table-bad-value', {
        file,
        row: r + 1,
        column: table.names[missingAt]!,
        problem:
          "the value is missing (set param 'missing' to 'drop rows' or 'mean' to go on without it)",
      });
  }
  if (kept === 0) throw new FlowbenchError('table-empty', { file });
  return keep.subarray(0, kept);
}

/**
 * Writes every number feature of the kept rows into `features`, a column at
 * a time, from the values the column scans parsed; a missing one (kept
 * under the 'mean' policy) gets the mean of its column's kept values. A
 * cell that is not a number fails, naming the first such cell of the first
 * such column, the order the features are in.
 */
function writeNumbers(
  features: Float32Array,
  featureSize: number,
  encoders: readonly Encoder[],
  offsets: readonly number[],
  keep: Int32Array,
  table: RawTable,
  scans: readonly ColumnScan[],
  file: string,
): void {
  for (const [n, e] of encoders.entries()) {
    if (e.kind !== 'number') continue;
    const at = offsets[n]!;
    const { missing } = scans[e.column]!;
    // A number or yes/no column always has values; a column of neither fails at its first cell.
    const values = scans[e.column]!.numbers ?? new Float32Array(table.rowCount).fill(Number.NaN);
    let sum = 0;
    let count = 0;
    let gaps = 0;
    for (let i = 0; i < keep.length; i++) {
      const r = keep[i]!;
      if (missing[r]) {
        gaps++;
        continue;
      }
      const v = values[r]!;
      if (Number.isNaN(v))
        throw new FlowbenchError('table-bad-value', {
          file,
          row: r + 1,
          column: e.name,
          problem: `${JSON.stringify(cellAt(table, r, e.column))} is not a number, in a column of numbers`,
        });
      sum += v;
      count++;
      features[i * featureSize + at] = v;
    }
    if (gaps === 0) continue;
    const mean = count > 0 ? sum / count : 0;
    for (let i = 0; i < keep.length; i++)
      if (missing[keep[i]!]) features[i * featureSize + at] = mean;
  }
}
