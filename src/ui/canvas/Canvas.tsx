/** The flow canvas: React Flow over the open document, with the selected run's live state. */
import {
  applyNodeChanges,
  Background,
  Controls,
  MiniMap,
  ReactFlow,
  useNodesInitialized,
  useReactFlow,
  type Connection,
  type Edge,
  type NodeChange,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import './canvas.css';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { portTypeRules } from '../colours';
import { useRunNodes, useSelectedRun } from '../runs/queries';
import { useEditor, useEditorStore } from '../store/context';
import { edits } from '../store/editor';
import { edgeId, toCanvasEdges, toCanvasNodes, type NodeRunState } from './adapter';
import { NodeStates, NodeStatesContext } from './node-states';
import { FarView } from './FarView';
import { NodeDetailContext, useZoomedOut, type Size } from './node-detail';
import { useSteppedStates } from './stepped-states';
import { refuseConnection } from './connect';
import { FlowEdgeView } from './FlowEdgeView';
import { FlowNodeView } from './FlowNodeView';
import { useCanvasMenus } from './useCanvasMenus';
import { useSelectAll } from './selectAll';
import {
  flowNodesOf,
  groupOfNodeId,
  toGroupNodes,
  withMemberMoves,
  type ShownNode,
} from './groupNodes';
import { GroupNodeView } from './GroupNodeView';
import { LayoutMenu } from './LayoutMenu';
import { autoLayoutNodes, ungroupEdit } from './layoutCommands';

const nodeTypes = { flow: FlowNodeView, frame: GroupNodeView };
const edgeTypes = { flow: FlowEdgeView };
// Props given to React Flow keep their identity between renders: React Flow
// copies each changed prop into its store, and every store update re-runs the
// selectors of all 1,000 node and edge views.
const fitViewOptions = { padding: 0.2 };
const deleteKeyCode = ['Backspace', 'Delete'];
/**
 * Up to this many nodes every node stays in the page, so the keyboard (Tab)
 * and find-in-page reach each one. A larger flow puts only the nodes and
 * edges on screen in the page: with all 1,000 of a big flow there, every
 * frame of a pan or drag re-laid, re-painted and hit-tested some 25,000
 * elements, and frames were dropped. Nodes off screen keep their measured
 * size (the minimap and the layout commands use it).
 */
const DRAW_ALL_UP_TO = 300;

/**
 * The canvas of the open flow, drawn afresh for each flow opened: React Flow
 * then measures its nodes anew (never with the sizes of the last flow's
 * nodes of the same id) and fits the view to it.
 */
export function Canvas() {
  const flowId = useEditor((s) => s.flowId);
  return <FlowCanvas key={flowId ?? ''} />;
}

/**
 * Lay out a flow opened for the first time (an example) once React Flow has
 * measured its nodes, then fit the view to it: its stored positions were
 * placed by hand, for node sizes that are not the ones drawn now.
 */
function useLayoutOnOpen(): void {
  const store = useEditorStore();
  const flow = useReactFlow<ShownNode>();
  const measured = useNodesInitialized();
  const pending = useEditor((s) => s.layoutOnOpen !== null && s.layoutOnOpen === s.flowId);
  useEffect(() => {
    if (!pending || !measured) return;
    const { doc, settleDoc } = store.getState();
    if (!doc) return;
    // React Flow's own nodes hold the sizes as drawn; for a moment they may
    // still be the last flow's, unmeasured: then this runs again once measured.
    const nodes = doc.nodes.map((n) => flow.getInternalNode(n.id));
    const sized = nodes.flatMap((n) =>
      n?.measured.width && n.measured.height
        ? [{ ...n.internals.userNode, measured: n.measured }]
        : [],
    );
    if (sized.length < doc.nodes.length) return;
    store.setState({ layoutOnOpen: null });
    const moves = autoLayoutNodes(doc, sized);
    if (moves.size > 0) settleDoc(edits.moveNodes(moves).apply(doc));
    void flow.fitView(fitViewOptions);
  }, [store, flow, measured, pending]);
}

function FlowCanvas() {
  const store = useEditorStore();
  useLayoutOnOpen();
  const menus = useCanvasMenus();
  const selectAll = useSelectAll();
  const doc = useEditor((s) => s.doc);
  const run = useSelectedRun();
  const flowId = useEditor((s) => s.flowId);
  const shown = run && run.flowId === flowId ? run : undefined;
  const rows = useRunNodes(shown?.id ?? null);
  const progress = useEditor((s) => (shown ? s.progress[shown.id] : undefined));
  const live = useEditor((s) => (shown ? s.live[shown.id] : undefined));

  const runState = useMemo(() => {
    const state = new Map<string, NodeRunState>();
    const liveOf = (node: string) => {
      const prefix = `${node}.`;
      const values = Object.entries(live ?? {}).filter(([port]) => port.startsWith(prefix));
      return Object.fromEntries(values.map(([port, v]) => [port.slice(prefix.length), v]));
    };
    for (const row of rows ?? [])
      state.set(row.node, {
        status: row.status,
        error: row.error,
        progress: progress?.[row.node],
        durationMs: row.durationMs,
        live: liveOf(row.node),
      });
    // A node's row is written once it has run a while (node-outcomes.ts); its progress comes
    // from the engine at once, and says it runs.
    if (shown?.status === 'running')
      for (const [node, told] of Object.entries(progress ?? {}))
        if (!state.has(node))
          state.set(node, { status: 'running', error: '', progress: told, live: liveOf(node) });
    return state;
  }, [rows, progress, live, shown?.status]);
  const drawnState = useSteppedStates(runState);
  // Node views read their node's state here, not from React Flow's nodes (see node-states.ts).
  const [nodeStates] = useState(() => new NodeStates());
  useLayoutEffect(() => nodeStates.set(drawnState), [nodeStates, drawnState]);

  // Far out, nodes are drawn as far cards at their full cards' sizes (see node-detail.ts).
  const far = useZoomedOut();
  const farNow = useRef(far);
  useLayoutEffect(() => {
    farNow.current = far;
  }, [far]);
  const [fullSizes] = useState(() => new Map<string, Size>());
  const detail = useMemo(() => ({ far, fullSizes }), [far, fullSizes]);

  // React Flow's side of each node (measured size, selection, drag) as it last reported it.
  const [view, setView] = useState<readonly ShownNode[]>([]);
  const nodes = useMemo((): ShownNode[] => {
    if (!doc) return [];
    const flowNodes = toCanvasNodes(doc, flowNodesOf(view));
    // Frames come first, so they are drawn behind the nodes they hold.
    return [...toGroupNodes(doc, flowNodes, view), ...flowNodes];
  }, [doc, view]);
  const edges = useMemo(() => (doc ? toCanvasEdges(doc) : []), [doc]);
  const drawOnlyVisible = (doc?.nodes.length ?? 0) > DRAW_ALL_UP_TO;
  // What was drawn last, for the change handler: it stays the same function
  // while a drag re-renders the canvas on every frame.
  const drawn = useRef(nodes);
  useLayoutEffect(() => {
    drawn.current = nodes;
  }, [nodes]);

  const onNodesChange = useCallback(
    (reported: NodeChange<ShownNode>[]) => {
      const nodes = drawn.current;
      // Dragging a group's frame drags its nodes; the frame itself is never stored.
      const changes = withMemberMoves(reported, nodes);
      if (!farNow.current)
        for (const change of changes)
          if (change.type === 'dimensions' && change.dimensions)
            fullSizes.set(change.id, change.dimensions);
      const next = applyNodeChanges(changes, nodes);
      // Several changes may arrive before the next render: each builds on the last.
      drawn.current = next;
      setView(next);
      const { changeDoc, selectNode } = store.getState();
      const moves = new Map<string, { x: number; y: number }>();
      // The inspector shows the last node selected (one store update, even for select-all).
      let selected: string | null = null;
      for (const change of changes) {
        if ('id' in change && groupOfNodeId(change.id) !== null) continue;
        // A drag is committed once, when it ends: one history entry per drag.
        if (change.type === 'position' && change.dragging === false && change.position)
          moves.set(change.id, change.position);
        if (change.type === 'select' && change.selected) selected = change.id;
      }
      if (selected !== null) selectNode(selected);
      if (moves.size > 0) changeDoc(edits.moveNodes(moves));
    },
    [store, fullSizes],
  );

  const onPaneClick = useCallback(() => store.getState().selectNode(null), [store]);

  // React Flow reports a deletion as edge changes, then node changes, then
  // `onDelete` with both: taking it there makes it one history entry, edges
  // and all, instead of two (so one undo brings a deleted node back whole).
  const onDelete = useCallback(
    ({ nodes: gone, edges: cut }: { nodes: ShownNode[]; edges: Edge[] }) => {
      const { doc: current, changeDoc, selectNode, selectedNode } = store.getState();
      if (!current) return;
      // Deleting a group's frame dissolves the group and keeps its nodes.
      const frames = gone.flatMap((n) => groupOfNodeId(n.id) ?? []);
      const dissolve = ungroupEdit(frames);
      const ids = gone.filter((n) => groupOfNodeId(n.id) === null).map((n) => n.id);
      const cutIds = new Set(cut.map((e) => e.id));
      const edges = edits.removeEdges(
        current.edges.filter((e) => cutIds.has(edgeId(e.from, e.to))),
      );
      if (ids.length === 0) {
        if (frames.length > 0)
          changeDoc({ ...dissolve, apply: (doc) => edges.apply(dissolve.apply(doc)) });
        else if (cutIds.size > 0) changeDoc(edges);
        return;
      }
      const nodesEdit = edits.removeNodes(ids);
      changeDoc({
        ...nodesEdit,
        apply: (doc) => dissolve.apply(edges.apply(nodesEdit.apply(doc))),
      });
      if (ids.includes(selectedNode ?? '')) selectNode(null);
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
    // Focusable (not in the Tab order), so a click on the pane puts the
    // keyboard on the canvas and Ctrl/⌘+A there selects the nodes.
    <div
      className={far ? 'fb-canvas fb-canvas-far' : 'fb-canvas'}
      role="region"
      aria-label="Flow canvas"
      tabIndex={-1}
      onKeyDown={(event) => {
        menus.onKeyDown(event);
        selectAll(event);
      }}
    >
      <style href="fb-port-types" precedence="fb">
        {portTypeRules}
      </style>
      <NodeStatesContext value={nodeStates}>
        <NodeDetailContext value={detail}>
          <ReactFlow<ShownNode>
            nodes={nodes}
            edges={edges}
            nodeTypes={nodeTypes}
            edgeTypes={edgeTypes}
            onNodesChange={onNodesChange}
            onDelete={onDelete}
            onConnect={onConnect}
            isValidConnection={isValidConnection}
            onPaneClick={onPaneClick}
            deleteKeyCode={deleteKeyCode}
            fitView
            fitViewOptions={fitViewOptions}
            minZoom={0.1}
            onlyRenderVisibleElements={drawOnlyVisible}
            {...menus.flowProps}
          >
            <Background />
            {far && <FarView />}
            <MiniMap pannable zoomable ariaLabel="Mini map" />
            <Controls />
            <LayoutMenu />
          </ReactFlow>
        </NodeDetailContext>
      </NodeStatesContext>
      {menus.overlay}
    </div>
  );
}
