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
import { isFlowbenchError, type ErrorCode } from '../../core/errors';
import type { FlowDocument, FlowEdge, FlowNode } from '../../core/flow/document';
import type { FlowId, RunId } from '../../core/run/record';
import type { ParallelView } from '../../core/run/parallel';
import type { BackendChoice } from '../../core/runtime/tensor-runtime';
import { withoutNodes } from '../../core/flow/groups';
import { freshId } from './clipboard';
import { emptyHistory, jump, record, redo, undo, type History } from './history';

export interface NodeProgress {
  done: number;
  total: number;
  /** Steps per second lately, once known. */
  perSecond?: number;
}

export interface EditorState {
  flowId: FlowId | null;
  doc: FlowDocument | null;
  /** Bumped on every change to the document (drives autosave). */
  revision: number;
  /** The library version the open document was read at or last saved as (see `useAutosave`). */
  savedVersion: number;
  /** Another tab saved the open flow over edits of this tab not yet saved. */
  conflict: { flowId: FlowId; version: number } | null;
  selectedNode: string | null;
  selectedRun: RunId | null;
  /** Runs ticked in the Runs table, to export, delete or compare together. */
  pickedRuns: readonly RunId[];
  /**
   * The runs inside the parallel coordinates' brushes: the Runs table shows
   * only these while it is set; null when nothing is brushed.
   */
  brushedRuns: ReadonlySet<RunId> | null;
  /** How the parallel coordinates on screen are set (null when they are not shown), for a report. */
  parallelView: ParallelView | null;
  backend: BackendChoice;
  /** `Use cache`: whether the next run may take node outputs from the node-output cache. */
  useCache: boolean;
  /** What the person typed in the `Run parameters` form, by input name. */
  runParams: Record<string, string>;
  /** Live progress of running nodes, by run then node (ephemeral, from the engine). */
  progress: Record<string, Record<string, NodeProgress>>;
  /** Latest live values of streaming ports, by run then `node.port` (ephemeral, from the engine). */
  live: Record<string, Record<string, number>>;
  /**
   * Runs the engine stopped because their record could not be written (the
   * storage quota, most often), with the reason, by run (ephemeral, from the
   * engine): their row says `running` until storage has room for the ending.
   */
  stopping: Record<string, string>;
  /** Messages shown to the person in an alert, newest last; `code` when an error of the catalogue says it. */
  alerts: { id: number; message: string; code?: ErrorCode }[];

  /** Undo and redo of the open flow's edits. */
  history: History;
  /**
   * The flow just opened that is to be laid out by data flow once its nodes
   * are drawn and measured (an example: its stored positions were placed by
   * hand, for sizes nodes no longer have).
   */
  layoutOnOpen: FlowId | null;

  openFlow: (flowId: FlowId, doc: FlowDocument) => void;
  /**
   * Change the open document as part of opening it (laid out to the sizes
   * its nodes are drawn at): saved like an edit, but no step of the history.
   */
  settleDoc: (doc: FlowDocument) => void;
  /** Apply an edit to the open flow, as one entry of its history. */
  changeDoc: (edit: Edit) => void;
  undo: () => void;
  redo: () => void;
  /** Go to the state after `target` edits of the history (0 is before all of them). */
  jumpTo: (target: number) => void;
  selectNode: (id: string | null) => void;
  selectRun: (id: RunId | null) => void;
  togglePicked: (id: RunId) => void;
  setPicked: (ids: readonly RunId[]) => void;
  setBrushedRuns: (ids: ReadonlySet<RunId> | null) => void;
  setParallelView: (view: ParallelView | null) => void;
  setBackend: (backend: BackendChoice) => void;
  setUseCache: (useCache: boolean) => void;
  setRunParam: (name: string, value: string) => void;
  setProgress: (runId: RunId, node: string, progress: NodeProgress) => void;
  setLive: (runId: RunId, port: string, value: number) => void;
  setStopping: (runId: RunId, reason: string) => void;
  /** Show `message`; returns the alert's id, for `dismissAlert`. */
  alert: (message: string, code?: ErrorCode) => number;
  /** Show what `error` says, after `prefix`, keeping its catalogue code on the alert. */
  alertError: (error: unknown, prefix?: string) => number;
  dismissAlert: (id: number) => void;
}

