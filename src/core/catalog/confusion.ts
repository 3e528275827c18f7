/**
 * A confusion matrix: for each true class (a row), how many rows were taken
 * for each class (a column). `eval.accuracy` keeps one as an artifact of the
 * run, as JSON in the format below, so the run page can draw it and an
 * exported run carries it; it is small (classes², not rows).
 */

/** The artifact's media type. */
export const CONFUSION_MEDIA_TYPE = 'application/vnd.flowbench.confusion+json';

/** The artifact's content. */
export interface ConfusionFile {
  readonly format: 'flowbench.confusion/1';
  /** Class names, in index order: the rows' true classes and the columns' predicted ones. */
  readonly classes: readonly string[];
  /** `matrix[actual][predicted]`: a count of rows. */
  readonly matrix: readonly (readonly number[])[];
}

/** Names for classes that have none: `0`, `1` … */
export const classIndices = (count: number): string[] =>
  Array.from({ length: count }, (_, i) => String(i));

export class ConfusionMatrix {
  readonly classes: readonly string[];
  readonly matrix: number[][];

  constructor(classes: readonly string[]) {
    this.classes = classes;
    this.matrix = classes.map(() => classes.map(() => 0));
  }

  /** Adds rows whose scores are `scores` (`[rows, classes]`, row-major) and true classes `labels`. */
  add(scores: ArrayLike<number>, labels: ArrayLike<number>): void {
    const k = this.classes.length;
    for (let r = 0; r < labels.length; r++) {
      let best = 0;
      for (let c = 1; c < k; c++) if (scores[r * k + c]! > scores[r * k + best]!) best = c;
      const row = this.matrix[labels[r]!];
      if (row) row[best] = (row[best] ?? 0) + 1;
    }
  }

  toFile(): ConfusionFile {
    return { format: 'flowbench.confusion/1', classes: this.classes, matrix: this.matrix };
  }

  toBytes(): Uint8Array {
    return new TextEncoder().encode(JSON.stringify(this.toFile()));
  }
}

/** Reads a confusion artifact's bytes; `null` when they are not one. */
export function readConfusion(bytes: Uint8Array): ConfusionFile | null {
  try {
    const value = JSON.parse(new TextDecoder().decode(bytes)) as Partial<ConfusionFile>;
    const { classes, matrix } = value;
    if (
      value.format !== 'flowbench.confusion/1' ||
      !Array.isArray(classes) ||
      !Array.isArray(matrix)
    )
      return null;
    const square =
      matrix.length === classes.length &&
      matrix.every(
        (row) =>
          Array.isArray(row) &&
          row.length === classes.length &&
          row.every((n) => typeof n === 'number'),
      );
    return square ? { format: value.format, classes, matrix } : null;
  } catch {
    return null;
  }
}
