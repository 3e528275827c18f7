import { describe, expect, it } from 'vitest';
import { compareRuns, parityCheck } from './parity.ts';
import { DeviceMemoryPool } from './pool.ts';
import { component, loop, requestId, type ProgramRequest } from './program.ts';
import { ProgramRunner, type RunReport } from './runner.ts';
import { noModels } from './synthetic-programs.ts';

const runner = () =>
  new ProgramRunner({ runtime: noModels, pool: new DeviceMemoryPool(1000), models: [] });

describe('parityCheck', () => {
  it('finds state shared between requests: the first differing index and both values', async () => {
    // A counter shared by all requests: its values depend on the order of units.
    let shared = 0;
    const requests: ProgramRequest[] = ['a', 'b'].map((id) => ({
      id: requestId(id),
      program: {
        steps: [
          loop({
            name: 'count',
            units: 3,
            start: (ctx) => ({
              unit: () => ctx.emit('seen', shared++),
              end: () =>
                ctx.output('last', {
                  type: 'float32',
                  data: Float32Array.of(0, 0.5, shared),
                  dims: [3],
                }),
            }),
          }),
          component({ name: 'own', run: (ctx) => ctx.output('own', 7) }),
        ],
      },
    }));
    const report = await parityCheck(runner(), requests);
    expect(report.identical).toBe(false);
    const entry = (request: string, name: string) =>
      report.entries.find((e) => e.request === requestId(request) && e.name === name);
    // Serial: a sees 0, 1, 2. Interleaved: a sees 6, 8, 10 (the counter went on at 6).
    expect(entry('a', 'seen')?.difference).toEqual({
      index: 0,
      serial: 0,
      interleaved: 6,
      detail: 'first difference at [0]: 0 vs 6',
    });
    expect(entry('a', 'last')?.difference).toMatchObject({ index: 2, serial: 3, interleaved: 11 });
    expect(entry('a', 'own')).toMatchObject({ kind: 'output', identical: true, difference: null });
    expect(entry('a', 'status')).toMatchObject({ kind: 'status', identical: true });
  });

  it('reports identical for requests that keep to themselves', async () => {
    const requests: ProgramRequest[] = ['a', 'b', 'c'].map((id, k) => ({
      id: requestId(id),
      program: {
        steps: [
          loop({
            name: 'count',
            units: 4,
            start: (ctx) => {
              let own = k;
              return { unit: () => ctx.emit('seen', Math.fround((own += 0.1))) };
            },
          }),
        ],
      },
    }));
    const report = await parityCheck(runner(), requests);
    expect(report.identical).toBe(true);
    expect(report.entries).toHaveLength(6); // status and one metric per request
    expect(report.serial.ticks).toBe(12);
    expect(report.interleaved.ticks).toBe(4);
  });

  it('tells bits apart that equality does not: -0 and 0, lengths, shapes, a missing output', () => {
    const run = (value: number, series: number[], dims: number[]): RunReport => ({
      mode: 'serial',
      ticks: 1,
      results: [
        {
          request: requestId('r'),
          status: 'ok',
          error: null,
          outputs: {
            v: value,
            t: { type: 'float32', data: new Float32Array(dims[0]! * dims[1]!), dims },
            ...(series.length > 1 ? { extra: 1 } : {}),
          },
          metrics: { m: series },
          units: 1,
        },
      ],
    });
    const entries = compareRuns(run(0, [1, 2], [2, 3]), run(-0, [1], [3, 2]));
    const by = (name: string) => entries.find((e) => e.name === name)?.difference;
    expect(by('v')).toMatchObject({ index: 0, serial: 0, interleaved: -0 });
    expect(by('m')).toMatchObject({ index: 1, detail: 'serial has 2 values, interleaved 1' });
    expect(by('t')).toMatchObject({ index: null, detail: 'float32[2×3] vs float32[3×2]' });
    expect(by('extra')).toMatchObject({ detail: 'only serial set it' });
  });
});
