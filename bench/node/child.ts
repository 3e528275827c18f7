/**
 * Runs one Node suite in its own process (so one suite's JIT state, heap and
 * ORT thread pools never colour another's) and writes its rows as JSON to
 * the path given: `node --import tsx bench/node/child.ts <suite> <out.json>`.
 */
import { writeResults, type BenchRow } from '../lib/rows';

const suites: Record<string, () => Promise<{ run: () => Promise<BenchRow[]> }>> = {
  engine: () => import('./engine'),
  ort: () => import('./ort'),
  cnn: () => import('./cnn'),
  attention: () => import('./attention'),
  loops: () => import('./loops'),
  producers: () => import('./producers'),
  tables: () => import('./tables'),
  cache: () => import('./cache'),
  cli: () => import('./cli'),
  sequence: () => import('./sequence'),
};

const [suite, out] = process.argv.slice(2);
const load = suite === undefined ? undefined : suites[suite];
if (!load || out === undefined) {
  console.error(`usage: child.ts <${Object.keys(suites).join('|')}> <out.json>`);
  process.exit(2);
}
const { run } = await load();
await writeResults(out, await run());
// ORT's thread pools keep the event loop alive; the rows are written, so leave.
process.exit(0);
