/**
 * Distributed sweeps as they meet a real Redis (Debian's redis-server, on a
 * free loopback port, stopped by its PID): `flowbench sweep --redis` enqueues,
 * `flowbench worker` processes take and run the trials, and every trial ends
 * with exactly one record — when the same sweep is enqueued twice, and when
 * a worker is killed with SIGKILL mid-trial. Ctrl+C on a worker hands its
 * trial back to the queue. `flowbench serve` lists the trials, streams a
 * running one's live values and hands out its run file, to allowed origins.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fromRunExport } from '../src/core/run/export';
import { connectionOf, type LiveMessage } from './queue';
import { serve, type RemoteRun } from './serve-command';
import {
  eventsOf,
  flowbench,
  flowbenchHere,
  importedRuns,
  irisBundle,
  outDir,
  root,
  testNodeFlags,
} from './testing';
import { startRedis, type TestRedis } from './testing-redis';

const spirals = join(root, 'src/examples/spirals-mlp.flow.json');
// Short locks, so a dead worker's trial is found stalled in seconds (the default is 30 s); not
// shorter, for a worker renews them on the thread that runs its trials, which a loaded machine
// can hold for a second or more.
const LOCK_MS = '4000';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});

/** A `flowbench worker --json` process, and its events as they come. */
function startWorker(queue: string) {
  const events: Record<string, unknown>[] = [];
  const waiters: { test: (e: Record<string, unknown>) => boolean; found: () => void }[] = [];
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...testNodeFlags,
      join(root, 'bin/flowbench.mjs'),
      'worker',
      '--redis',
      redis.url,
      '--queue',
      queue,
      '--lock-ms',
      LOCK_MS,
      '--json',
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let pending = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      const event = JSON.parse(line) as Record<string, unknown>;
      events.push(event);
      for (const waiter of [...waiters])
        if (waiter.test(event)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.found();
        }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return {
    child,
    events,
    exited,
    /** Resolves at the first event (from now on, or already seen) that passes `test`. */
    until(test: (event: Record<string, unknown>) => boolean): Promise<void> {
      if (events.some(test)) return Promise.resolve();
      return new Promise((found) => waiters.push({ test, found }));
    },
    stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The sweep command against the test's Redis, following it to its end. */
const sweep = (queue: string, out: string, ...params: string[]) =>
  flowbench([
    'sweep',
    spirals,
    ...params.flatMap((param) => ['--param', param]),
    '--redis',
    redis.url,
    '--queue',
    queue,
    '--wait',
    '--out',
    out,
    '--json',
  ]);

describe('flowbench sweep --redis and flowbench worker', () => {
  it('runs a 6-trial sweep over 2 worker processes, one record each; enqueued again, none runs twice', async () => {
    const workers = [startWorker('twice'), startWorker('twice')];
    try {
      const out = outDir();
      const grid = ['lr=0.05,0.1,0.2', 'seed=0..1', 'steps=5'];
      const first = await sweep('twice', out, ...grid);
      expect(first.code).toBe(0);
      const runs = importedRuns(out).map((record) => record.run);
      expect(runs).toHaveLength(6);
      const sweepId = eventsOf(first.stdout)[0]!.sweepId;
      expect(runs.every((run) => run.groupId === sweepId && run.status === 'ok')).toBe(true);
      // Both workers took trials.
      for (const worker of workers)
        expect(worker.events.some((event) => event.event === 'finished')).toBe(true);

      const again = await sweep('twice', outDir(), ...grid);
      expect(again.code).toBe(0);
      expect(eventsOf(again.stdout)[0]).toMatchObject({ event: 'enqueued', sweepId, again: true });
      const queue = new Queue('twice', { connection: connectionOf(redis.url) });
      const counts = await queue.getJobCounts('completed', 'waiting', 'active');
      await queue.close();
      expect(counts).toEqual({ completed: 6, waiting: 0, active: 0 });
      const finished = workers.flatMap((w) => w.events.filter((e) => e.event === 'finished'));
      expect(finished).toHaveLength(6);
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
    }
  });

  it('runs a run bundle’s sweep: each trial on the bundle’s file and its run’s params, but for the grid', async () => {
    const worker = startWorker('bundle');
    try {
      const dir = outDir();
      const { bundle, first } = await irisBundle(dir);
      const out = join(dir, 'sweep');
      const ended = await flowbench([
        'sweep',
        bundle,
        '--param',
        'seed=1..2',
        '--redis',
        redis.url,
        '--queue',
        'bundle',
        '--wait',
        '--out',
        out,
        '--json',
      ]);
      expect(ended.code).toBe(0);
      expect(eventsOf(ended.stdout)[0]).toMatchObject({
        event: 'enqueued',
        from: { file: bundle, files: 1 },
      });
      const runs = importedRuns(out).map((record) => record.run);
      expect(runs.map((run) => [run.status, run.params.epochs, run.seed]).sort()).toEqual([
        ['ok', 2, 1],
        ['ok', 2, 2],
      ]);
      const [bundled] = importedRuns(first).map((record) => record.run);
      const fileOf = (run: typeof bundled) =>
        run!.flowSnapshot.nodes.find((n) => n.id === 'data')?.params.file;
      for (const run of runs) expect(fileOf(run)).toBe(fileOf(bundled));
    } finally {
      await worker.stop();
    }
  });

  it('runs the trial of a worker killed mid-trial again elsewhere: 6 records, one with 2 attempts', async () => {
    // The doomed worker alone first: with both started at once, the other could take all six
    // trials before the doomed one's process was up, and the test waited for ever.
    const doomed = startWorker('killed');
    let survivor: ReturnType<typeof startWorker> | null = null;
    try {
      const out = outDir();
      const swept = sweep('killed', out, 'lr=0.05,0.1,0.2', 'seed=0..1', 'steps=40');
      // Mid-trial: the doomed worker has started one and reported steps of it.
      await doomed.until(
        (event) => event.event === 'progress' && (event.done as number) < (event.total as number),
      );
      process.kill(doomed.child.pid!, 'SIGKILL');
      await doomed.exited;
      survivor = startWorker('killed');
      const ended = await swept;
      expect(ended.code).toBe(0);
      const runs = importedRuns(out).map((record) => record.run);
      expect(runs).toHaveLength(6);
      expect(new Set(runs.map((run) => run.id)).size).toBe(6);
      expect(runs.every((run) => run.status === 'ok')).toBe(true);
      const attempts = eventsOf(ended.stdout)
        .filter((event) => event.event === 'trial')
        .map((event) => event.attempts);
      expect(attempts.sort()).toEqual([1, 1, 1, 1, 1, 2]);
    } finally {
      await Promise.all([doomed.stop(), survivor?.stop()]);
    }
  });

  it('hands its trial back to the queue on Ctrl+C, unrecorded, and exits 130', async () => {
    const worker = startWorker('returned');
    try {
      const queue = new Queue('returned', { connection: connectionOf(redis.url) });
      const enqueued = await flowbench([
        'sweep',
        spirals,
        '--param',
        'steps=100000',
        '--redis',
        redis.url,
        '--queue',
        'returned',
        '--json',
      ]);
      expect(enqueued.code).toBe(0);
      await worker.until((event) => event.event === 'progress');
      worker.child.kill('SIGINT');
      expect(await worker.exited).toBe(130);
      expect(worker.events.some((event) => event.event === 'returned')).toBe(true);
      const counts = await queue.getJobCounts('waiting', 'active', 'completed', 'failed');
      await queue.close();
      expect(counts).toEqual({ waiting: 1, active: 0, completed: 0, failed: 0 });
    } finally {
      await worker.stop();
    }
  });

  it('serves the trials: lists them, streams a running one live, hands out its record; refuses other origins', async () => {
    const app = 'http://app.example';
    const server = await serve({
      redis: redis.url,
      queue: 'served',
      host: '127.0.0.1',
      port: 0,
      allowOrigins: [app],
      token: null,
    });
    const base = `http://127.0.0.1:${server.port}`;
    const worker = { stop: () => Promise.resolve<number | null>(null) };
    try {
      const enqueued = await flowbench([
        'sweep',
        spirals,
        '--param',
        'steps=60',
        '--redis',
        redis.url,
        '--queue',
        'served',
        '--json',
      ]);
      expect(enqueued.code).toBe(0);
      const listed = (await (await fetch(`${base}/runs`)).json()) as RemoteRun[];
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({ flow: 'spirals-mlp', state: 'waiting', status: null });
      const runId = listed[0]!.runId;

      // Subscribed before any worker runs it, so the stream holds the whole run.
      const live = await fetch(`${base}/runs/${runId}/live`, { headers: { origin: app } });
      expect(live.headers.get('content-type')).toBe('text/event-stream');
      expect(live.headers.get('access-control-allow-origin')).toBe(app);
      Object.assign(worker, startWorker('served'));
      const messages = (await live.text())
        .split('\n\n')
        .filter((chunk) => chunk.startsWith('data: '))
        .map((chunk) => JSON.parse(chunk.slice(6)) as LiveMessage);
      expect(messages[0]).toMatchObject({ event: 'started', runId });
      expect(messages.some((m) => m.event === 'live' && m.port === 'loss')).toBe(true);
      expect(messages.at(-1)).toEqual({ event: 'finished', status: 'ok' });

      const record = fromRunExport(await (await fetch(`${base}/runs/${runId}`)).json());
      expect(record.ok && record.record.run.status).toBe('ok');
      // The worker publishes `finished` as the run ends, a moment before the queue marks the job
      // completed: the list catches up.
      await vi.waitFor(
        async () => {
          const after = (await (await fetch(`${base}/runs`)).json()) as RemoteRun[];
          expect(after[0]).toMatchObject({ runId, state: 'completed', status: 'ok', attempts: 1 });
        },
        { timeout: 10_000, interval: 100 },
      );

      const foreign = await fetch(`${base}/runs`, {
        headers: { origin: 'http://elsewhere.example' },
      });
      expect(foreign.status).toBe(403);
      // The refusal is readable by the refused page (it holds no data), so the app can say why.
      expect(foreign.headers.get('access-control-allow-origin')).toBe('http://elsewhere.example');
      expect(((await foreign.json()) as { error: string }).error).toContain(
        '--allow-origin http://elsewhere.example',
      );
    } finally {
      await worker.stop();
      await server.stop();
    }
  });

  it('needs a token to serve on an address other machines reach', async () => {
    const open = await flowbench(['serve', '--redis', redis.url, '--host', '0.0.0.0']);
    expect(open.code).toBe(2);
    expect(open.stderr).toContain('give a --token');
    const server = await serve({
      redis: redis.url,
      queue: 'served',
      host: '127.0.0.1',
      port: 0,
      allowOrigins: [],
      token: 'sesame',
    });
    try {
      const base = `http://127.0.0.1:${server.port}/runs`;
      expect((await fetch(base)).status).toBe(401);
      expect((await fetch(`${base}?token=sesame`)).status).toBe(200);
      const bearer = await fetch(base, { headers: { authorization: 'Bearer sesame' } });
      expect(bearer.status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('refuses a Redis that does not answer (exit 1) or is no Redis URL (exit 2), saying which and why', async () => {
    // Nothing listens on port 1 of the loopback.
    const gone = 'redis://127.0.0.1:1';
    for (const args of [
      ['worker', '--redis', gone],
      ['serve', '--redis', gone],
      ['sweep', spirals, '--param', 'seed=0..1', '--redis', gone],
    ]) {
      const ended = await flowbenchHere(args);
      expect(ended.code).toBe(1);
      expect(ended.stderr).toBe(
        `flowbench: Could not reach Redis at ${gone} (connect ECONNREFUSED 127.0.0.1:1): expected a Redis server answering there. Is it running, at that address?\n`,
      );
    }
    // A password in the URL is never shown.
    const secret = await flowbenchHere(['worker', '--redis', 'redis://me:sesame@127.0.0.1:1']);
    expect(secret.code).toBe(1);
    expect(secret.stderr).toContain('Could not reach Redis at redis://me:***@127.0.0.1:1 (');
    expect(secret.stderr).not.toContain('sesame');
    const malformed = await flowbenchHere(['worker', '--redis', 'localhost:6379']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain(
      "--redis expects a Redis URL such as redis://host:6379, got 'localhost:6379'",
    );
  });
});
