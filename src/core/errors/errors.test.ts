import { describe, expect, it } from 'vitest';
import type { RunId } from '../run/record';
import {
  errorCatalogue,
  FlowbenchError,
  hasCategory,
  isFlowbenchError,
  isTransient,
  reviveError,
  runStorageFailures,
  serializeError,
  type ErrorCode,
  type ErrorData,
} from './index';

const runId = 'r1' as RunId;
const issues = [{ path: 'params.steps', message: 'expects an integer' }];

/** Data for every code; the compiler makes a new code add its own. */
const samples: { [C in ErrorCode]: ErrorData<C> } = {
  'invalid-flow': { issues, subject: 'The run parameters are' },
  'invalid-data-config': { issues },
  'node-input': { problem: "input 'data' expected a dataset" },
  'model-feed': { input: 'sr', problem: 'takes int64 [] (a scalar); the constant is [2]' },
  'model-output': { output: 'ids', problem: 'holds 9007199254740993, beyond ±2^53' },
  'onnx-invalid': { problem: 'the ONNX model has no graph outputs' },
  'bad-import': { file: 'a.run.json', problem: 'is not valid JSON (Unexpected end)' },
  'bad-option': { option: '--seed', problem: "expects a non-negative integer, got 'x'" },
  'run-exists': { runId },
  'remote-unreachable': { url: 'http://127.0.0.1:8737/runs', origin: 'http://localhost:5173' },
  'redis-unreachable': { url: 'redis://127.0.0.1:6379', problem: 'connect ECONNREFUSED' },
  'remote-refused': {
    url: 'http://127.0.0.1:8737/runs',
    status: 401,
    reason: 'it needs the token `flowbench serve` was started with',
  },
  'remote-malformed': {
    url: 'http://127.0.0.1:8737/runs',
    expected: 'a list of runs',
    problem: '[0].runId: expected a string',
  },
  'metric-step-twice': { runId, name: 'train.loss', step: 3 },
  'run-not-found': { runId },
  'file-missing': { digest: 'sha256:0123456789abcdef' },
  'bundle-too-large': { runId, megabytes: 600.5, limit: 512 },
  'run-claimed': { runId, status: 'running' },
  'data-unavailable': { problem: 'The episode cache is empty' },
  'data-exhausted': { maxEpisodes: 100 },
  'data-wait-timeout': { problem: 'No batch after 2.000 s (data_wait_timeout)' },
  'generation-timeout': { generation: 3, after: 'generation_timeout 5 s' },
  'producer-failed': { producer: 1, generation: 2, reason: 'boom' },
  'producer-worker-died': { reason: 'no message' },
  'model-worker-died': { reason: 'no message' },
  'data-engine-closed': {},
  infeasible: { problem: 'train: step needs 2 GB, pool is 1 GB' },
  deadlock: { problem: 'deadlock: no request progressed for 8 ticks' },
  'step-failed': { problem: 'train unit 3: ORT failed' },
  'model-load-failed': { problem: 'model m could not load on webgpu' },
  cancelled: { where: 'train unit 3' },
  'storage-quota': { runId, statusReason: 'storage quota exceeded' },
  'storage-failed': { runId, statusReason: "could not store the run's record" },
  'backend-unavailable': { problem: 'WebGPU was chosen but this browser gives no adapter' },
  'device-lost': { reason: 'destroyed', detail: 'device was destroyed' },
  'invalid-program': { problem: 'train reads y, which no step set' },
  'engine-crashed': { reason: 'out of memory' },
  'reply-unsendable': { call: 'importFile', reason: 'Maximum call stack size exceeded' },
  'bad-stored-record': {
    record: 'run',
    table: 'runs',
    db: 3,
    count: 1,
    rows: ['"r1": status: Invalid option'],
  },
  'table-unparseable': {
    file: 'a.csv',
    line: 7,
    column: 12,
    problem: 'a quoted field is never closed',
  },
  'table-empty': { file: 'a.csv' },
  'table-column-missing': {
    file: 'a.csv',
    role: 'label column',
    column: 'kind',
    columns: ['x', 'y'],
  },
  'table-bad-value': { file: 'a.csv', row: 3, column: 'x', problem: '"abc" is not a number' },
  'table-single-class': { file: 'a.csv', column: 'kind', classes: ['cat'] },
  'artifact-without-bytes': { name: 'model', node: 'train' },
  'artifact-mismatch': {
    name: 'model',
    node: 'train',
    recorded: 'sha256:00ff',
    actual: 'sha256:ff00',
  },
  unexpected: { name: 'TypeError', message: 'x is not a function' },
};
const codes = Object.keys(errorCatalogue) as ErrorCode[];

