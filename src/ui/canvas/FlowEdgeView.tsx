/**
 * Every edge is drawn by this one component: React Flow's curve, moving
 * while the node it leaves runs in the shown run. It reads that node's
 * state itself (`node-states.ts`), so a node starting or ending redraws its
 * own edges and never hands React Flow a new list of every edge.
 *
 * Zoomed out to far cards (`node-detail.ts`) edges stand still and watch no
 * node: a dash a few pixels long is a fraction of a pixel there, and a node
 * fanned out to a thousand others redrew a thousand edges, and repainted them
 * every frame, for as long as it ran.
 */
import { BaseEdge, getBezierPath, type EdgeProps } from '@xyflow/react';
import { memo } from 'react';
import { useNodeDetail } from './node-detail';
import { useNodeState } from './node-states';
import './canvas.css';

function FlowEdgeViewBase({
  source,
  sourceX,
  sourceY,
  sourcePosition,
  targetX,
  targetY,
  targetPosition,
  markerEnd,
  style,
  interactionWidth,
}: EdgeProps) {
  const [path] = getBezierPath({
    sourceX,
    sourceY,
    sourcePosition,
    targetX,
    targetY,
    targetPosition,
  });
  const { far } = useNodeDetail();
  const running = useNodeState(far ? null : source)?.status === 'running';
  return (
    <BaseEdge
      path={path}
      markerEnd={markerEnd}
      style={style}
      interactionWidth={interactionWidth}
      className={running ? 'fb-edge-running' : undefined}
    />
  );
}

export const FlowEdgeView = memo(FlowEdgeViewBase);
