/**
 * Several series on one x axis.
 *
 * uPlot draws every series against one shared x column, but two runs rarely
 * share their x values (wall-clock times never coincide, and decimation keeps
 * different steps for different runs). So the tables are merged: the x column
 * is the sorted union of their x values, and a table with no point at some x
 * holds `undefined` there. uPlot bridges `undefined` (a point simply missing
 * from this series) but breaks the line at `null` (a value that was not
 * finite), which is exactly the difference a reader should see.
 */

/** One x column with any number of value columns beside it. */
export interface XTable<V> {
  readonly x: ArrayLike<number>;
  readonly ys: readonly ArrayLike<V>[];
}

/** Tables merged on x: every input value column, in input order, on the merged x. */
export interface AlignedTables<V> {
  readonly x: number[];
  readonly ys: (V | undefined)[][];
}

/**
 * Merges tables whose `x` are ascending into one ascending x column. Rows of
 * different tables with equal x share a row; repeated x inside one table keep
 * a row each, so no point is lost.
 */
export function alignTables<V>(tables: readonly XTable<V>[]): AlignedTables<V> {
  const columns = tables.reduce((n, t) => n + t.ys.length, 0);
  const x: number[] = [];
  const ys: (V | undefined)[][] = Array.from({ length: columns }, () => []);
  const heads = tables.map(() => 0);
  for (;;) {
    let next = Infinity;
    for (let k = 0; k < tables.length; k++) {
      const t = tables[k]!;
      const h = heads[k]!;
      if (h < t.x.length) next = Math.min(next, t.x[h]!);
    }
    if (next === Infinity) break;
    x.push(next);
    let column = 0;
    for (let k = 0; k < tables.length; k++) {
      const t = tables[k]!;
      const h = heads[k]!;
      const here = h < t.x.length && t.x[h] === next;
      for (const values of t.ys) ys[column++]!.push(here ? values[h] : undefined);
      if (here) heads[k] = h + 1;
    }
  }
  return { x, ys };
}
