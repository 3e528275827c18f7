import { describe, expect, it } from 'vitest';
import { component, type ProgramStep } from './program.ts';
import { events, request, setup, trainLoop, type Events } from './synthetic-programs.ts';

describe('modes', () => {
  const program = (id: string, e: Events): ProgramStep[] => [
    component({ name: 'prep', run: () => void e.log.push(`${id}:prep`) }),
    trainLoop(id, e, { units: 2, resident: 0, peak: 0 }),
    component({ name: 'report', run: () => void e.log.push(`${id}:report`) }),
  ];

  it('serial runs each request to completion in turn', async () => {
    const { runner, ticks } = setup(100);
    const e = events();
    await runner.run(
      ['a', 'b'].map((id) => request(id, program(id, e))),
      'serial',
    );
    expect(e.log).toEqual(['a:prep', 'a:0', 'a:1', 'a:report', 'b:prep', 'b:0', 'b:1', 'b:report']);
    expect(ticks[0]?.requests.map((r) => r.state)).toEqual(['running', 'queued']);
  });

  it('interleaved advances every request by one unit per tick, round-robin', async () => {
    const { runner } = setup(100);
    const e = events();
    const report = await runner.run(
      ['a', 'b', 'c'].map((id) => request(id, program(id, e))),
      'interleaved',
    );
    expect(e.log).toEqual([
      ...['a:prep', 'b:prep', 'c:prep'],
      ...['a:0', 'b:0', 'c:0'],
      ...['a:1', 'b:1', 'c:1'],
      ...['a:report', 'b:report', 'c:report'],
    ]);
    expect(report.ticks).toBe(4);
  });

  it('reports steps done of total and steps per second by the injected clock', async () => {
    const { runner, ticks, advanceClock } = setup(100);
    const e = events();
    await runner.run(
      [
        request('a', [
          trainLoop('a', e, { units: 3, resident: 0, peak: 0, during: () => advanceClock(250) }),
        ]),
      ],
      'serial',
    );
    expect(ticks.map((t) => t.requests[0])).toMatchObject([
      { state: 'running', step: 'train', unitsDone: 1, units: 3, unitsPerSecond: 4 },
      { state: 'running', step: 'train', unitsDone: 2, units: 3, unitsPerSecond: 4 },
      { state: 'ok' },
    ]);
  });
});
