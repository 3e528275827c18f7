import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { liveValues } from './live-values';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

it('publishes at most one value per port per interval, the latest, and the last on close', () => {
  const published: string[] = [];
  const live = liveValues(
    (node, port, value) => published.push(`${node}.${port}=${value}`),
    (_node, port) => (port === 'loss' ? 100 : 1000),
  );
  live.push('train', 'loss', 1);
  live.push('train', 'loss', 2);
  live.push('train', 'loss', 3);
  live.push('sim', 'reward', 7);
  expect(published).toEqual(['train.loss=1', 'sim.reward=7']);
  vi.advanceTimersByTime(100);
  expect(published).toEqual(['train.loss=1', 'sim.reward=7', 'train.loss=3']);
  live.push('train', 'loss', 4);
  live.push('sim', 'reward', 8);
  live.close();
  expect(published.slice(3)).toEqual(['train.loss=4', 'sim.reward=8']);
  vi.advanceTimersByTime(5000);
  expect(published).toHaveLength(5);
});

it("publishes a node's waiting values at once when it is flushed, and no other node's", () => {
  const published: string[] = [];
  const live = liveValues(
    (node, port, value) => published.push(`${node}.${port}=${value}`),
    () => 1000,
  );
  live.push('train', 'loss', 1);
  live.push('train', 'loss', 2);
  live.push('train', 'val_loss', 5);
  live.push('train', 'val_loss', 6);
  live.push('sim', 'reward', 7);
  live.push('sim', 'reward', 8);
  live.flush('train');
  expect(published).toEqual([
    'train.loss=1',
    'train.val_loss=5',
    'sim.reward=7',
    'train.loss=2',
    'train.val_loss=6',
  ]);
  live.close();
  expect(published.at(-1)).toBe('sim.reward=8');
  expect(published).toHaveLength(6);
});
