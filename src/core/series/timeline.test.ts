import { describe, expect, it } from 'vitest';
import { buildTimeline, formatLaneSummary } from './timeline';

describe('buildTimeline', () => {
  const intervals = [
    { kind: 'usage_throttle', start: 105, end: 105.5 },
    { kind: 'data_wait', start: 100, end: 102 },
    { kind: 'custom', start: 103, end: 103.25 },
    { kind: 'usage_throttle', start: 107, end: 107.25 },
  ];

  it('gives one lane per kind, documented kinds first, bars timed from the origin', () => {
    const { lanes, span } = buildTimeline(intervals, 99);
    expect(lanes.map((l) => l.kind)).toEqual(['data_wait', 'usage_throttle', 'custom']);
    expect(lanes[0]!.bars).toEqual([{ start: 1, end: 3 }]);
    expect(lanes[1]).toMatchObject({ count: 2, total: 0.75 });
    expect(span).toBe(8.25);
  });

  it('spans to the run end when given, and starts at the first interval without an origin', () => {
    expect(buildTimeline(intervals, undefined, 120).span).toBe(20);
    expect(buildTimeline([], 0, undefined)).toEqual({ lanes: [], span: 0 });
  });

  it('says each lane in words: count and total wait', () => {
    const [lane] = buildTimeline(intervals.slice(1, 2)).lanes;
    expect(formatLaneSummary(lane!)).toBe('1 interval · 2 s waiting in all');
    const lanes = buildTimeline(intervals).lanes;
    expect(formatLaneSummary(lanes[1]!)).toBe('2 intervals · 0.75 s waiting in all');
  });
});