/** A catalogue error of `code` with its sample data (a union: the pairing holds per code). */
const sample = <C extends ErrorCode>(code: C) => new FlowbenchError(code, samples[code]);

/** What a structured clone across a worker boundary leaves of `error`, revived. */
const acrossWorker = (error: unknown) => reviveError(structuredClone(serializeError(error)));

describe('the error catalogue', () => {
  it.each(codes)('%s says something a person can read, from its data alone', (code) => {
    const message = sample(code).message;
    expect(message.trim()).not.toBe('');
    expect(message).not.toMatch(/undefined|\[object Object\]/);
  });

  it('keeps the texts people and tests already know', () => {
    expect(sample('invalid-flow').message).toBe(
      'The run parameters are not valid:\nparams.steps: expects an integer',
    );
    expect(new FlowbenchError('invalid-flow', { issues }).message).toMatch(
      /^The flow is not valid/,
    );
    expect(new FlowbenchError('run-claimed', { runId, status: null }).message).toBe(
      'run r1 does not exist',
    );
    expect(new FlowbenchError('cancelled', {}).message).toBe('The run was cancelled');
    expect(sample('bad-import').message).toBe('a.run.json is not valid JSON (Unexpected end)');
  });

  it.each(codes)('%s crosses a worker boundary with its code, data and message', (code) => {
    const sent = sample(code);
    const received = acrossWorker(sent);
    expect(received).toBeInstanceOf(FlowbenchError);
    expect(received.code).toBe(code);
    expect(received.data).toEqual(sent.data);
    expect(received.message).toBe(sent.message);
    expect(received.category).toBe(sent.category);
  });

  it('carries anything else across as unexpected, naming what it was', () => {
    const received = acrossWorker(new TypeError('x is not a function'));
    expect(isFlowbenchError(received, 'unexpected')).toBe(true);
    expect(received.data).toEqual({ name: 'TypeError', message: 'x is not a function' });
    expect(received.message).toBe('x is not a function');
    expect(acrossWorker('a string').message).toBe('a string');
  });

  it('revives a code it does not know as unexpected, keeping the message', () => {
    const stray = { code: 'no-such-code', data: {}, message: 'from elsewhere' };
    const received = reviveError(stray as unknown as ReturnType<typeof serializeError>);
    expect(received.code).toBe('unexpected');
    expect(received.message).toBe('from elsewhere');
  });

  it('tests codes, with narrowed data', () => {
    const error: unknown = acrossWorker(sample('generation-timeout'));
    expect(isFlowbenchError(error, 'data-exhausted')).toBe(false);
    expect(isFlowbenchError(error, 'data-exhausted', 'generation-timeout')).toBe(true);
    if (!isFlowbenchError(error, 'generation-timeout')) throw new Error('not narrowed');
    expect(error.data.generation).toBe(3);
    expect(isFlowbenchError(new Error('plain'))).toBe(false);
  });

  it('names the storage failures the engine reports itself, of the storage category', () => {
    // The UI shows no second alert for these: the engine's storage-failure event said it.
    const reported = (error: unknown) => isFlowbenchError(error, ...runStorageFailures);
    expect(codes.filter((code) => reported(acrossWorker(sample(code)))).sort()).toEqual([
      'storage-failed',
      'storage-quota',
    ]);
    const storage = codes.filter((code) => hasCategory(acrossWorker(sample(code)), 'storage'));
    expect(storage.sort()).toEqual(['storage-failed', 'storage-quota']);
    // What the person must fix, or what nothing reported, is shown.
    expect(reported(sample('file-missing'))).toBe(false);
    expect(reported(sample('bad-stored-record'))).toBe(false);
    expect(reported(new Error('storage-quota'))).toBe(false);
  });

  it('gives every code a category a command line can map to an exit status', () => {
    const categories = new Set(codes.map((code) => sample(code).category));
    expect([...categories].sort()).toEqual([
      'bad-input',
      'cancelled',
      'environment',
      'internal',
      'run',
      'storage',
    ]);
    expect(sample('invalid-flow').category).toBe('bad-input');
    expect(sample('cancelled').category).toBe('cancelled');
    expect(sample('engine-crashed').category).toBe('internal');
  });

  it('lets a consumer wait out only what a refill can fix', () => {
    expect(codes.filter((code) => isTransient(sample(code)))).toEqual(['data-unavailable']);
    expect(isTransient(acrossWorker(sample('data-unavailable')))).toBe(true);
  });
});
