/**
 * A loop's units as its node's progress: every tick in the loop, and its
 * end, which no tick inside the loop reports, from the first tick past it.
 */
import { describe, expect, it } from 'vitest';
import { loopProgress } from './mlp-jobs';
import { DeviceMemoryPool } from './pool';
import type { RequestProgress, RequestStatus } from './request-run';
import { requestId } from './program';
import type { TickReport } from './runner';

const pool = new DeviceMemoryPool(1e6).snapshot();

/** A tick of one request at `step`, `done` of its `units`. */
function tick(
  step: string | null,
  done: number,
  units: number,
  state: RequestProgress['state'] = 'running',
): TickReport {
  return {
    tick: 0,
    mode: 'serial',
    pool,
    requests: [
      {
        request: requestId('train'),
        state,
        step,
        stepIndex: 0,
        steps: 1,
        unitsDone: done,
        units,
        unitsPerSecond: done > 0 ? 100 : null,
        waitingFor: null,
      },
    ],
  };
}

/** What the node was told, for ticks through the loop `train` and then `after`. */
function reported(after: TickReport): string[] {
  const told: string[] = [];
  const onTick = loopProgress('train', (done, total) => told.push(`${done}/${total}`));
  for (const t of [tick('train', 0, 4), tick('train', 1, 4), tick('train', 3, 4), after]) onTick(t);
  return told;
}

describe("a loop's progress", () => {
  it('reports its end from the first tick past it, once', () => {
    expect(reported(tick(null, 0, 0, 'ok'))).toEqual(['0/4', '1/4', '3/4', '4/4']);
    expect(reported(tick('eval', 0, 1))).toEqual(['0/4', '1/4', '3/4', '4/4']);
  });

  it.each<RequestStatus>(['error', 'cancelled'])('reports no end for a request %s', (state) => {
    expect(reported(tick(null, 0, 0, state))).toEqual(['0/4', '1/4', '3/4']);
  });

  it('reports nothing more when the last tick in it was its end', () => {
    const told: string[] = [];
    const onTick = loopProgress('train', (done, total) => told.push(`${done}/${total}`));
    for (const t of [tick('train', 4, 4), tick(null, 0, 0, 'ok'), tick(null, 0, 0, 'ok')])
      onTick(t);
    expect(told).toEqual(['4/4']);
  });
});
