/** What the canvas bench page offers the Playwright side, on `window.flowbenchCanvas`. */
import type { FlowDocument } from '../../src/core/flow/document';

/** Which canvas is mounted: Flowbench's own, or React Flow with its default nodes. */
export type CanvasSide = 'flowbench' | 'default';

export interface CanvasBench {
  /**
   * Mount `side` with the flow's nodes and edges (replacing what was
   * mounted), at zoom `zoom` from the flow's top-left corner; resolves once
   * every node has been measured and drawn.
   */
  mount(side: CanvasSide, flow: FlowDocument, zoom: number): Promise<void>;
  /** Screen centre of node `id`'s element, or null when it is not on screen. */
  nodeCentre(id: string): { x: number; y: number } | null;
  /** A screen point on the empty pane (no node, edge or panel under it). */
  emptyPoint(): { x: number; y: number } | null;
  /** Start recording frame times (requestAnimationFrame deltas) of the frames that handle a pointer move. */
  startFrames(): void;
  /** Stop recording; the frame times (ms) since `startFrames`, one per pointer move handled. */
  stopFrames(): number[];
  /** Resolves on the next animation frame. */
  nextFrame(): Promise<void>;
}

export const CANVAS_BENCH_GLOBAL = 'flowbenchCanvas';
