/**
 * The canvas bench page: one page that mounts either Flowbench's real
 * canvas (the `Canvas` component over an editor store holding the flow, as
 * the app draws it: adapter, memoised node views, frames, layout toolbar)
 * or React Flow with its default nodes and the same nodes, edges, minimap,
 * controls and background. The Playwright side drags a node and pans the
 * pane with real (CDP) pointer events and reads the frame times recorded
 * here; both sides get the same page, build and viewport.
 */
import {
  Background,
  Controls,
  MiniMap,
  ReactFlow,
  ReactFlowProvider,
  useEdgesState,
  useNodesInitialized,
  useNodesState,
  useReactFlow,
  type Node,
  type Viewport,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { parsePortRef, type FlowDocument } from '../../src/core/flow/document';
import type { FlowId } from '../../src/core/run/record';
import { Canvas } from '../../src/ui/canvas/Canvas';
import { EditorProvider } from '../../src/ui/store/context';
import { createEditorStore } from '../../src/ui/store/editor';
import '../../src/ui/app.css';
import { CANVAS_BENCH_GLOBAL, type CanvasBench, type CanvasSide } from './canvas-api';

function DefaultCanvas({ flow }: { flow: FlowDocument }) {
  const [nodes, , onNodesChange] = useNodesState<Node>(
    flow.nodes.map((n) => ({ id: n.id, position: n.position, data: { label: n.id } })),
  );
  const [edges, , onEdgesChange] = useEdgesState(
    flow.edges.map((e) => {
      const source = parsePortRef(e.from).node;
      const target = parsePortRef(e.to).node;
      return { id: `${e.from}->${e.to}`, source, target };
    }),
  );
  return (
    <ReactFlow
      nodes={nodes}
      edges={edges}
      onNodesChange={onNodesChange}
      onEdgesChange={onEdgesChange}
      minZoom={0.1}
    >
      <Background />
      <MiniMap pannable zoomable />
      <Controls />
    </ReactFlow>
  );
}

/** Once every node has been measured: sets the view (the same on both sides) and reports. */
function Ready({ viewport, onReady }: { viewport: Viewport; onReady: () => void }) {
  const initialised = useNodesInitialized();
  const flow = useReactFlow();
  const [done, setDone] = useState(false);
  useEffect(() => {
    if (!initialised || done) return;
    setDone(true);
    // After the canvas's own first fit of the view, which runs once nodes are measured.
    requestAnimationFrame(() =>
      requestAnimationFrame(() => void flow.setViewport(viewport).then(onReady)),
    );
  }, [initialised, done, onReady, flow, viewport]);
  return null;
}

const queryClient = new QueryClient();
let root: Root | null = null;
let frames: number[] | null = null;
let last = 0;
/** A pointer move arrived since the last frame. */
let moved = false;
/** The frame now being drawn is the one that handles a pointer move. */
let measuring = false;

const onMove = () => {
  moved = true;
};

/**
 * A pointer move is dispatched at the start of a frame, before animation
 * frame callbacks; the work it causes (React Flow's update, React's render,
 * layout, paint) delays the *next* frame. So the frame time kept for a move
 * is from the frame that received it to the next one; frames without a move
 * (while the driver waits) are not kept.
 */
function tick(now: number) {
  if (frames === null) return;
  if (measuring) frames.push(now - last);
  measuring = moved;
  moved = false;
  last = now;
  requestAnimationFrame(tick);
}

const bench: CanvasBench = {
  mount(side: CanvasSide, flow: FlowDocument, zoom: number) {
    root?.unmount();
    const container = document.getElementById('canvas')!;
    root = createRoot(container);
    // Both sides start at the flow's top-left corner at the same zoom.
    const left = Math.min(...flow.nodes.map((n) => n.position.x));
    const top = Math.min(...flow.nodes.map((n) => n.position.y));
    const viewport = { x: -left * zoom + 40, y: -top * zoom + 40, zoom };
    return new Promise<void>((resolve) => {
      const ready = () => requestAnimationFrame(() => requestAnimationFrame(() => resolve()));
      if (side === 'default') {
        root!.render(
          <ReactFlowProvider>
            <DefaultCanvas flow={flow} />
            <Ready viewport={viewport} onReady={ready} />
          </ReactFlowProvider>,
        );
        return;
      }
      const store = createEditorStore();
      store.getState().openFlow('bench-flow' as FlowId, flow);
      root!.render(
        <QueryClientProvider client={queryClient}>
          <EditorProvider store={store}>
            <ReactFlowProvider>
              <Canvas />
              <Ready viewport={viewport} onReady={ready} />
            </ReactFlowProvider>
          </EditorProvider>
        </QueryClientProvider>,
      );
    });
  },
  nodeCentre(id) {
    const el = document.querySelector(`.react-flow__node[data-id="${CSS.escape(id)}"]`);
    const box = el?.getBoundingClientRect();
    if (!box || box.right > innerWidth || box.bottom > innerHeight || box.x < 0 || box.y < 0)
      return null;
    return { x: box.x + Math.min(12, box.width / 2), y: box.y + Math.min(8, box.height / 2) };
  },
  emptyPoint() {
    for (let y = 60; y < innerHeight - 200; y += 17)
      for (let x = 60; x < innerWidth - 260; x += 23) {
        const hit = document.elementFromPoint(x, y);
        if (hit?.classList.contains('react-flow__pane')) return { x, y };
      }
    return null;
  },
  startFrames() {
    frames = [];
    moved = false;
    measuring = false;
    window.addEventListener('pointermove', onMove, { capture: true });
    requestAnimationFrame(tick);
  },
  stopFrames() {
    window.removeEventListener('pointermove', onMove, { capture: true });
    const out = frames ?? [];
    frames = null;
    return out;
  },
  nextFrame: () => new Promise((resolve) => requestAnimationFrame(() => resolve())),
};

(window as unknown as Record<string, CanvasBench>)[CANVAS_BENCH_GLOBAL] = bench;
