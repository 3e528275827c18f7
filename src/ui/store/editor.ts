/**
 * The editor store: the open flow document and what the person has selected.
 *
 * Only editor state lives here. Runs, node outcomes and metrics live in
 * IndexedDB and are read through live queries, never copied into this store,
 * so there is one truth and it survives a reload. The store is made by a
 * factory and handed down through context, so tests and a second editor can
 * each have their own.
 */
import { createStore } from 'zustand/vanilla';
import type { FlowDocument, FlowEdge, FlowNode } from '../../core/flow/document';
import type { FlowId, RunId } from '../../core/run/record';
import type { BackendChoice } from '../../core/engine/runtime';

export interface NodeProgress {
  done: number;
  total: number;
}

export interface EditorState {
  flowId: FlowId | null;
  doc: FlowDocument | null;
  /** Bumped on every change to the document (drives autosave). */
  revision: number;
  selectedNode: string | null;
  selectedRun: RunId | null;
  /** Runs ticked in the Runs table, to export, delete or compare together. */
  pickedRuns: readonly RunId[];
  backend: BackendChoice;
  /** What the person typed in the `Run parameters` form, by input name. */
  runParams: Record<string, string>;
  /** Live progress of running nodes, by run then node (ephemeral, from the engine). */
  progress: Record<string, Record<string, NodeProgress>>;
  /** Messages shown to the person in an alert, newest last. */
  alerts: { id: number; message: string }[];

  openFlow: (flowId: FlowId, doc: FlowDocument) => void;
  changeDoc: (change: (doc: FlowDocument) => FlowDocument) => void;
  selectNode: (id: string | null) => void;
  selectRun: (id: RunId | null) => void;
  togglePicked: (id: RunId) => void;
  setPicked: (ids: readonly RunId[]) => void;
  setBackend: (backend: BackendChoice) => void;
  setRunParam: (name: string, value: string) => void;
  setProgress: (runId: RunId, node: string, progress: NodeProgress) => void;
  alert: (message: string) => void;
  dismissAlert: (id: number) => void;
}

let alertIds = 0;

export function createEditorStore(initial?: Partial<EditorState>) {
  return createStore<EditorState>()((set) => ({
    flowId: null,
    doc: null,
    revision: 0,
    selectedNode: null,
    selectedRun: null,
    pickedRuns: [],
    backend: 'auto',
    runParams: {},
    progress: {},
    alerts: [],
    ...initial,

    openFlow: (flowId, doc) =>
      set({ flowId, doc, revision: 0, selectedNode: null, selectedRun: null, runParams: {} }),
    changeDoc: (change) =>
      set((state) =>
        state.doc ? { doc: change(state.doc), revision: state.revision + 1 } : state,
      ),
    selectNode: (selectedNode) => set({ selectedNode }),
    selectRun: (selectedRun) => set({ selectedRun }),
    togglePicked: (id) =>
      set((state) => ({
        pickedRuns: state.pickedRuns.includes(id)
          ? state.pickedRuns.filter((p) => p !== id)
          : [...state.pickedRuns, id],
      })),
    setPicked: (pickedRuns) => set({ pickedRuns }),
    setBackend: (backend) => set({ backend }),
    setRunParam: (name, value) =>
      set((state) => ({ runParams: { ...state.runParams, [name]: value } })),
    setProgress: (runId, node, progress) =>
      set((state) => ({
        progress: { ...state.progress, [runId]: { ...state.progress[runId], [node]: progress } },
      })),
    alert: (message) =>
      set((state) => ({ alerts: [...state.alerts, { id: ++alertIds, message }] })),
    dismissAlert: (id) => set((state) => ({ alerts: state.alerts.filter((a) => a.id !== id) })),
  }));
}

export type EditorStore = ReturnType<typeof createEditorStore>;

/** Document edits as pure functions, so they are easy to test and to undo later. */
export const edits = {
  addNode: (node: FlowNode) => (doc: FlowDocument) => ({ ...doc, nodes: [...doc.nodes, node] }),
  moveNode: (id: string, position: { x: number; y: number }) => (doc: FlowDocument) => ({
    ...doc,
    nodes: doc.nodes.map((n) => (n.id === id ? { ...n, position } : n)),
  }),
  connect: (edge: FlowEdge) => (doc: FlowDocument) => ({
    ...doc,
    // An input takes one edge: a new connection replaces the old one.
    edges: [...doc.edges.filter((e) => e.to !== edge.to), edge],
  }),
  removeEdges: (refs: readonly FlowEdge[]) => (doc: FlowDocument) => ({
    ...doc,
    edges: doc.edges.filter((e) => !refs.some((r) => r.from === e.from && r.to === e.to)),
  }),
  removeNodes: (ids: readonly string[]) => (doc: FlowDocument) => ({
    ...doc,
    nodes: doc.nodes.filter((n) => !ids.includes(n.id)),
    edges: doc.edges.filter(
      (e) => !ids.some((id) => e.from.startsWith(`${id}.`) || e.to.startsWith(`${id}.`)),
    ),
  }),
  setParam:
    (id: string, name: string, value: FlowNode['params'][string]) => (doc: FlowDocument) => ({
      ...doc,
      nodes: doc.nodes.map((n) =>
        n.id === id ? { ...n, params: { ...n.params, [name]: value } } : n,
      ),
    }),
  rename: (name: string) => (doc: FlowDocument) => ({ ...doc, name }),
};

/** A node id not yet used in `doc`, from a kind name: `train`, `train2`, … */
export function freshNodeId(doc: FlowDocument, kind: string): string {
  const base = (kind.split('.').pop() ?? 'node').replace(/[^A-Za-z0-9_-]/g, '_');
  const taken = new Set(doc.nodes.map((n) => n.id));
  if (!taken.has(base)) return base;
  let i = 2;
  while (taken.has(`${base}${i}`)) i++;
  return `${base}${i}`;
}
