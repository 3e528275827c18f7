/**
 * `npm run bench`: every benchmark, one table.
 *
 * Pure things (the engine, onnxruntime) are measured in Node, each suite in
 * its own process; what needs a browser (IndexedDB, the app's startup) in
 * headless Chromium against `vite preview` of the build. Every row sets our
 * figure beside a reference measured in the same run, by alternating trials.
 * The bench prints and writes `bench/results.json`; it never asserts, and a
 * target missed is shown as missed. `--only=engine,ort,cnn,attention,loops,producers,tables,cache,cli,sequence,metrics,browser,charts,canvas,runs,parallel,tablepage,compare` runs a subset;
 * `--no-build` serves `dist/` as it is.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { canvasRows } from './browser/canvas';
import { chartRows } from './browser/charts';
import { browserRows } from './browser/chromium';
import { describeFailure } from './lib/rows';
import { metricSuite } from './browser/metrics';
import { repoRoot } from './browser/servers';
import { runScaleRows } from './browser/run-scale';
import { parallelRows } from './browser/parallel';
import { tablePageRows } from './browser/table-page';
import { compareRows } from './browser/compare';
import { formatTable, noTarget, unmeasuredRow, writeResults, type BenchRow } from './lib/rows';

const started = performance.now();
const log = (line: string) =>
  console.error(
    `[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}`,
  );

/** Run a Node suite in a child process; its rows come back through a JSON file. */
async function nodeSuite(suite: string): Promise<BenchRow[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'flowbench-bench-'));
  const out = path.join(dir, `${suite}.json`);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', '--expose-gc', path.join('bench', 'node', 'child.ts'), suite, out],
        { cwd: repoRoot, stdio: ['ignore', 'inherit', 'inherit'] },
      );
      child.once('error', reject);
      child.once('exit', resolve);
    });
    if (code !== 0) throw new Error(`the ${suite} suite exited with code ${code}`);
    return JSON.parse(await readFile(out, 'utf8')) as BenchRow[];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const suites: Record<string, () => Promise<BenchRow[]>> = {
  engine: () => nodeSuite('engine'),
  ort: () => nodeSuite('ort'),
  cnn: () => nodeSuite('cnn'),
  attention: () => nodeSuite('attention'),
  loops: () => nodeSuite('loops'),
  producers: () => nodeSuite('producers'),
  tables: () => nodeSuite('tables'),
  cache: () => nodeSuite('cache'),
  cli: () => nodeSuite('cli'),
  sequence: () => nodeSuite('sequence'),
  metrics: () => metricSuite({ log }),
  browser: () => browserRows({ noBuild: process.argv.includes('--no-build'), log }),
  charts: () => chartRows({ log }),
  canvas: () => canvasRows({ log }),
  runs: () => runScaleRows({ noBuild: process.argv.includes('--no-build'), log }),
  parallel: () => parallelRows({ noBuild: process.argv.includes('--no-build'), log }),
  tablepage: () => tablePageRows({ noBuild: process.argv.includes('--no-build'), log }),
  compare: () => compareRows({ noBuild: process.argv.includes('--no-build'), log }),
};

log(
  `${availableParallelism()} cores, load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}: figures are comparable only between runs on a quiet machine`,
);
const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
const chosen = only ? only.split(',') : Object.keys(suites);
const rows: BenchRow[] = [];
for (const name of chosen) {
  const suite = suites[name];
  if (!suite) {
    console.error(`unknown suite '${name}'; suites: ${Object.keys(suites).join(', ')}`);
    process.exit(2);
  }
  log(`${name}…`);
  try {
    rows.push(...(await suite()));
  } catch (error) {
    const why = describeFailure(error);
    log(`${name} failed: ${why}`);
    rows.push(unmeasuredRow(`${name} suite`, '', noTarget, why));
  }
}

// `FLOWBENCH_BENCH_RESULTS` writes the rows elsewhere, so a partial run keeps the last full table.
const resultsFile =
  process.env.FLOWBENCH_BENCH_RESULTS ?? path.join(repoRoot, 'bench', 'results.json');
await writeResults(resultsFile, rows);
console.log(`\n${formatTable(rows)}\n`);
log(
  `done; load average ${loadavg()[0]!.toFixed(2)}; rows written to ${path.relative(process.cwd(), resultsFile)}`,
);