let alertIds = 0;

export function createEditorStore(initial?: Partial<EditorState>) {
  return createStore<EditorState>()((set, get) => ({
    flowId: null,
    doc: null,
    revision: 0,
    savedVersion: 0,
    conflict: null,
    selectedNode: null,
    selectedRun: null,
    pickedRuns: [],
    brushedRuns: null,
    parallelView: null,
    backend: 'auto',
    useCache: true,
    runParams: {},
    progress: {},
    live: {},
    stopping: {},
    alerts: [],
    history: emptyHistory,
    layoutOnOpen: null,
    ...initial,

    openFlow: (flowId, doc) =>
      set({
        flowId,
        doc,
        revision: 0,
        selectedNode: null,
        selectedRun: null,
        runParams: {},
        history: emptyHistory,
        layoutOnOpen: null,
      }),
    settleDoc: (doc) =>
      set((state) =>
        // Only before the first edit: the history's first step must undo to the settled document.
        state.doc === doc || state.history.past.length > 0 || state.history.future.length > 0
          ? state
          : { doc, revision: state.revision + 1 },
      ),
    changeDoc: (edit) =>
      set((state) => {
        if (!state.doc) return state;
        const doc = edit.apply(state.doc);
        if (doc === state.doc) return state;
        return {
          doc,
          revision: state.revision + 1,
          history: record(state.history, state.doc, edit.label, Date.now(), edit.key),
        };
      }),
    undo: () => set((state) => travel(state, state.doc && undo(state.history, state.doc))),
    redo: () => set((state) => travel(state, state.doc && redo(state.history, state.doc))),
    jumpTo: (target) =>
      set((state) => travel(state, state.doc && jump(state.history, state.doc, target))),
    selectNode: (selectedNode) => set({ selectedNode }),
    selectRun: (selectedRun) => set({ selectedRun }),
    togglePicked: (id) =>
      set((state) => ({
        pickedRuns: state.pickedRuns.includes(id)
          ? state.pickedRuns.filter((p) => p !== id)
          : [...state.pickedRuns, id],
      })),
    setPicked: (pickedRuns) => set({ pickedRuns }),
    setBrushedRuns: (brushedRuns) => set({ brushedRuns }),
    setParallelView: (parallelView) => set({ parallelView }),
    setBackend: (backend) => set({ backend }),
    setUseCache: (useCache) => set({ useCache }),
    setRunParam: (name, value) =>
      set((state) => ({ runParams: { ...state.runParams, [name]: value } })),
    setLive: (runId, port, value) =>
      set((state) => ({
        live: { ...state.live, [runId]: { ...state.live[runId], [port]: value } },
      })),
    setProgress: (runId, node, progress) =>
      set((state) => ({
        progress: { ...state.progress, [runId]: { ...state.progress[runId], [node]: progress } },
      })),
    setStopping: (runId, reason) =>
      set((state) => ({ stopping: { ...state.stopping, [runId]: reason } })),
    alert: (message, code) => {
      const id = ++alertIds;
      set((state) => ({ alerts: [...state.alerts, { id, message, ...(code && { code }) }] }));
      return id;
    },
    alertError: (error, prefix = '') =>
      get().alert(
        prefix + (error instanceof Error ? error.message : String(error)),
        isFlowbenchError(error) ? error.code : undefined,
      ),
    dismissAlert: (id) => set((state) => ({ alerts: state.alerts.filter((a) => a.id !== id) })),
  }));
}

export type EditorStore = ReturnType<typeof createEditorStore>;

