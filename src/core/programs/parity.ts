/**
 * Serial/interleaved parity: run the same requests both ways and compare
 * every output and every metric bit for bit.
 *
 * Idea: interleaving is only a scheduling choice, so it must not change a
 * single bit of what requests produce. A difference means some state leaks
 * between requests (a shared mutable buffer, an order-dependent random
 * stream) — exactly the bug interleaving would otherwise hide. The report
 * says, per request and per output or metric, `identical`, or where the
 * first difference is and the two values there. Trade-off: it runs every
 * request twice.
 */
import type { Tensor } from '../runtime/tensor-runtime.ts';
import type { ProgramRequest, ProgramValue, RequestId } from './program.ts';
import type { RequestResult } from './request-run.ts';
import type { ProgramRunner, RunReport } from './runner.ts';

/** Where two results first differ. */
export interface ParityDifference {
  /** Element index of the first difference, or null when the shapes or kinds differ. */
  readonly index: number | null;
  readonly serial: number | string | null;
  readonly interleaved: number | string | null;
  /** In words, e.g. "first difference at [17]: 0.25 vs 0.2500001". */
  readonly detail: string;
}

/** One compared thing of one request. */
export interface ParityEntry {
  readonly request: RequestId;
  readonly kind: 'status' | 'output' | 'metric';
  readonly name: string;
  readonly identical: boolean;
  readonly difference: ParityDifference | null;
}

export interface ParityReport {
  /** True when every entry is identical. */
  readonly identical: boolean;
  readonly entries: readonly ParityEntry[];
  readonly serial: RunReport;
  readonly interleaved: RunReport;
}

const f64 = new DataView(new ArrayBuffer(16));
function sameBits(a: number, b: number): boolean {
  f64.setFloat64(0, a);
  f64.setFloat64(8, b);
  return f64.getBigUint64(0) === f64.getBigUint64(8);
}

/** First index at which two series differ in bits, or null. */
function firstDifference(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  float32: boolean,
): ParityDifference | null {
  const n = Math.min(a.length, b.length);
  const bitsA =
    float32 && a instanceof Float32Array ? new Uint32Array(a.buffer, a.byteOffset, a.length) : null;
  const bitsB =
    float32 && b instanceof Float32Array ? new Uint32Array(b.buffer, b.byteOffset, b.length) : null;
  for (let i = 0; i < n; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    const same = bitsA !== null && bitsB !== null ? bitsA[i] === bitsB[i] : sameBits(x, y);
    if (!same)
      return {
        index: i,
        serial: x,
        interleaved: y,
        detail: `first difference at [${i}]: ${x} vs ${y}`,
      };
  }
  if (a.length !== b.length)
    return {
      index: n,
      serial: a[n] ?? null,
      interleaved: b[n] ?? null,
      detail: `serial has ${a.length} values, interleaved ${b.length}`,
    };
  return null;
}

const isTensor = (v: ProgramValue): v is Tensor => typeof v !== 'number';

function compareValues(
  a: ProgramValue | undefined,
  b: ProgramValue | undefined,
): ParityDifference | null {
  if (a === undefined || b === undefined) {
    if (a === b) return null;
    return {
      index: null,
      serial: a === undefined ? null : 'set',
      interleaved: b === undefined ? null : 'set',
      detail: `only ${a === undefined ? 'interleaved' : 'serial'} set it`,
    };
  }
  if (!isTensor(a) || !isTensor(b)) {
    if (!isTensor(a) && !isTensor(b))
      return sameBits(a, b)
        ? null
        : { index: 0, serial: a, interleaved: b, detail: `${a} vs ${b}` };
    return {
      index: null,
      serial: null,
      interleaved: null,
      detail: 'a number on one side, a tensor on the other',
    };
  }
  if (a.type !== b.type || a.dims.join() !== b.dims.join())
    return {
      index: null,
      serial: `${a.type}[${a.dims.join('×')}]`,
      interleaved: `${b.type}[${b.dims.join('×')}]`,
      detail: `${a.type}[${a.dims.join('×')}] vs ${b.type}[${b.dims.join('×')}]`,
    };
  return firstDifference(a.data, b.data, true);
}

/** Compares two runs of the same requests, request by request. */
export function compareRuns(serial: RunReport, interleaved: RunReport): ParityEntry[] {
  const entries: ParityEntry[] = [];
  const byId = new Map<RequestId, RequestResult>(interleaved.results.map((r) => [r.request, r]));
  for (const s of serial.results) {
    const i = byId.get(s.request);
    const push = (kind: ParityEntry['kind'], name: string, difference: ParityDifference | null) =>
      entries.push({ request: s.request, kind, name, identical: difference === null, difference });
    const statusOf = (r: RequestResult | undefined) =>
      r === undefined ? 'missing' : r.error === null ? r.status : `${r.status} (${r.error.code})`;
    const [ss, is] = [statusOf(s), statusOf(i)];
    push(
      'status',
      'status',
      ss === is ? null : { index: null, serial: ss, interleaved: is, detail: `${ss} vs ${is}` },
    );
    if (i === undefined) continue;
    for (const name of [...new Set([...Object.keys(s.outputs), ...Object.keys(i.outputs)])].sort())
      push('output', name, compareValues(s.outputs[name], i.outputs[name]));
    for (const name of [...new Set([...Object.keys(s.metrics), ...Object.keys(i.metrics)])].sort())
      push('metric', name, firstDifference(s.metrics[name] ?? [], i.metrics[name] ?? [], false));
  }
  return entries;
}

/**
 * Runs `requests` serially, then interleaved, on the same runner (the same
 * resident models), and compares every output and metric bit for bit.
 * Programs must be re-runnable: each `start`/`run` builds its state afresh.
 */
export async function parityCheck(
  runner: ProgramRunner,
  requests: readonly ProgramRequest[],
): Promise<ParityReport> {
  const serial = await runner.run(requests, 'serial');
  const interleaved = await runner.run(requests, 'interleaved');
  const entries = compareRuns(serial, interleaved);
  return { identical: entries.every((e) => e.identical), entries, serial, interleaved };
}
