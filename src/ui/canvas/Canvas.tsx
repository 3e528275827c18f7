/** The flow canvas: React Flow over the open document, with the selected run's live state. */
import {
  applyNodeChanges,
  Background,
  Controls,
  MiniMap,
  ReactFlow,
  type Connection,
  type EdgeChange,
  type NodeChange,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useCallback, useMemo, useState } from 'react';
import { useRunNodes, useSelectedRun } from '../runs/queries';
import { useEditor, useEditorStore } from '../store/context';
import { edits } from '../store/editor';
import {
  edgeId,
  toCanvasEdges,
  toCanvasNodes,
  type CanvasNode,
  type NodeRunState,
} from './adapter';
import { refuseConnection } from './connect';
import { FlowNodeView } from './FlowNodeView';

const nodeTypes = { flow: FlowNodeView };

export function Canvas() {
  const store = useEditorStore();
  const doc = useEditor((s) => s.doc);
  const run = useSelectedRun();
  const flowId = useEditor((s) => s.flowId);
  const shown = run && run.flowId === flowId ? run : undefined;
  const rows = useRunNodes(shown?.id ?? null);
  const progress = useEditor((s) => (shown ? s.progress[shown.id] : undefined));

  const runState = useMemo(() => {
    const state = new Map<string, NodeRunState>();
    for (const row of rows ?? [])
      state.set(row.node, { status: row.status, error: row.error, progress: progress?.[row.node] });
    return state;
  }, [rows, progress]);

  // React Flow's side of each node (measured size, selection, drag) as it last reported it.
  const [view, setView] = useState<readonly CanvasNode[]>([]);
  const nodes = useMemo(
    () => (doc ? toCanvasNodes(doc, runState, view) : []),
    [doc, runState, view],
  );
  const edges = useMemo(() => (doc ? toCanvasEdges(doc, runState) : []), [doc, runState]);

  const onNodesChange = useCallback(
    (changes: NodeChange<CanvasNode>[]) => {
      setView(applyNodeChanges(changes, nodes));
      const { changeDoc, selectNode } = store.getState();
      const moves = new Map<string, { x: number; y: number }>();
      const removed: string[] = [];
      for (const change of changes) {
        // A drag is committed once, when it ends: one history entry per drag.
        if (change.type === 'position' && change.dragging === false && change.position)
          moves.set(change.id, change.position);
        if (change.type === 'remove') removed.push(change.id);
        if (change.type === 'select' && change.selected) selectNode(change.id);
      }
      if (moves.size > 0) changeDoc(edits.moveNodes(moves));
      if (removed.length > 0) {
        changeDoc(edits.removeNodes(removed));
        if (removed.includes(store.getState().selectedNode ?? '')) selectNode(null);
      }
    },
    [store, nodes],
  );

  const onEdgesChange = useCallback(
    (changes: EdgeChange[]) => {
      const { doc: current, changeDoc } = store.getState();
      const removed = new Set(changes.flatMap((c) => (c.type === 'remove' ? [c.id] : [])));
      if (!current || removed.size === 0) return;
      changeDoc(edits.removeEdges(current.edges.filter((e) => removed.has(edgeId(e.from, e.to)))));
    },
    [store],
  );

  const isValidConnection = useCallback(
    (
      c:
        | Connection
        | {
            source: string;
            target: string;
            sourceHandle?: string | null;
            targetHandle?: string | null;
          },
    ) => {
      const current = store.getState().doc;
      return current !== null && refuseConnection(current, c as Connection) === null;
    },
    [store],
  );

  const onConnect = useCallback(
    (c: Connection) => {
      const { doc: current, changeDoc, alert } = store.getState();
      if (!current) return;
      const refused = refuseConnection(current, c);
      if (refused) {
        alert(refused);
        return;
      }
      changeDoc(
        edits.connect({
          from: `${c.source}.${c.sourceHandle}`,
          to: `${c.target}.${c.targetHandle}`,
        }),
      );
    },
    [store],
  );

  if (!doc) return <div className="fb-canvas fb-empty">Loading…</div>;
  return (
    <div className="fb-canvas" aria-label="Flow canvas">
      <ReactFlow<CanvasNode>
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={onConnect}
        isValidConnection={isValidConnection}
        onPaneClick={() => store.getState().selectNode(null)}
        deleteKeyCode={['Backspace', 'Delete']}
        fitView
        fitViewOptions={{ padding: 0.2 }}
        minZoom={0.1}
      >
        <Background />
        <MiniMap pannable zoomable ariaLabel="Mini map" />
        <Controls />
      </ReactFlow>
    </div>
  );
}
