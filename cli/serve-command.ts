/**
 * `flowbench serve --redis URL`: the queue's trials over HTTP, for a browser
 * to list, watch and import (queue.ts says what lives in Redis):
 *
 * - `GET /runs`: every trial the queue holds, newest sweep first: run id,
 *   sweep, grid point, params, seed, flow name, its job's state (`waiting`,
 *   `active`, `completed`, `failed`, `delayed`) and, once finished, status;
 * - `GET /runs/<id>`: a finished trial's run file, as `flowbench.run/2`;
 * - `GET /runs/<id>/live`: Server-Sent Events of a running trial (each a
 *   `LiveMessage`), ending with `finished`; a finished trial's stream says
 *   `finished` at once.
 *
 * It binds to 127.0.0.1 unless told otherwise, and then needs a token
 * (`--token`, or FLOWBENCH_TOKEN), given as `Authorization: Bearer …` or
 * `?token=…` (an EventSource cannot set headers). A request from a page of
 * another origin is refused unless `--allow-origin` names that origin (the
 * refusal, and only it, readable by that page); one with no Origin (curl, a
 * script) is served. Trade-off: plain HTTP; behind
 * anything but loopback put it behind a TLS proxy.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import type { JobType } from 'bullmq';
import { hasCategory } from '../src/core/errors';
import { badOption, errorEvent, EXIT } from './args';
import { DEFAULT_QUEUE, keysOf, queueOn, reachRedis, redisClient, type TrialResult } from './queue';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
/**
 * The states listed, in the order a job passes through them: a job that moves
 * on while the list is read is then seen twice (its later sighting kept),
 * never missed.
 */
const STATES: JobType[] = ['waiting', 'delayed', 'active', 'completed', 'failed'];
/** The most trials `GET /runs` lists. */
const LIST_LIMIT = 2000;

/** One trial as `GET /runs` lists it. */
export interface RemoteRun {
  runId: string;
  sweepId: string;
  index: number;
  flow: string;
  params: Record<string, unknown>;
  seed: number | null;
  state: string;
  status: string | null;
  attempts: number;
}

export interface ServeOptions {
  redis: string;
  queue: string;
  host: string;
  port: number;
  allowOrigins: readonly string[];
  token: string | null;
}