function travel(
  state: EditorState,
  to: { history: History; doc: FlowDocument } | null,
): Partial<EditorState> {
  if (!to || to.doc === state.doc) return {};
  const selectedNode = to.doc.nodes.some((n) => n.id === state.selectedNode)
    ? state.selectedNode
    : null;
  return { doc: to.doc, history: to.history, revision: state.revision + 1, selectedNode };
}

/** A change to the document: a pure function and the words the history shows for it. */
export interface Edit {
  label: string;
  /** Edits with the same key in quick succession merge (e.g. typing in one field). */
  key?: string;
  apply: (doc: FlowDocument) => FlowDocument;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Document edits as pure functions, so they are easy to test and to undo. */
export const edits = {
  addNodes: (
    nodes: readonly FlowNode[],
    newEdges: readonly FlowEdge[] = [],
    label?: string,
  ): Edit => ({
    label:
      label ?? (nodes.length === 1 ? `Add ${nodes[0]!.id}` : `Add ${plural(nodes.length, 'node')}`),
    apply: (doc) => ({
      ...doc,
      nodes: [...doc.nodes, ...nodes],
      edges: [...doc.edges, ...newEdges],
    }),
  }),
  moveNodes: (moves: ReadonlyMap<string, { x: number; y: number }>): Edit => ({
    label:
      moves.size === 1 ? `Move ${[...moves.keys()][0]!}` : `Move ${plural(moves.size, 'node')}`,
    apply: (doc) => ({
      ...doc,
      nodes: doc.nodes.map((n) => {
        const position = moves.get(n.id);
        return position ? { ...n, position } : n;
      }),
    }),
  }),
  connect: (edge: FlowEdge): Edit => ({
    label: `Connect ${edge.from} → ${edge.to}`,
    apply: (doc) => ({
      ...doc,
      // An input takes one edge: a new connection replaces the old one.
      edges: [...doc.edges.filter((e) => e.to !== edge.to), edge],
    }),
  }),
  removeEdges: (refs: readonly FlowEdge[]): Edit => ({
    label:
      refs.length === 1 ? `Disconnect ${refs[0]!.to}` : `Remove ${plural(refs.length, 'edge')}`,
    apply: (doc) => ({
      ...doc,
      edges: doc.edges.filter((e) => !refs.some((r) => r.from === e.from && r.to === e.to)),
    }),
  }),
  removeNodes: (ids: readonly string[]): Edit => ({
    label: ids.length === 1 ? `Delete ${ids[0]!}` : `Delete ${plural(ids.length, 'node')}`,
    apply: (doc) => ({
      ...doc,
      nodes: doc.nodes.filter((n) => !ids.includes(n.id)),
      edges: doc.edges.filter(
        (e) => !ids.some((id) => e.from.startsWith(`${id}.`) || e.to.startsWith(`${id}.`)),
      ),
      // A deleted node leaves its group; a group left empty goes too.
      ...(doc.groups && { groups: withoutNodes(doc.groups, new Set(ids)) }),
    }),
  }),
  setParam: (id: string, name: string, value: FlowNode['params'][string]): Edit => ({
    label: `Set ${id}.${name}`,
    key: `param:${id}.${name}`,
    apply: (doc) => ({
      ...doc,
      nodes: doc.nodes.map((n) =>
        n.id === id ? { ...n, params: { ...n.params, [name]: value } } : n,
      ),
    }),
  }),
  rename: (name: string): Edit => ({
    label: `Rename to ${name}`,
    key: 'rename',
    apply: (doc) => ({ ...doc, name }),
  }),
};

/** A node id not yet used in `doc`, from a kind name: `train`, `train2`, … */
export function freshNodeId(doc: FlowDocument, kind: string): string {
  const base = (kind.split('.').pop() ?? 'node').replace(/[^A-Za-z0-9_-]/g, '_');
  return freshId(base, new Set(doc.nodes.map((n) => n.id)));
}
