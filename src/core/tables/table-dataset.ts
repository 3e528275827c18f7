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
import { scanColumn, type ColumnInfo } from './columns';
import { isMissing, numberOf, textOf, type RawTable } from './table';

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
  | {
      kind: 'number';
      column: number;
      name: string;
      mean: number;
      /** Every row's value as the column scan parsed it (NaN where missing). */
      numbers: Float32Array;
    }
  | { kind: 'one-hot'; column: number; name: string; values: string[]; shares: number[] };

/** Where each value of a one-hot encoder goes. */
const slotsOf = (values: readonly string[]) => new Map(values.map((v, k) => [v, k]));

/** Builds the dataset; throws a catalogue error naming the file, row and column at fault. */
export function tableToDataset(table: RawTable, choices: TableChoices): TableDataset {
  const { file } = choices;
  if (table.rowCount === 0) throw new FlowbenchError('table-empty', { file });
  const scans = table.names.map((_, c) => scanColumn(table, c));
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

  // Rows kept: a missing label is never usable; a missing feature per the policy.
  const keep: number[] = [];
  const labelCells = table.columns[labelAt]!;
  const missingOf = scans.map((scan) => scan.missing);
  const featureMissing = featureAt.map((c) => missingOf[c]!);
  for (let r = 0; r < table.rowCount; r++) {
    let missingAt: number | undefined = missingOf[labelAt]![r] ? labelAt : undefined;
    for (let f = 0; missingAt === undefined && f < featureAt.length; f++)
      if (featureMissing[f]![r]) missingAt = featureAt[f];
    if (missingAt === undefined || (missingAt !== labelAt && choices.missing === 'mean')) {
      keep.push(r);
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
  if (keep.length === 0) throw new FlowbenchError('table-empty', { file });

  // Encoders, from the kept rows.
  const encoders: Encoder[] = featureAt.map((c) => {
    const info = columns[c]!;
    const cells = table.columns[c]!;
    if (info.type === 'number' || info.type === 'boolean') {
      let sum = 0;
      let n = 0;
      const { missing, numbers } = scans[c]!;
      for (let i = 0; i < keep.length; i++) {
        const r = keep[i]!;
        if (missing[r]) continue;
        const v = numbers ? numbers[r]! : Number.NaN;
        if (Number.isNaN(v))
          throw new FlowbenchError('table-bad-value', {
            file,
            row: r + 1,
            column: info.name,
            problem: `${JSON.stringify(cells[r])} is not a number, in a column of numbers`,
          });
        sum += v;
        n++;
      }
      const mean = n > 0 ? sum / n : 0;
      return {
        kind: 'number',
        column: c,
        name: info.name,
        mean,
        numbers: numbers ?? new Float32Array(0),
      };
    }
    const counts = new Map<string, number>();
    let present = 0;
    for (const r of keep) {
      if (isMissing(cells[r])) continue;
      const text = textOf(cells[r]!);
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
  const features = new Float32Array(keep.length * featureSize);
  let offset = 0;
  for (const e of encoders) {
    if (e.kind === 'number') {
      for (let i = 0; i < keep.length; i++) {
        const v = e.numbers[keep[i]!]!;
        features[i * featureSize + offset] = Number.isNaN(v) ? e.mean : v;
      }
      offset += 1;
      continue;
    }
    const cells = table.columns[e.column]!;
    const slots = slotsOf(e.values);
    keep.forEach((r, i) => {
      const cell = cells[r]!;
      const at = i * featureSize + offset;
      if (isMissing(cell)) e.shares.forEach((share, k) => (features[at + k] = share));
      else features[at + slots.get(textOf(cell))!] = 1;
    });
    offset += e.values.length;
  }
  const numericColumns = positionsOfNumbers(encoders);

  const base = {
    kind: 'dataset' as const,
    name: file,
    features,
    count: keep.length,
    featureSize,
    featureNames: names,
    ...(choices.standardise && numericColumns.length > 0
      ? { standardisation: { state: 'pending' as const, columns: numericColumns } }
      : {}),
  };
  let dataset: Dataset;
  if (task === 'regression') {
    const targets = new Float32Array(keep.length);
    const parsed = scans[labelAt]!.numbers;
    keep.forEach((r, i) => {
      const v = parsed ? parsed[r]! : Number.NaN;
      if (Number.isNaN(v))
        throw new FlowbenchError('table-bad-value', {
          file,
          row: r + 1,
          column: label,
          problem: `${JSON.stringify(labelCells[r])} is not a number, and a regression label must be`,
        });
      targets[i] = v;
    });
    dataset = { ...base, labels: new Int32Array(keep.length), classes: 1, task, targets };
  } else {
    const texts = keep.map((r) => textOf(labelCells[r]!));
    const classNames = sortedValues(texts);
    if (classNames.length < 2)
      throw new FlowbenchError('table-single-class', { file, column: label, classes: classNames });
    const index = new Map(classNames.map((c, i) => [c, i]));
    const labels = Int32Array.from(texts, (t) => index.get(t)!);
    dataset = { ...base, labels, classes: classNames.length, task, classNames };
  }
  return {
    dataset,
    label,
    features: featureNames,
    task,
    droppedRows: table.rowCount - keep.length,
    columns,
  };
}

/** Where each numeric encoder's one value sits among the features. */
function positionsOfNumbers(encoders: readonly Encoder[]): number[] {
  const at: number[] = [];
  let offset = 0;
  for (const e of encoders) {
    if (e.kind === 'number') at.push(offset);
    offset += e.kind === 'number' ? 1 : e.values.length;
  }
  return at;
}