/** Start serving; resolves with the address it listens on and a way to stop. */
export async function serve(options: ServeOptions) {
  const queue = queueOn(options.queue, options.redis);
  const redis = redisClient(options.redis);
  const subscriber = redisClient(options.redis);
  const keys = keysOf(options.queue);
  const streams = new Map<string, Set<ServerResponse>>();
  subscriber.on('message', (channel: string, message: string) => {
    for (const response of streams.get(channel) ?? []) {
      response.write(`data: ${message}\n\n`);
      if ((JSON.parse(message) as { event: string }).event === 'finished') response.end();
    }
  });

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, { error: String(error) });
      else response.end();
    });
  });

  const send = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const origin = request.headers.origin;
    if (origin !== undefined) {
      if (!options.allowOrigins.includes(origin)) {
        // The refusal alone is readable by that page (it carries no data), so the app can say
        // which --allow-origin is missing instead of "unreachable".
        response.setHeader('access-control-allow-origin', origin);
        response.setHeader('vary', 'origin');
        send(response, 403, {
          error: `origin ${origin} is not allowed: start serve with --allow-origin ${origin}`,
        });
        return;
      }
      response.setHeader('access-control-allow-origin', origin);
      response.setHeader('vary', 'origin');
      response.setHeader('access-control-allow-headers', 'authorization');
    }
    if (request.method === 'OPTIONS') {
      response.writeHead(204);
      return response.end();
    }
    const url = new URL(request.url ?? '/', 'http://serve');
    if (options.token !== null) {
      const given =
        request.headers.authorization?.replace(/^Bearer /, '') ?? url.searchParams.get('token');
      if (given !== options.token) {
        send(response, 401, { error: 'a valid token is needed' });
        return;
      }
    }
    if (request.method !== 'GET') {
      send(response, 405, { error: 'only GET' });
      return;
    }
    const path = url.pathname.split('/').filter(Boolean);
    if (path.length === 1 && path[0] === 'runs') {
      send(response, 200, await listRuns());
      return;
    }
    if (path.length === 2 && path[0] === 'runs') {
      const text = await redis.get(keys.run(path[1]!));
      if (text === null) {
        send(response, 404, { error: `run ${path[1]} has no record yet` });
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end(text);
    }
    if (path.length === 3 && path[0] === 'runs' && path[2] === 'live')
      return streamLive(path[1]!, response);
    send(response, 404, { error: `no ${url.pathname} here` });
  }

  async function listRuns(): Promise<RemoteRun[]> {
    // By run id: each state is a read of its own, and a trial listed twice would show twice.
    const byId = new Map<string, RemoteRun>();
    for (const state of STATES) {
      const jobs = await queue.getJobs([state], 0, LIST_LIMIT - 1);
      for (const job of jobs) {
        if (!job.id) continue;
        byId.set(job.id, {
          runId: job.id,
          sweepId: job.data.sweepId,
          index: job.data.index,
          flow: job.data.flow.name,
          params: job.data.params,
          seed: job.data.seed ?? null,
          state,
          status:
            state === 'completed'
              ? ((job.returnvalue as TrialResult | null)?.status ?? null)
              : null,
          attempts: job.attemptsStarted,
        });
      }
    }
    // Run ids are time-ordered: newest sweep first, each in grid order.
    return [...byId.values()].sort((a, b) =>
      a.sweepId === b.sweepId ? a.index - b.index : a.sweepId < b.sweepId ? 1 : -1,
    );
  }

  async function streamLive(runId: string, response: ServerResponse) {
    const channel = keys.live(runId);
    let listeners = streams.get(channel);
    if (!listeners) {
      listeners = new Set();
      streams.set(channel, listeners);
      await subscriber.subscribe(channel);
    }
    listeners.add(response);
    // Headers only once subscribed: a client that has them misses nothing published after.
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    response.flushHeaders();
    response.on('close', () => {
      listeners.delete(response);
      if (listeners.size > 0) return;
      streams.delete(channel);
      void subscriber.unsubscribe(channel);
    });
    // Subscribed first, so a trial that ends now is told either way.
    const finished = await redis.get(keys.run(runId));
    if (finished !== null) {
      const status = (JSON.parse(finished) as { run: { status: string } }).run.status;
      response.write(`data: ${JSON.stringify({ event: 'finished', status })}\n\n`);
      response.end();
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    port,
    async stop() {
      for (const listeners of streams.values()) for (const response of listeners) response.end();
      await new Promise((resolve) => server.close(resolve));
      await queue.close();
      redis.disconnect();
      subscriber.disconnect();
    },
  };
}

export async function serveCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      redis: { type: 'string' },
      queue: { type: 'string', default: DEFAULT_QUEUE },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8737' },
      'allow-origin': { type: 'string', multiple: true, default: [] as string[] },
      token: { type: 'string' },
    },
  });
  try {
    if (positionals.length > 0) throw badOption('serve', `takes no file, got ${positionals[0]}`);
    if (values.redis === undefined)
      throw badOption('--redis', 'is needed: the Redis URL of the queue, e.g. redis://host:6379');
    const port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535)
      throw badOption('--port', `expects a port number, got '${values.port}'`);
    const token = values.token ?? process.env.FLOWBENCH_TOKEN ?? null;
    if (!LOOPBACK.has(values.host) && token === null)
      throw badOption(
        '--host',
        `${values.host} is reachable from other machines: give a --token (or FLOWBENCH_TOKEN) that requests must carry`,
      );
    await reachRedis(values.redis);
    const server = await serve({
      redis: values.redis,
      queue: values.queue,
      host: values.host,
      port,
      allowOrigins: values['allow-origin'],
      token,
    });
    process.stdout.write(
      `serving queue '${values.queue}' at http://${values.host}:${server.port}/runs (Ctrl+C stops)\n`,
    );
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await server.stop();
    return EXIT.ok;
  } catch (error) {
    process.stderr.write(`flowbench: ${errorEvent(error).message}\n`);
    return hasCategory(error, 'bad-input') ? EXIT.badInput : EXIT.error;
  }
}
