/** What part of the flow the far view shows (`far-view.ts`, `far-edges.ts`). */

/** What part of the flow is in view: React Flow's transform and the pane's size. */
export interface FarViewport {
  x: number;
  y: number;
  zoom: number;
  width: number;
  height: number;
}

/** The flow coordinates at the pane's edges. */
export function inView(view: FarViewport): {
  left: number;
  top: number;
  right: number;
  bottom: number;
} {
  const left = -view.x / view.zoom;
  const top = -view.y / view.zoom;
  return { left, top, right: left + view.width / view.zoom, bottom: top + view.height / view.zoom };
}
