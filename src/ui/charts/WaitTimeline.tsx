/**
 * The data engine's waits, under the loss: one lane per kind of wait, each a
 * row of bars over the seconds since the run started, read live from the
 * run's recorded intervals. A lane is an image named `Timeline: <kind>`,
 * described by its count and total wait in words (for screen readers and
 * tests); nothing is drawn for a run that recorded no waits.
 */
import { useId, useMemo } from 'react';
import type { RunId } from '../../core/run/record';
import { formatValue } from '../../core/series/summary';
import { buildTimeline, formatLaneSummary, type TimelineLane } from '../../core/series/timeline';
import { useRunIntervals } from '../runs/queries';

/** Width of the lanes' drawing space; bars are placed in it and scaled to the element. */
const WIDTH = 1000;
/** The narrowest bar drawn, so a wait of a millisecond still shows. */
const MIN_BAR = 2;

export interface WaitTimelineProps {
  runId: RunId;
  /** The run's start and end (ISO), to time the lanes from its start and span to its end. */
  startedAt: string | null;
  finishedAt: string | null;
}

const epochSeconds = (iso: string | null) => (iso ? Date.parse(iso) / 1000 : undefined);

export function WaitTimeline({ runId, startedAt, finishedAt }: WaitTimelineProps) {
  const intervals = useRunIntervals(runId);
  const timeline = useMemo(
    () => buildTimeline(intervals ?? [], epochSeconds(startedAt), epochSeconds(finishedAt)),
    [intervals, startedAt, finishedAt],
  );
  if (timeline.lanes.length === 0) return null;
  return (
    <div className="fb-timeline" role="group" aria-label="Wait intervals">
      {timeline.lanes.map((lane) => (
        <Lane key={lane.kind} lane={lane} span={timeline.span} />
      ))}
      <div className="fb-timeline__axis" aria-hidden="true">
        <span>0 s</span>
        <span>time since the run started</span>
        <span>{formatValue(timeline.span)} s</span>
      </div>
    </div>
  );
}

function Lane({ lane, span }: { lane: TimelineLane; span: number }) {
  const summaryId = useId();
  const scale = span > 0 ? WIDTH / span : 0;
  return (
    <div className="fb-timeline__lane">
      <span className="fb-timeline__kind" aria-hidden="true">
        {lane.kind}
      </span>
      <svg
        role="img"
        aria-label={`Timeline: ${lane.kind}`}
        aria-describedby={summaryId}
        data-intervals={lane.count}
        viewBox={`0 0 ${String(WIDTH)} 10`}
        preserveAspectRatio="none"
        className={`fb-timeline__bars fb-timeline__bars--${lane.kind}`}
      >
        {lane.bars.map((bar, i) => (
          <rect
            key={i}
            x={bar.start * scale}
            width={Math.max(MIN_BAR, (bar.end - bar.start) * scale)}
            y={0}
            height={10}
          />
        ))}
      </svg>
      <span id={summaryId} className="fb-timeline__summary">
        {formatLaneSummary(lane)}
      </span>
    </div>
  );
}
