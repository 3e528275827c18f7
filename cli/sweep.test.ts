/**
 * `flowbench sweep` as a person or a script meets it: the real command, a
 * small grid over a shipped example run here two at once, one run file per
 * trial that the app imports, grouped under the sweep's id.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { laneThreads } from './backend';
import { trialArgs } from './sweep';
import {
  eventsOf,
  fileDigest,
  flowbench,
  flowbenchHere,
  importedRuns,
  irisBundle,
  outDir,
  root,
} from './testing';
import type { RunId } from '../src/core/run/record';
import type { Trial } from './trials';

const spirals = join(root, 'src/examples/spirals-mlp.flow.json');
const iris = join(root, 'src/examples/iris-table.flow.json');

describe('flowbench sweep', () => {
  it('runs every combination, two at once, one grouped record each, and exits 0', async () => {
    const out = outDir();
    const ended = await flowbench([
      'sweep',
      spirals,
      '--param',
      'lr=0.05,0.2',
      '--param',
      'seed=0..1',
      '--param',
      'steps=5',
      '--parallel',
      '2',
      '--out',
      out,
      '--json',
    ]);
    expect(ended.stderr).toBe('');
    expect(ended.code).toBe(0);
    const events = eventsOf(ended.stdout);
    const sweepId = events[0]!.sweepId;
    expect(events[0]).toMatchObject({ event: 'sweep', trials: 4, parallel: 2 });
    expect(events.at(-1)).toMatchObject({ event: 'sweep-finished', sweepId, ok: 4, error: 0 });

    const runs = importedRuns(out).map((record) => record.run);
    expect(runs).toHaveLength(4);
    expect(runs.every((run) => run.groupId === sweepId && run.cause === 'sweep')).toBe(true);
    expect(runs.every((run) => run.status === 'ok' && run.params.steps === 5)).toBe(true);
    const grid = runs.map((run) => `${run.params.lr} ${run.seed}`).sort();
    expect(grid).toEqual(['0.05 0', '0.05 1', '0.2 0', '0.2 1']);
  });

  it('exits 1 when a trial ends error, each trial still with its record', async () => {
    const dir = outDir();
    const broken = join(dir, 'broken.csv');
    writeFileSync(broken, 'a,b\n1,2\nx\n');
    const out = join(dir, 'runs');
    const ended = await flowbench([
      'sweep',
      iris,
      '--param',
      'epochs=1,2',
      '--file',
      `data=${broken}`,
      '--out',
      out,
    ]);
    expect(ended.code).toBe(1);
    expect(ended.stdout).toMatch(/0 ok, 2 error/);
    const runs = importedRuns(out).map((record) => record.run);
    expect(runs.map((run) => run.status)).toEqual(['error', 'error']);
    expect(runs[0]!.statusReason).toContain('broken.csv, line 3');
  });

  it('gives every trial the file the flow names, found once beside the flow', async () => {
    const out = outDir();
    const ended = await flowbench([
      'sweep',
      iris,
      '--param',
      'epochs=1',
      '--param',
      'seed=0..1',
      '--out',
      out,
      '--json',
    ]);
    expect(ended.stderr).toBe('');
    expect(ended.code).toBe(0);
    // Each trial was given it: none looked beside the flow again.
    const started = eventsOf(ended.stdout).filter((event) => event.event === 'started');
    expect(started).toHaveLength(2);
    for (const event of started) expect(event).not.toHaveProperty('beside');
    const digest = fileDigest(join(root, 'src/examples/iris.csv'));
    const runs = importedRuns(out).map((record) => record.run);
    expect(runs.map((run) => run.status)).toEqual(['ok', 'ok']);
    for (const run of runs)
      expect(run.flowSnapshot.nodes.find((n) => n.id === 'data')?.params.file).toBe(digest);
  });

  it('sweeps a run bundle: every trial on its run’s file and params, but for the grid', async () => {
    const dir = outDir();
    const { bundle, first, csv } = await irisBundle(dir);
    const out = join(dir, 'sweep');
    const ended = await flowbench([
      'sweep',
      bundle,
      '--param',
      'seed=1..2',
      '--parallel',
      '2',
      '--out',
      out,
      '--json',
    ]);
    expect(ended.stderr).toBe('');
    expect(ended.code).toBe(0);
    const [bundled] = importedRuns(first).map((record) => record.run);
    expect(eventsOf(ended.stdout)[0]).toMatchObject({
      event: 'sweep',
      trials: 2,
      from: { file: bundle, runId: bundled!.id, files: 1 },
    });
    const digest = fileDigest(csv);
    const runs = importedRuns(out).map((record) => record.run);
    expect(runs.map((run) => [run.status, run.params.epochs, run.seed]).sort()).toEqual([
      ['ok', 2, 1],
      ['ok', 2, 2],
    ]);
    for (const run of runs)
      expect(run.flowSnapshot.nodes.find((n) => n.id === 'data')?.params.file).toBe(digest);
  });

  it('ends a trial whose process dies error, saying so, and runs the next in a fresh process', async () => {
    const out = outDir();
    let killed = false;
    const ended = await flowbench(
      // Trial 0 would train for ever; trial 1 is short.
      ['sweep', spirals, '--param', 'steps=100000,5', '--parallel', '1', '--out', out],
      (line, sweep) => {
        if (killed || !line.startsWith('sweep ')) return;
        // The sweep's trial process, once it has started one: killed as a crash or the OOM killer would.
        const deadline = Date.now() + 30_000;
        while (!killed && Date.now() < deadline) {
          let pids = '';
          try {
            pids = execFileSync('ps', ['-o', 'pid=', '--ppid', String(sweep.pid)], {
              encoding: 'utf8',
            }).trim();
          } catch {
            // ps exits 1 while the sweep has no child yet.
          }
          if (pids === '') continue;
          process.kill(Number(pids.split('\n')[0]), 'SIGKILL');
          killed = true;
        }
      },
    );
    expect(killed).toBe(true);
    expect(ended.code).toBe(1);
    expect(ended.stdout).toMatch(/#0 steps=100000 ended error: its trial process died \(SIGKILL\)/);
    expect(ended.stdout).toMatch(/#1 steps=5 ended ok/);
    const runs = importedRuns(out).map((record) => record.run);
    expect(runs.map((run) => [run.status, run.params.steps])).toEqual([['ok', 5]]);
  });

  it('refuses an input the flow lacks, or a range it cannot read, with exit 2 and runs nothing', async () => {
    const out = outDir();
    const unknown = await flowbench([
      'sweep',
      spirals,
      '--param',
      'lerning_rate=0.1',
      '--out',
      out,
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("'lerning_rate' is not an input of flow 'spirals-mlp'");
    // The command's main in this process: the refusal above already went through a process of its own.
    const empty = await flowbenchHere(['sweep', spirals, '--param', 'steps=3..1', '--out', out]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("'steps': the range 3..1 is empty");
    const threads = await flowbenchHere(['sweep', spirals, '--threads', '0', '--out', out]);
    expect(threads.code).toBe(2);
    expect(threads.stderr).toContain("--threads expects a positive integer, got '0'");
    const queued = await flowbenchHere([
      'sweep',
      spirals,
      '--threads',
      '2',
      '--redis',
      'redis://127.0.0.1:1',
      '--out',
      out,
    ]);
    expect(queued.code).toBe(2);
    expect(queued.stderr).toContain(
      "--threads is a local sweep's: a queue's trials run on each worker's own (flowbench worker --threads)",
    );
    expect(readdirSync(out)).toEqual([]);
  });

  it("shares the machine's cores out among its lanes: each trial runs on its lane's threads", () => {
    expect([1, 2, 3, 4, 8].map((parallel) => laneThreads(parallel, 4))).toEqual([3, 2, 1, 1, 1]);
    // One lane leaves a core to the engine's own thread, but never goes below one thread.
    expect([laneThreads(1, 2), laneThreads(2, 2), laneThreads(1, 1)]).toEqual([1, 1, 1]);
    const trial: Trial = { index: 0, runId: 'run-1' as RunId, params: { lr: 0.1 }, seed: 3 };
    const sweep = {
      flowPath: spirals,
      sweepId: 'sw',
      files: [],
      backend: 'cpu',
      out: 'runs',
    } as const;
    const args = trialArgs({ ...sweep, threads: 2 }, trial);
    expect(args.slice(args.indexOf('--threads'), args.indexOf('--threads') + 2)).toEqual([
      '--threads',
      '2',
    ]);
  });

  it('on Ctrl+C ends the running trials cancelled, with their records, starts no other, and exits 130', async () => {
    const out = outDir();
    const running = new Set<number>();
    let interrupted = false;
    const ended = await flowbench(
      [
        'sweep',
        spirals,
        '--param',
        'seed=0..2',
        '--param',
        'steps=100000',
        '--parallel',
        '2',
        '--out',
        out,
        '--json',
      ],
      (line, child) => {
        const event = JSON.parse(line) as { event: string; trial?: number; done?: number };
        if (event.event === 'progress' && (event.done ?? 0) >= 5) running.add(event.trial!);
        // Once both running trials have trained a little, as a person would press it mid-sweep.
        if (!interrupted && running.size === 2) {
          interrupted = true;
          child.kill('SIGINT');
        }
      },
    );
    expect(interrupted).toBe(true);
    expect(ended.code).toBe(130);
    const last = eventsOf(ended.stdout).at(-1)!;
    expect(last).toMatchObject({ event: 'sweep-finished', cancelled: 2, notRun: 1 });
    const runs = importedRuns(out).map((record) => record.run);
    expect(runs.map((run) => run.status)).toEqual(['cancelled', 'cancelled']);
  });
});
