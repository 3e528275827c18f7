/**
 * Connect: the browser lists the trials `flowbench serve` serves from a real
 * Redis queue, marked remote and not stored; follows a running one's loss
 * live into the same charts; and imports it in one click, after which it is
 * a local run that a reload keeps. Every process it starts (redis-server, the
 * worker, the server) is stopped by its PID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { testNodeFlags } from '../cli/testing';
import { startRedis, type TestRedis } from '../cli/testing-redis';
import { expect, test } from './fixtures';
import { Connect } from './pages/connect';
import { readStoredRuns } from './support/stored';

const root = path.resolve(import.meta.dirname, '..');
const spirals = path.join(root, 'src/examples/spirals-mlp.flow.json');

/** `flowbench <args>` in a process of its own; `lines` gets what it prints. */
function flowbench(args: string[], lines: string[] = []): ChildProcess {
  const child = spawn(
    process.execPath,
    [...testNodeFlags, path.join(root, 'bin/flowbench.mjs'), ...args],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n')));
  child.stderr.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n')));
  return child;
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve),
  );

/** Stop `child` by its PID, and wait for it to go. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const gone = exited(child);
  process.kill(child.pid, 'SIGTERM');
  await gone;
}

/** A loopback port nothing listens on: one the system handed out, closed again. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Redis, one worker and a server: a queue and a worker process beside the browser. */
const heavy = { tag: '@heavy' };

test(
  'Connect lists a served run as remote, charts it live, and imports it for good',
  heavy,
  async ({ app, page, runs, charts, alerts, appURL }) => {
    test.setTimeout(90_000);
    const started: ChildProcess[] = [];
    let redis: TestRedis | undefined;
    try {
      redis = await startRedis();
      const queue = ['--redis', redis.url, '--queue', 'connect'];
      const sweep = flowbench(['sweep', spirals, '--param', 'steps=1500', ...queue, '--json']);
      expect(await exited(sweep)).toBe(0);
      const served: string[] = [];
      started.push(flowbench(['serve', ...queue, '--port', '0', '--allow-origin', appURL], served));
      await expect.poll(() => served.join('\n')).toMatch(/serving queue 'connect' at /);
      const url = /at (http:\S+)\/runs/.exec(served.join('\n'))![1]!;

      const connect = new Connect(page);
      // Closed until opened: the runs table does not start under the server's fields.
      await expect(connect.toggle).toHaveAttribute('aria-expanded', 'false');
      await expect(connect.form).toHaveCount(0);
      // Nothing listens there: the message names the URL, and nothing changes.
      const nowhere = `http://127.0.0.1:${await closedPort()}`;
      await connect.connect(nowhere);
      await alerts.expectMessage(`Could not reach ${nowhere}/runs`, '--allow-origin');
      await expect(runs.rows).toHaveCount(0);

      await connect.connect(url);
      await expect(connect.status).toContainText(`${url}: 1 remote run`);
      const remoteRow = runs.rows.filter({ hasText: 'remote' });
      await expect(remoteRow).toHaveCount(1);
      await runs.expectStatus(remoteRow, 'queued');
      const runId = await runs.idOf(remoteRow);
      // Listed, not stored: only Import writes a remote run to IndexedDB.
      expect((await readStoredRuns(page)).runs).toEqual([]);

      // Followed before a worker takes it, so its whole loss streams in.
      await remoteRow.click();
      started.push(flowbench(['worker', ...queue]));
      const loss = charts.chart('train.loss');
      await expect(loss).toHaveAttribute('data-points', /^[1-9]/);
      const first = Number(await loss.getAttribute('data-points'));
      await expect
        .poll(async () => Number(await loss.getAttribute('data-points')))
        .toBeGreaterThan(first);

      await runs.expectStatus(remoteRow, 'ok');
      // Finished, it charts from its run file with nothing imported: connected afresh (no live
      // series kept), its loss is drawn again.
      await connect.disconnectButton.click();
      await connect.connect(url);
      await remoteRow.click();
      await expect(loss).toHaveAttribute('data-points', /^[1-9]/);
      expect((await readStoredRuns(page)).runs).toEqual([]);
      await remoteRow.getByRole('button', { name: /^Import run / }).click();
      const local = runs.row(runId);
      await expect(local).toHaveCount(1);
      await expect(local).not.toContainText('remote');
      await runs.expectStatus(local, 'ok');
      expect((await readStoredRuns(page)).runs.map((run) => run.id)).toEqual([runId]);

      await app.reload();
      // Left open, it opens so after a reload.
      await expect(connect.address).toBeVisible();
      await runs.expectStatus(runs.row(runId), 'ok');
      await expect(runs.rows).toHaveCount(1);
      await expect(alerts.all).toHaveCount(0);
    } finally {
      for (const child of started.reverse()) await stop(child);
      await redis?.stop();
    }
  },
);
