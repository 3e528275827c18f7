/**
 * The selected run's nodes as a Gantt chart: a lane per node over the time
 * since the run started, its bar in its status's colour, and before the bar
 * the time it waited once its inputs were ready (grey: waiting for a
 * device pool's admission, a run slot or the scheduler). Hovering or
 * focusing a lane shows the node's timings. The lanes come from
 * `core/run/node-timeline.ts`; a running run's chart grows each second.
 * Only the lanes in view of the run panel are in the page
 * (`runs/virtual-rows.ts`): a thousand lanes laid out again on every batch of
 * node outcomes held the page for hundreds of milliseconds.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { buildNodeTimeline, type NodeLane } from '../../core/run/node-timeline';
import type { RunRow } from '../../core/run/record';
import { formatDuration } from '../runs/format';
import { useRunNodes } from '../runs/queries';
import { useVirtualRows } from '../runs/virtual-rows';
import './analysis.css';

/** Width of a lane's drawing space; bars are placed in it and scaled to the element. */
const WIDTH = 1000;
/** The narrowest bar drawn, so a node of a millisecond still shows. */
const MIN_BAR = 2;

/** Epoch ms, ticking each second while `ticking` (a finished run needs no clock). */
function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}

/** `train · ok · waited 180 ms · started +0.5 s · took 2.0 s`. */
export function describeLane(lane: NodeLane): string {
  const parts = [lane.node, lane.status];
  if (lane.start === undefined) return [...parts, 'never started'].join(' · ');
  if (lane.waitMs > 0) parts.push(`waited ${formatDuration(lane.waitMs)}`);
  parts.push(`started +${formatDuration(lane.start)}`);
  parts.push(
    lane.durationMs === null
      ? `running for ${formatDuration((lane.end ?? lane.start) - lane.start)}`
      : `took ${formatDuration(lane.durationMs)}`,
  );
  return parts.join(' · ');
}

export function NodeTimeline({ run }: { run: RunRow }) {
  const outcomes = useRunNodes(run.id);
  const now = useNow(run.status === 'running');
  const timeline = useMemo(
    () => buildNodeTimeline(run.flowSnapshot, outcomes ?? [], run.startedAt, run.finishedAt, now),
    [run.flowSnapshot, outcomes, run.startedAt, run.finishedAt, now],
  );
  const [hovered, setHovered] = useState<string | null>(null);
  const body = useRef<HTMLDivElement>(null);
  // The run panel scrolls, not the chart: found once the chart is in the page.
  const scroller = useRef<HTMLElement | null>(null);
  useLayoutEffect(() => {
    scroller.current = body.current?.closest<HTMLElement>('.fb-run-detail') ?? null;
  });
  // Below the run's facts and charts, mostly out of view: measured before more rows are drawn.
  const view = useVirtualRows(scroller, body, timeline.lanes.length, 0);
  if (!timeline.lanes.some((lane) => lane.start !== undefined)) return null;
  const scale = timeline.span > 0 ? WIDTH / timeline.span : 0;
  const shown = timeline.lanes.find((lane) => lane.node === hovered);
  return (
    <section className="fb-run-part fb-gantt" aria-label="Node timeline">
      <h3>Timeline</h3>
      <div ref={body}>
        {view.before > 0 && <div aria-hidden="true" style={{ height: view.before }} />}
        {timeline.lanes.slice(view.first, view.last).map((lane, i) => (
          <div className="fb-gantt__lane" key={lane.node} data-index={view.first + i}>
            <span className="fb-gantt__node" title={lane.title}>
              {lane.node}
            </span>
            <svg
              role="img"
              aria-label={`Timeline of ${lane.node}`}
              aria-describedby={lane.node === hovered ? 'node-timeline-tip' : undefined}
              data-status={lane.status}
              tabIndex={0}
              viewBox={`0 0 ${String(WIDTH)} 10`}
              preserveAspectRatio="none"
              className="fb-gantt__bars"
              onMouseEnter={() => setHovered(lane.node)}
              onMouseLeave={() => setHovered(null)}
              onFocus={() => setHovered(lane.node)}
              onBlur={() => setHovered(null)}
            >
              {lane.ready !== undefined && lane.waitMs > 0 && (
                <rect
                  className="fb-gantt__wait"
                  x={lane.ready * scale}
                  width={Math.max(MIN_BAR, lane.waitMs * scale)}
                  y={2}
                  height={6}
                />
              )}
              {lane.start !== undefined && lane.end !== undefined && (
                <rect
                  className={`fb-gantt__bar fb-gantt__bar--${lane.status}`}
                  x={lane.start * scale}
                  width={Math.max(MIN_BAR, (lane.end - lane.start) * scale)}
                  y={0}
                  height={10}
                />
              )}
            </svg>
            <span className="fb-gantt__duration">{formatDuration(lane.durationMs)}</span>
          </div>
        ))}
        {view.after > 0 && <div aria-hidden="true" style={{ height: view.after }} />}
      </div>
      <div className="fb-gantt__axis" aria-hidden="true">
        <span>0 s</span>
        <span>time since the run started · grey: waiting to run</span>
        <span>{formatDuration(timeline.span)}</span>
      </div>
      <p id="node-timeline-tip" role="tooltip" className="fb-gantt__tip" hidden={!shown}>
        {shown ? describeLane(shown) : ''}
      </p>
    </section>
  );
}
