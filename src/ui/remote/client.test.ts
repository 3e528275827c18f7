/**
 * The run-server client as the panel relies on it: answers checked before
 * use, each failure one catalogue error naming the URL (never the token) and
 * what was expected, and a failed Connect that changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { isFlowbenchError } from '../../core/errors';
import type { RemoteRun } from './answers';
import {
  followRemoteRun,
  listRemoteRuns,
  remoteServer,
  type Fetch,
  type LiveSource,
} from './client';
import { createRemoteStore } from './remote-store';

const trial: RemoteRun = {
  runId: '019a0000-0000-7000-8000-00000000a1b2',
  sweepId: '019a0000-0000-7000-8000-000000005eed',
  index: 0,
  flow: 'spirals-mlp',
  params: { steps: 60 },
  seed: 3,
  state: 'active',
  status: null,
  attempts: 1,
};

/** A fetch that answers every request with `status` and `body`, and notes the URLs asked. */
function answering(status: number, body: string) {
  const asked: string[] = [];
  const fetchImpl: Fetch = (url) => {
    asked.push(url);
    return Promise.resolve(new Response(body, { status }));
  };
  return { fetchImpl, asked };
}

const unreachable: Fetch = () => Promise.reject(new TypeError('Failed to fetch'));

async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

const server = remoteServer('127.0.0.1:8737/runs/', 's3same');

describe('the run-server client', () => {
  it('reads an address as serve prints it, and refuses one that is not an address', () => {
    expect(server).toEqual({ url: 'http://127.0.0.1:8737', token: 's3same' });
    expect(remoteServer(' https://runs.example.org ', '  ')).toEqual({
      url: 'https://runs.example.org',
      token: null,
    });
    for (const bad of ['', 'ftp://host/x', 'http://'])
      expect(() => remoteServer(bad)).toThrow(/did not answer with an address/);
  });

  it('lists the runs, carrying the token in the query', async () => {
    const { fetchImpl, asked } = answering(200, JSON.stringify([trial]));
    expect(await listRemoteRuns(server, fetchImpl)).toEqual([trial]);
    expect(asked).toEqual(['http://127.0.0.1:8737/runs?token=s3same']);
  });

  it('says the server is unreachable, naming the URL and not the token', async () => {
    const error = await failure(listRemoteRuns(server, unreachable));
    expect(isFlowbenchError(error, 'remote-unreachable')).toBe(true);
    expect(String(error)).toContain('Could not reach http://127.0.0.1:8737/runs');
    expect(String(error)).toContain('--allow-origin');
    expect(String(error)).not.toContain('s3same');
  });

  it('says a token was refused (401) and an origin refused (403), in the server words', async () => {
    const token = await failure(
      listRemoteRuns(server, answering(401, '{"error":"a valid token is needed"}').fetchImpl),
    );
    expect(isFlowbenchError(token, 'remote-refused')).toBe(true);
    expect(String(token)).toContain('http://127.0.0.1:8737/runs refused the request (HTTP 401)');
    expect(String(token)).toContain('the token `flowbench serve` was started with');
    const origin = await failure(
      listRemoteRuns(
        server,
        answering(
          403,
          '{"error":"origin http://a.example is not allowed: start serve with --allow-origin http://a.example"}',
        ).fetchImpl,
      ),
    );
    expect(isFlowbenchError(origin, 'remote-refused')).toBe(true);
    expect(String(origin)).toContain('(HTTP 403)');
    expect(String(origin)).toContain('--allow-origin http://a.example');
  });

  it('refuses an answer that is not a list of runs, saying what is wrong', async () => {
    const notJson = await failure(listRemoteRuns(server, answering(200, '<html>').fetchImpl));
    expect(String(notJson)).toContain(
      'http://127.0.0.1:8737/runs did not answer with a list of runs: the answer is not JSON',
    );
    const { runId: _, ...noId } = trial;
    const shape = await failure(
      listRemoteRuns(server, answering(200, JSON.stringify([noId])).fetchImpl),
    );
    expect(isFlowbenchError(shape, 'remote-malformed')).toBe(true);
    expect(String(shape)).toMatch(/\[0\]\.runId|0\.runId/);
    const missing = await failure(
      listRemoteRuns(server, answering(404, '{"error":"no /runs here"}').fetchImpl),
    );
    expect(String(missing)).toContain('HTTP 404, no /runs here');
  });
});

