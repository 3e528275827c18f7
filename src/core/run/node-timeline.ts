/**
 * A run's nodes as a Gantt chart: one lane per node, in milliseconds since
 * the run started, with the wait before each node ran.
 *
 * The record keeps when each node started and how long it took, not when it
 * became ready; but a node is ready once every node it reads from has
 * finished (a source node: when the run started), so the gap between ready
 * and started is the time it waited for the engine (a device pool admitting
 * its program, a run slot, the scheduler). That gap is drawn as the lane's
 * wait, and it is derived, never stored, so every recorded run has it.
 */
import type { FlowDocument } from '../flow/document';
import { parsePortRef } from '../flow/document';
import type { NodeStatus } from '../records/run-node';

/** What the timeline reads of a node's outcome (a `RunNodeRow`). */
export interface NodeOutcome {
  readonly node: string;
  readonly status: NodeStatus;
  readonly startedAt: string | null;
  readonly durationMs: number | null;
}

/** One node's lane; times in ms since the run started. */
export interface NodeLane {
  readonly node: string;
  /** The node's label, or its kind. */
  readonly title: string;
  readonly status: NodeStatus;
  /** When every node it reads from had finished; absent for a node that never started. */
  readonly ready?: number;
  /** When it started, and ended (a running node: now); absent for one that never started. */
  readonly start?: number;
  readonly end?: number;
  /** `start - ready`: how long it waited to run once it could (0 when it did not wait). */
  readonly waitMs: number;
  /** As recorded; a running node's is null. */
  readonly durationMs: number | null;
}

export interface NodeTimeline {
  /** Started nodes by start time, then the rest by id. */
  readonly lanes: readonly NodeLane[];
  /** The time the lanes span, ms: to the run's end, the last lane's end or now. */
  readonly span: number;
}

/**
 * The lanes of `outcomes` over `flow`'s edges, timed from `runStartedAt`
 * (ISO). `now` (epoch ms) ends the bar of a node still running and the span
 * of a run not finished; `runFinishedAt` (ISO) ends the span of one that is.
 */
export function buildNodeTimeline(
  flow: Pick<FlowDocument, 'nodes' | 'edges'>,
  outcomes: readonly NodeOutcome[],
  runStartedAt: string | null,
  runFinishedAt: string | null,
  now: number,
): NodeTimeline {
  const titles = new Map(flow.nodes.map((n) => [n.id, n.label ?? n.kind]));
  const origin = runStartedAt ? Date.parse(runStartedAt) : earliestStart(outcomes);
  const times = new Map<string, { start: number; end: number }>();
  for (const outcome of outcomes) {
    if (!outcome.startedAt || origin === undefined) continue;
    const start = Math.max(0, Date.parse(outcome.startedAt) - origin);
    const end =
      outcome.durationMs !== null
        ? start + outcome.durationMs
        : outcome.status === 'running'
          ? Math.max(start, now - origin)
          : start;
    times.set(outcome.node, { start, end });
  }
  const upstream = new Map<string, string[]>();
  for (const edge of flow.edges) {
    const to = parsePortRef(edge.to).node;
    const from = parsePortRef(edge.from).node;
    const inputs = upstream.get(to);
    if (inputs) inputs.push(from);
    else upstream.set(to, [from]);
  }
  const lanes = outcomes.map((outcome): NodeLane => {
    const title = titles.get(outcome.node) ?? outcome.node;
    const { node, status, durationMs } = outcome;
    const time = times.get(node);
    if (!time) return { node, title, status, durationMs, waitMs: 0 };
    // Ready when the last node it reads from ended (never later than it started).
    let inputsEnded = 0;
    for (const from of upstream.get(node) ?? [])
      inputsEnded = Math.max(inputsEnded, times.get(from)?.end ?? 0);
    const ready = Math.min(time.start, inputsEnded);
    return {
      node,
      title,
      status,
      durationMs,
      ready,
      start: time.start,
      end: time.end,
      waitMs: time.start - ready,
    };
  });
  lanes.sort(byStart);
  const finished = runFinishedAt && origin !== undefined ? Date.parse(runFinishedAt) - origin : 0;
  const running = runFinishedAt === null && origin !== undefined ? now - origin : 0;
  const span = Math.max(finished, running, ...lanes.map((lane) => lane.end ?? 0));
  return { lanes, span };
}

function earliestStart(outcomes: readonly NodeOutcome[]): number | undefined {
  const starts = outcomes.flatMap((o) => (o.startedAt ? [Date.parse(o.startedAt)] : []));
  return starts.length > 0 ? Math.min(...starts) : undefined;
}

function byStart(a: NodeLane, b: NodeLane): number {
  if (a.start !== undefined && b.start !== undefined && a.start !== b.start)
    return a.start - b.start;
  if (a.start !== undefined && b.start === undefined) return -1;
  if (a.start === undefined && b.start !== undefined) return 1;
  return a.node < b.node ? -1 : a.node > b.node ? 1 : 0;
}
