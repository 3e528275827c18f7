import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import type { EngineInfo } from '../../core/runtime/tensor-runtime';
import { FlowbenchError, isFlowbenchError } from '../../core/errors';
import type { RunParity } from '../../core/programs';
import type { RunId } from '../../core/run/record';
import {
  answerRequest,
  sendReply,
  type EngineEvent,
  type EngineHandlers,
  type EngineMessage,
  type EngineRequest,
  type ImportOutcome,
  type PoolBudgetInfo,
} from '../../../workers/protocol';
import { EngineClient, relayRunEvents, type EventOrigin } from './client';

const info: EngineInfo = { backend: 'wasm', adapter: null };
const runId = 'r1' as RunId;

/** A handler map as the worker has one, each answer made up. */
const handlers: EngineHandlers = {
  info: () => Promise.resolve(info),
  take: () => Promise.resolve({ taken: [runId] }),
  checkParity: ({ runId }) =>
    runId === 'taken'
      ? Promise.reject(new FlowbenchError('run-claimed', { runId, status: 'running' }))
      : Promise.reject(new TypeError('parity is broken')),
  poolBudgets: ({ backend = 'wasm', bytes }) =>
    Promise.resolve([{ backend, bytes: bytes ?? 1024, source: 'default' }]),
  importFiles: ({ files }) =>
    Promise.resolve(files.map(({ name }) => ({ kind: 'document' as const, value: name }))),
  describeTable: () => Promise.reject(new TypeError('no tables here')),
  exportRunBundle: () => Promise.resolve(new Blob([])),
  describeModel: () => Promise.reject(new TypeError('no models here')),
  describeArray: () => Promise.reject(new TypeError('no arrays here')),
  storeFile: ({ file }) => Promise.resolve({ digest: `sha256:${file.name}` }),
  describeFile: () => Promise.resolve(null),
};

const channels: MessageChannel[] = [];
afterEach(() => {
  for (const channel of channels.splice(0)) {
    channel.port1.close();
    channel.port2.close();
  }
});

/** A client talking over a real `MessageChannel` (structured clone and all) to `serve`. */
function connect(serve: (request: EngineRequest) => Promise<EngineMessage>): EngineClient {
  const channel = new MessageChannel();
  channels.push(channel);
  channel.port2.onmessage = (event: MessageEvent<EngineRequest>) =>
    void serve(event.data).then((reply) => channel.port2.postMessage(reply));
  return new EngineClient(channel.port1);
}

