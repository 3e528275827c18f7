/**
 * Whether a device loop's train step may run captured (WebGPU graph
 * capture): recorded once, then replayed every step over the same buffers.
 *
 * Idea: onnxruntime replays a captured step with the buffers it was bound
 * to the first time, so every input and output must keep its buffer and its
 * shape from the first step to the last. The loop writes each step's own
 * feeds (its row indices, Adam's step count) into fixed buffers, so a step
 * may be captured only while those feeds keep the names, types and dims the
 * first step had. These rules are the pure part of the decision; what the
 * library itself refuses (an op it cannot capture, a session it will not
 * make) is found out by trying, and said in the same words. Trade-off: a
 * step whose shape changes part-way ends the capture for the rest of the
 * loop (never a second capture), so a loop replays one recording at most.
 */
import type { GraphCaptureReport, Tensor } from './tensor-runtime.ts';

export type { GraphCaptureReport } from './tensor-runtime.ts';

/** A feed's element type and dims, as the capture fixed them. */
export interface FeedShape {
  readonly type: Tensor['type'];
  readonly dims: readonly number[];
}

/** Each per-step feed's shape, by input name. */
export type StepShapes = ReadonlyMap<string, FeedShape>;

const described = (shape: FeedShape): string => `${shape.type} [${shape.dims.join(', ')}]`;

/** The shapes of one step's feeds. */
export function stepShapes(feeds: Readonly<Record<string, Tensor>>): StepShapes {
  return new Map(
    Object.entries(feeds).map(([name, t]) => [name, { type: t.type, dims: [...t.dims] }]),
  );
}

/**
 * Why a step with these feeds cannot be the one a capture is made from, or
 * null: each feed must get a buffer of its own, so none may be empty.
 */
export function captureRefusal(feeds: Readonly<Record<string, Tensor>>): string | null {
  for (const [name, t] of Object.entries(feeds))
    if (t.data.length === 0) return `the step's input ${name} has no elements (no buffer to fix)`;
  return null;
}

/**
 * Why `feeds` cannot be written into the buffers a capture fixed with
 * `fixed`, or null when every feed has the name, type and dims it had.
 */
export function shapeChange(
  fixed: StepShapes,
  feeds: Readonly<Record<string, Tensor>>,
): string | null {
  for (const [name, shape] of fixed) {
    const t = feeds[name];
    if (t === undefined) return `the step's input ${name} was fed at the first step and not now`;
    const now = { type: t.type, dims: t.dims };
    if (
      now.type !== shape.type ||
      now.dims.length !== shape.dims.length ||
      now.dims.some((d, i) => d !== shape.dims[i])
    )
      return `the step's input ${name} changed from ${described(shape)} to ${described(now)}; a captured step needs fixed shapes`;
  }
  for (const name of Object.keys(feeds))
    if (!fixed.has(name)) return `the step's input ${name} was not fed at the first step`;
  return null;
}

/** The node's log line for a loop's capture report; null where nothing ran captured or was refused. */
export function graphCaptureLine(report: GraphCaptureReport): string | null {
  const steps = report.captured + report.uncaptured;
  if (report.refused !== undefined)
    return report.captured > 0
      ? `graph capture: ${report.captured} of ${steps} steps replayed the captured step, then it stopped: ${report.refused}; the rest ran uncaptured`
      : `graph capture refused: ${report.refused}; the steps ran uncaptured`;
  if (report.captured === 0) return null;
  return (
    `graph capture: the train step was captured once and replayed for ${report.captured} of ${steps} steps ` +
    '(every input and output in a fixed GPU buffer, the carried outputs copied into the inputs on the GPU)'
  );
}
