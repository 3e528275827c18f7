/**
 * Fuzzing the importers: documents one mutation away from valid ones (a value
 * replaced by arbitrary JSON, a key removed, `__proto__` keys added) must
 * never crash the parser, and an import either adds the whole record or
 * changes nothing.
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseFlow, validateFlow } from '../core/flow/validate';
import { builtinCatalog } from '../core/nodes';
import { fromRunExport, RUN_FORMAT } from '../core/run/export';
import { countMetricPoints } from './metrics';
import { importRunRecord } from './runs';
import { FlowbenchDb } from './schema';

const flow: unknown = JSON.parse(readFileSync('src/examples/spirals-mlp.flow.json', 'utf8'));

const validRun = {
  format: RUN_FORMAT,
  run: {
    id: 'fuzz-run',
    flow: 'spirals-mlp',
    flowVersion: 1,
    params: { lr: 0.1 },
    seed: 0,
    paramsDigest: 'ab',
    groupId: null,
    cause: 'ui',
    backendChoice: 'auto',
    requires: [],
    rerunOf: null,
    status: 'ok',
    statusReason: '',
    createdAt: '2026-11-29T00:00:00.000Z',
    startedAt: '2026-11-29T00:00:00.000Z',
    finishedAt: '2026-11-29T00:00:01.000Z',
    durationMs: 1000,
    engine: { backend: 'wasm', adapter: 'none' },
    result: { accuracy: 0.9 },
  },
  flow,
  nodes: [{ node: 'train', status: 'ok', startedAt: null, durationMs: 3, error: '', logs: '' }],
  metrics: {
    'train.loss': [
      [0, 0.7, 1],
      [1, null, 2, 'NaN'],
      [2, 0.5, 3],
    ],
  },
  artifacts: [],
  intervals: [{ kind: 'data_wait', start: 0, end: 0.5 }],
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path to a value inside a JSON document. */
function paths(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const here = [prefix];
  if (Array.isArray(value)) return here.concat(value.flatMap((v, i) => paths(v, [...prefix, i])));
  if (value && typeof value === 'object')
    return here.concat(Object.entries(value).flatMap(([k, v]) => paths(v, [...prefix, k])));
  return here;
}

type Mutation =
  | { kind: 'replace'; at: number; value: Json }
  | { kind: 'remove'; at: number }
  | { kind: 'proto'; at: number };

function mutate(doc: Json, m: Mutation): Json {
  const copy = structuredClone(doc);
  const all = paths(copy).filter((p) => p.length > 0);
  const path = all[m.at % all.length]!;
  let parent: Json = copy;
  for (const key of path.slice(0, -1)) parent = (parent as Record<string, Json>)[key]!;
  const last = path.at(-1)!;
  const holder = parent as Record<string | number, Json>;
  if (m.kind === 'replace') holder[last] = m.value;
  else if (m.kind === 'remove') {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else Reflect.deleteProperty(holder, last);
  } else if (holder[last] && typeof holder[last] === 'object')
    // What JSON.parse gives for a "__proto__" key: an own property, not a prototype.
    Object.defineProperty(holder[last], '__proto__', {
      value: { polluted: true },
      enumerable: true,
      configurable: true,
      writable: true,
    });
  return copy;
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    kind: fc.constant('replace' as const),
    at: fc.nat(),
    value: fc.jsonValue() as fc.Arbitrary<Json>,
  }),
  fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('proto' as const), at: fc.nat() }),
);

describe('importer fuzzing', () => {
  it('parses and validates mutated flows without ever throwing', () => {
    fc.assert(
      fc.property(mutation, (m) => {
        const parsed = parseFlow(mutate(flow as Json, m));
        if (parsed.ok) validateFlow(parsed.flow, builtinCatalog);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: 3000 },
    );
  });

  const db = new FlowbenchDb('import-fuzz');
  afterAll(async () => {
    db.close();
    await db.delete();
  });

  it('starts from a run file that imports', () => {
    expect(fromRunExport(validRun).ok).toBe(true);
  });

  it('imports a mutated run file whole or not at all', async () => {
    await fc.assert(
      fc.asyncProperty(mutation, async (m) => {
        await Promise.all(db.tables.map((t) => t.clear()));
        const parsed = fromRunExport(mutate(validRun as Json, m));
        if (!parsed.ok) {
          expect(parsed.issues.length).toBeGreaterThan(0);
          return;
        }
        const { record } = parsed;
        try {
          await importRunRecord(db, record);
        } catch {
          expect(await db.runs.count()).toBe(0);
          expect(await countMetricPoints(db)).toBe(0);
          expect(await db.runNodes.count()).toBe(0);
          return;
        }
        expect(await db.runs.count()).toBe(1);
        expect(await countMetricPoints(db)).toBe(record.metrics.length);
        expect(await db.runNodes.count()).toBe(record.nodes.length);
        expect(await db.intervals.count()).toBe(record.intervals.length);
      }),
      { numRuns: 1500 },
    );
  });
});
