import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { RunId } from '../../src/core/run/record';
import { throttleProgress, type ProgressReport } from './progress';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const report = (node: string, done: number, total = 100): ProgressReport => ({
  runId: 'r' as RunId,
  node,
  done,
  total,
});

it('sends the latest report per node once per interval, and the final one at once', () => {
  const sent: ProgressReport[] = [];
  const progress = throttleProgress((r) => sent.push(r), 100);
  for (let done = 1; done <= 50; done++) progress(report('train', done));
  progress(report('eval', 3, 10));
  expect(sent).toEqual([]);
  vi.advanceTimersByTime(100);
  expect(sent).toEqual([report('train', 50), report('eval', 3, 10)]);
  progress(report('train', 99));
  progress(report('train', 100));
  expect(sent.at(-1)).toEqual(report('train', 100));
  vi.advanceTimersByTime(100);
  expect(sent.filter((r) => r.node === 'train').map((r) => r.done)).toEqual([50, 100]);
});