describe('the engine protocol', () => {
  it('resolves each call with its handler’s result, across a message channel', async () => {
    const client = connect((request) => answerRequest(handlers, request));
    expect(await client.call('info', {})).toEqual(info);
    expect(await client.call('take', {})).toEqual({ taken: [runId] });
    expect(await client.call('poolBudgets', { backend: 'webgpu', bytes: 7 })).toEqual([
      { backend: 'webgpu', bytes: 7, source: 'default' },
    ]);
  });

  it('rejects with the catalogue error the handler threw, code and data intact', async () => {
    const client = connect((request) => answerRequest(handlers, request));
    const error = await client
      .call('checkParity', { runId: 'taken' as RunId })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FlowbenchError);
    expect(error).toMatchObject({
      code: 'run-claimed',
      category: 'run',
      data: { runId: 'taken', status: 'running' },
      message: 'run taken is running, not queued: another engine owns it',
    });
    const other = await client.call('checkParity', { runId }).catch((e: unknown) => e);
    expect(isFlowbenchError(other, 'unexpected')).toBe(true);
    expect(other).toMatchObject({ data: { name: 'TypeError' }, message: 'parity is broken' });
  });

  it('refuses a reply that answers another call than the one asked', async () => {
    const client = connect((request) =>
      Promise.resolve({
        type: 'reply',
        id: request.id,
        call: 'take',
        ok: true,
        result: { taken: [] },
      }),
    );
    await expect(client.call('info', {})).rejects.toThrow(/for 'info' as one for 'take'/);
  });

  it('fails a call whose answer cannot be copied to the page, saying why, instead of never settling', async () => {
    const channel = new MessageChannel();
    channels.push(channel);
    const unsendable: EngineHandlers = {
      ...handlers,
      importFiles: () => Promise.resolve([{ kind: 'document', value: () => 'a function' }]),
    };
    channel.port2.onmessage = (event: MessageEvent<EngineRequest>) =>
      void answerRequest(unsendable, event.data).then((reply) =>
        sendReply((message) => channel.port2.postMessage(message), reply),
      );
    const client = new EngineClient(channel.port1);
    const error = await client
      .call('importFiles', { files: [{ name: 'f.json', file: new Blob([]) }] })
      .catch((e: unknown) => e);
    expect(isFlowbenchError(error, 'reply-unsendable')).toBe(true);
    expect((error as Error).message).toMatch(
      /^The engine could not send its answer to 'importFiles' to the page: .+/,
    );
  });

  it('fails every call in flight when the engine is gone', async () => {
    const client = connect(() => new Promise<never>(() => undefined));
    const pending = client.call('info', {});
    client.failPending(new FlowbenchError('engine-crashed', { reason: 'out of memory' }));
    await expect(pending).rejects.toThrow('The engine stopped: out of memory');
  });

  it('types each call’s params and result from the one map of calls', () => {
    const client = new EngineClient({ postMessage: () => undefined, onmessage: null });
    expectTypeOf(client.call('info', {})).resolves.toEqualTypeOf<EngineInfo>();
    expectTypeOf(client.call('take', {})).resolves.toEqualTypeOf<{ taken: RunId[] }>();
    expectTypeOf(client.call('checkParity', { runId })).resolves.toEqualTypeOf<RunParity>();
    expectTypeOf(client.call('poolBudgets', {})).resolves.toEqualTypeOf<PoolBudgetInfo[]>();
    expectTypeOf(
      client.call('importFiles', { files: [{ name: 'a', file: new Blob() }] }),
    ).resolves.toEqualTypeOf<ImportOutcome[]>();
    // @ts-expect-error checkParity takes a run id
    void client.call('checkParity', {}).catch(() => undefined);
    // @ts-expect-error no such call
    void client.call('delete', { runId }).catch(() => undefined);
  });

  it('makes the worker’s handler map complete and typed', () => {
    expectTypeOf<EngineHandlers['checkParity']>().parameters.toEqualTypeOf<[{ runId: RunId }]>();
    expectTypeOf<EngineHandlers['take']>().returns.resolves.toEqualTypeOf<{
      taken: RunId[];
    }>();
    // @ts-expect-error a handler map without `importFiles` does not compile
    const incomplete: EngineHandlers = {
      info: handlers.info,
      take: handlers.take,
      checkParity: handlers.checkParity,
      poolBudgets: handlers.poolBudgets,
    };
    const wrongResult: EngineHandlers = {
      ...handlers,
      // @ts-expect-error take resolves with `{ taken }`, not a status
      take: () => Promise.resolve({ status: 'ok' }),
    };
    expect([incomplete, wrongResult]).toHaveLength(2);
  });
});

describe('events across tabs', () => {
  /** A tab: its client, the port its engine posts events on, and what its listeners heard. */
  function tab() {
    const engine = new MessageChannel();
    channels.push(engine);
    const client = new EngineClient(engine.port1);
    const heard: [EngineEvent, EventOrigin][] = [];
    client.subscribe((event, from) => heard.push([event, from]));
    return { client, engine: engine.port2, heard };
  }
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 1));
  };

  it('shows a run driven by one tab in the other, each event once, saying whose engine sent it', async () => {
    const [a, b] = [tab(), tab()];
    const between = new MessageChannel();
    channels.push(between);
    relayRunEvents(a.client, between.port1);
    relayRunEvents(b.client, between.port2);
    const progress: EngineEvent = { type: 'progress', runId, node: 'train', done: 5, total: 20 };
    const failure: EngineEvent = { type: 'storage-failure', runId, reason: 'quota' };
    a.engine.postMessage(progress);
    a.engine.postMessage(failure);
    await until(() => b.heard.length === 2);
    expect(b.heard).toEqual([
      [progress, 'another-tab'],
      [failure, 'another-tab'],
    ]);
    expect(a.heard).toEqual([
      [progress, 'this-tab'],
      [failure, 'this-tab'],
    ]);
    // What B hears from A is not sent back: A heard each event once.
    b.engine.postMessage(progress);
    await until(() => a.heard.length === 3);
    expect(a.heard[2]).toEqual([progress, 'another-tab']);
    expect(b.heard).toHaveLength(3);
  });
});
