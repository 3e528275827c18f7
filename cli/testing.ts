/**
 * For the command line's tests: the real `flowbench` command in a process of
 * its own, with what it prints, and fresh output directories.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';
import { fromRunExport } from '../src/core/run/export';

export const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Node's flags for a command under test. A process that ran onnxruntime's
 * WASM build waits, as it exits, for V8's background optimising compiles of
 * the functions that got hot (seconds on a busy two-core machine, for every
 * command a test starts). The tests check what the command does, not how
 * fast, so they run the baseline compiler only.
 */
export const testNodeFlags = ['--liftoff-only'];

export interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Start the command; `onLine` sees each line of stdout as it comes. */
export function flowbench(
  args: string[],
  onLine: (line: string, child: ReturnType<typeof spawn>) => void = () => undefined,
): Promise<Ended> {
  const child = spawn(
    process.execPath,
    [...testNodeFlags, join(root, 'bin/flowbench.mjs'), ...args],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) onLine(line, child);
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/**
 * The command's `main` run in this process, what it prints caught: for a refusal, which ends
 * before anything runs. `bin/flowbench.mjs` only hands `main`'s status to `process.exit`, and a
 * test that spawns the command for a refusal checks that wiring; starting a process of its own for
 * every other refusal costs seconds each (Node loading the sources through tsx) and checks nothing
 * more. Not for a command that runs a flow: that goes through `flowbench`.
 */
export async function flowbenchHere(args: string[]): Promise<Ended> {
  const { main } = await import('./main');
  const caught = { stdout: '', stderr: '' };
  const catchInto = (name: 'stdout' | 'stderr') =>
    vi.spyOn(process[name], 'write').mockImplementation((chunk: string | Uint8Array) => {
      caught[name] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      return true;
    });
  const spies = [catchInto('stdout'), catchInto('stderr')];
  try {
    const code = await main(args);
    return { code, ...caught };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

export const outDir = () => mkdtempSync(join(tmpdir(), 'flowbench-run-'));

/** The events a command printed with `--json`, one object a line. */
export const eventsOf = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** Every run file in `dir`, each read by the app's importer (which throws on one it refuses). */
export function importedRuns(dir: string) {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.run.json'))
    .map((name) => {
      const text = readFileSync(join(dir, name), 'utf8');
      const imported = fromRunExport(JSON.parse(text));
      if (!imported.ok) throw new Error(`${name}: ${JSON.stringify(imported.issues)}`);
      return imported.record;
    });
}

/** `sha256:<hex>` of the file at `path`: the digest a flow names it by. */
export function fileDigest(path: string): string {
  return `sha256:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
}

/** The first 60 flowers of the iris example, written into `dir`: a table no example names. */
export function fewFlowers(dir: string): string {
  const path = join(dir, 'few-flowers.csv');
  const lines = readFileSync(join(root, 'src/examples/iris.csv'), 'utf8').split('\n');
  writeFileSync(path, lines.slice(0, 61).join('\n') + '\n');
  return path;
}

/**
 * A run bundle of the command's run of iris-table on `fewFlowers` (epochs=2,
 * seed 5), written by `--bundle` beside its run file: the bundle's path, the
 * folder of the run's own file (`first`) and the table.
 */
export async function irisBundle(
  dir: string,
): Promise<{ bundle: string; first: string; csv: string }> {
  const csv = fewFlowers(dir);
  const first = join(dir, 'first');
  const iris = join(root, 'src/examples/iris-table.flow.json');
  const made = await flowbench([
    'run',
    iris,
    '--file',
    `data=${csv}`,
    '--param',
    'epochs=2',
    '--seed',
    '5',
    '--bundle',
    '--out',
    first,
  ]);
  if (made.code !== 0) throw new Error(`the run to bundle exited ${made.code}: ${made.stderr}`);
  const [record] = importedRuns(first);
  return { bundle: join(first, `${record!.run.id}.flowbench.zip`), first, csv };
}
