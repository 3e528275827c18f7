import { describe, expect, it } from 'vitest';
import { createRandom } from '../random';
import { paramImportance, type ImportanceRow } from './importance';

/** A sweep where `lr` drives the metric (a bend: best in the middle) and `noise` does nothing. */
function syntheticSweep(): ImportanceRow[] {
  const random = createRandom(7);
  const rows: ImportanceRow[] = [];
  for (const lr of [0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1])
    for (let seed = 0; seed < 6; seed++) {
      const noise = random();
      const act = seed % 2 === 0 ? 'relu' : 'tanh';
      const metric = 1 - (Math.log10(lr) + 1.5) ** 2 / 4 + (random() - 0.5) * 0.02;
      rows.push({ params: { lr, noise, act, seed }, metric });
    }
  return rows;
}

describe('parameter importance', () => {
  it('ranks the param that drives the metric first and the noise params near nothing', () => {
    const ranked = paramImportance(syntheticSweep(), ['act', 'lr', 'noise', 'seed'], { seed: 1 });
    expect(ranked[0]!.param).toBe('lr');
    expect(ranked[0]!.importance).toBeGreaterThan(0.8);
    for (const other of ranked.slice(1)) expect(other.importance).toBeLessThan(0.1);
    expect(ranked.reduce((sum, p) => sum + p.importance, 0)).toBeCloseTo(1);
  });

  it('gives the straight-line correlation beside it, which misses a bend the forest sees', () => {
    const rows: ImportanceRow[] = [1, 2, 3, 4, 5, 6].flatMap((x) => [
      { params: { x, y: 7 - x }, metric: 2 * x },
      { params: { x, y: 7 - x }, metric: 2 * x + 0.01 },
    ]);
    const ranked = paramImportance(rows, ['x', 'y']);
    expect(ranked.find((p) => p.param === 'x')!.correlation).toBeCloseTo(1, 3);
    expect(ranked.find((p) => p.param === 'y')!.correlation).toBeCloseTo(-1, 3);
    // A bend: the metric peaks at the middle; r is about 0, the forest still ranks it.
    const bend = paramImportance(
      [-3, -2, -1, 0, 1, 2, 3].flatMap((x, i) => [
        { params: { x, noise: i % 2 }, metric: -x * x },
        { params: { x, noise: (i + 1) % 2 }, metric: -x * x },
      ]),
      ['noise', 'x'],
    );
    expect(bend[0]).toMatchObject({ param: 'x' });
    expect(Math.abs(bend[0]!.correlation)).toBeLessThan(0.05);
  });

  it('ranks the same sweep the same way every time (seeded), and says nothing of a constant metric', () => {
    const rows = syntheticSweep();
    expect(paramImportance(rows, ['lr', 'noise'], { seed: 3 })).toEqual(
      paramImportance(rows, ['lr', 'noise'], { seed: 3 }),
    );
    const flat = paramImportance(
      rows.map((row) => ({ ...row, metric: 1 })),
      ['lr', 'noise'],
    );
    expect(flat.map((p) => [p.importance, p.correlation])).toEqual([
      [0, 0],
      [0, 0],
    ]);
  });
});
