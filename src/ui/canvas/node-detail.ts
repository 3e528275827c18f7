/**
 * How much of each node card the canvas draws. Zoomed out below `FAR_ZOOM`
 * a card's text is a few pixels high and cannot be read; a thousand full
 * cards there (some 25 elements each: title, id, port names and types, badges)
 * cost every frame 25–35 ms of style, layout, paint and hit-testing while
 * a run changes their statuses. So far out each node is a far card: its
 * title, its status as a fill, and its handles, drawn on one canvas
 * (`far-view.ts`) over a transparent box with the same test id,
 * `data-status` and handle names as the full card. Trade-off: port names,
 * types, live values and progress show only once zoomed in.
 *
 * A far card keeps the size its full card was last measured at, so frames
 * of groups, the minimap and the layout commands (which use the measured
 * sizes) see the same boxes at every zoom; a node never drawn in full
 * has its far card's own size until it is.
 */
import { useStore } from '@xyflow/react';
import { createContext, useContext } from 'react';

/** Below this zoom nodes are drawn as far cards. */
export const FAR_ZOOM = 0.35;

export interface Size {
  width: number;
  height: number;
}

export interface NodeDetail {
  /** Whether the canvas draws far cards now. */
  far: boolean;
  /** Each node's full card size as last measured. */
  fullSizes: ReadonlyMap<string, Size>;
}

const fullDetail: NodeDetail = { far: false, fullSizes: new Map() };

export const NodeDetailContext = createContext<NodeDetail>(fullDetail);

/** How the node views around it draw. */
export function useNodeDetail(): NodeDetail {
  return useContext(NodeDetailContext);
}

/** Whether the canvas (inside React Flow's provider) is zoomed out below `FAR_ZOOM`; changes only as it crosses it. */
export function useZoomedOut(): boolean {
  return useStore((s) => s.transform[2] < FAR_ZOOM);
}