/** A stand-in for the browser's EventSource, driven by the test. */
class FakeSource implements LiveSource {
  onmessage: ((event: MessageEvent<string>) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  readyState = 1;
  closed = false;
  constructor(readonly url: string) {}
  close() {
    this.closed = true;
    this.readyState = 2;
  }
  send(data: unknown) {
    this.onmessage?.({ data: JSON.stringify(data) } as MessageEvent<string>);
  }
}

describe("a running trial's live stream", () => {
  it('hands on each message, and closes itself when the trial finishes', () => {
    let source!: FakeSource;
    const got: unknown[] = [];
    followRemoteRun(
      server,
      trial.runId,
      { message: (m) => got.push(m), failed: (e) => got.push(e) },
      (url) => (source = new FakeSource(url)),
    );
    expect(source.url).toBe(`http://127.0.0.1:8737/runs/${trial.runId}/live?token=s3same`);
    source.send({ event: 'live', node: 'train', port: 'loss', value: 0.5, step: 1, at: 1000 });
    source.send({ event: 'finished', status: 'ok' });
    expect(got).toEqual([
      { event: 'live', node: 'train', port: 'loss', value: 0.5, step: 1, at: 1000 },
      { event: 'finished', status: 'ok' },
    ]);
    expect(source.closed).toBe(true);
  });

  it('stops at a message that is not one, and reports a stream the browser gave up on', () => {
    let source!: FakeSource;
    const failed: string[] = [];
    const handlers = { message: () => undefined, failed: (e: Error) => failed.push(e.message) };
    followRemoteRun(server, trial.runId, handlers, (url) => (source = new FakeSource(url)));
    source.send({ event: 'live', node: 'train' });
    expect(source.closed).toBe(true);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toContain(`/runs/${trial.runId}/live did not answer with live messages`);

    followRemoteRun(server, trial.runId, handlers, (url) => (source = new FakeSource(url)));
    source.readyState = 0; // reconnecting: the browser tries again by itself
    source.onerror?.(new Event('error'));
    expect(failed).toHaveLength(1);
    source.readyState = 2;
    source.onerror?.(new Event('error'));
    expect(failed[1]).toContain('Could not reach');
  });
});

describe('the connection', () => {
  it('keeps the previous server when a Connect fails, and says why', async () => {
    let answer: Fetch = answering(200, JSON.stringify([trial])).fetchImpl;
    const remote = createRemoteStore((url, init) => answer(url, init));
    expect(await remote.connect('http://127.0.0.1:8737', '')).toBe(true);
    answer = unreachable;
    expect(await remote.connect('http://127.0.0.1:9999', '')).toBe(false);
    const state = remote.store.getState();
    expect(state.server?.url).toBe('http://127.0.0.1:8737');
    expect(state.runs).toEqual([trial]);
    expect(state.error).toContain('Could not reach http://127.0.0.1:9999/runs');
    remote.disconnect();
  });

  it('charts a finished run from its run file, read once, and says so when the answer is not one', async () => {
    const done: RemoteRun = { ...trial, state: 'completed', status: 'ok' };
    const file = {
      format: 'flowbench.run/2',
      metrics: {
        'train.loss': [
          [0, 0.9, 1.5],
          [1, null, 2.5, 'NaN'],
        ],
      },
    };
    const asked: string[] = [];
    let body = JSON.stringify(file);
    const remote = createRemoteStore((url) => {
      asked.push(url);
      const answer = url.endsWith('/runs') ? JSON.stringify([done]) : body;
      return Promise.resolve(new Response(answer, { status: 200 }));
    });
    await remote.connect('http://127.0.0.1:8737', '');
    await Promise.all([remote.load(done.runId), remote.load(done.runId)]);
    expect(remote.store.getState().live[done.runId]).toEqual({
      series: {
        'train.loss': [
          { step: 0, value: 0.9, ts: 1.5 },
          { step: 1, value: NaN, ts: 2.5 },
        ],
      },
      finished: 'ok',
      error: null,
    });
    expect(asked.filter((url) => url.includes(done.runId))).toHaveLength(1);

    body = JSON.stringify({ metrics: { 'train.loss': [[0, 'low']] } });
    await remote.connect('http://127.0.0.1:8737', '');
    await remote.load(done.runId);
    expect(remote.store.getState().live[done.runId]?.error).toContain(
      `http://127.0.0.1:8737/runs/${done.runId} did not answer with a run file`,
    );
    remote.disconnect();
  });

  it("gathers a followed run's live values into series by metric, step by step", async () => {
    let source!: FakeSource;
    const remote = createRemoteStore(
      answering(200, JSON.stringify([trial])).fetchImpl,
      (url) => (source = new FakeSource(url)),
    );
    await remote.connect('http://127.0.0.1:8737', '');
    const stop = remote.follow(trial.runId);
    source.send({ event: 'started', runId: trial.runId, attempts: 1 });
    source.send({ event: 'live', node: 'train', port: 'loss', value: 0.9, step: 10, at: 2000 });
    source.send({ event: 'live', node: 'train', port: 'loss', value: 0.7, step: 20, at: 3000 });
    source.send({ event: 'live', node: 'train', port: 'accuracy', value: 0.5, step: null, at: 0 });
    const live = remote.store.getState().live[trial.runId];
    expect(live?.series['train.loss']).toEqual([
      { step: 10, value: 0.9, ts: 2 },
      { step: 20, value: 0.7, ts: 3 },
    ]);
    expect(live?.series['train.accuracy']).toEqual([{ step: 0, value: 0.5, ts: 0 }]);
    // A second attempt (its first worker died) starts the series over, as its record will.
    source.send({ event: 'started', runId: trial.runId, attempts: 2 });
    source.send({ event: 'live', node: 'train', port: 'loss', value: 0.8, step: 5, at: 4000 });
    expect(remote.store.getState().live[trial.runId]?.series).toEqual({
      'train.loss': [{ step: 5, value: 0.8, ts: 4 }],
    });
    stop();
    expect(source.closed).toBe(true);
    remote.disconnect();
  });
});
