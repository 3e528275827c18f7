import { describe, expect, it } from 'vitest';
import { createProgramHost } from './host.ts';
import { DeviceMemoryPool } from './pool.ts';
import { component } from './program.ts';
import type { ParityReport } from './parity.ts';
import { events, noModels, request, trainLoop } from './synthetic-programs.ts';

const immediately = () => Promise.resolve();

describe('createProgramHost', () => {
  it('runs a job on the pool of its backend and streams every metric point once', async () => {
    const pool = new DeviceMemoryPool(1000);
    const seen: string[] = [];
    const ticks: string[] = [];
    const host = createProgramHost({
      runtime: noModels,
      poolFor: (choice) => {
        seen.push(choice);
        return { backend: 'wasm', pool };
      },
      onTick: (node, backend, t) => ticks.push(`${node}@${backend}:${t.tick}`),
      yieldNow: immediately,
    });
    const e = events();
    const emitted: number[] = [];
    const report = await host.run({
      node: 'train',
      backend: 'prefer-webgpu',
      models: [],
      requests: [request('r', [trainLoop('r', e, { units: 3, resident: 100, peak: 50 })])],
      onEmit: (_r, metric, value) => metric === 'loss' && emitted.push(value),
    });
    expect(seen).toEqual(['prefer-webgpu']);
    expect(report.results[0]?.status).toBe('ok');
    expect(emitted).toEqual([1, 1 / 2, 1 / 3]);
    expect(ticks).toEqual(['train@wasm:1', 'train@wasm:2', 'train@wasm:3']);
    expect(pool.used).toBe(0);
  });

  it('in parity mode runs serial then interleaved, reports the comparison, streams the serial pass only', async () => {
    const pool = new DeviceMemoryPool(1000);
    const reports: [string, ParityReport][] = [];
    const host = createProgramHost({
      runtime: noModels,
      poolFor: () => ({ backend: 'wasm', pool }),
      mode: 'parity',
      onParity: (node, r) => reports.push([node, r]),
      yieldNow: immediately,
    });
    const e = events();
    const emitted: string[] = [];
    const report = await host.run({
      node: 'train',
      backend: 'auto',
      models: [],
      requests: ['a', 'b'].map((id) =>
        request(id, [
          trainLoop(id, e, { units: 2, resident: 100, peak: 50 }),
          component({ name: 'done', run: (ctx) => ctx.output('done', 1) }),
        ]),
      ),
      onEmit: (r, metric) => emitted.push(`${r}.${metric}`),
    });
    // Serial, then interleaved.
    expect(e.log).toEqual(['a:0', 'a:1', 'b:0', 'b:1', 'a:0', 'b:0', 'a:1', 'b:1']);
    expect(emitted).toEqual(['a.loss', 'a.loss', 'b.loss', 'b.loss']);
    expect(report.mode).toBe('serial');
    expect(reports).toHaveLength(1);
    const [node, parity] = reports[0]!;
    expect(node).toBe('train');
    expect(parity.identical).toBe(true);
    expect(parity.entries.map((x) => `${x.request} ${x.kind} ${x.name}`)).toEqual([
      'a status status',
      'a output done',
      'a metric loss',
      'b status status',
      'b output done',
      'b metric loss',
    ]);
    expect(pool.used).toBe(0);
  });
});
