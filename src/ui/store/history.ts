/**
 * Undo history of the open flow. Documents are immutable, so an entry is
 * just the document as it was before an edit, with the edit's label; the
 * whole history costs what the changed parts cost. Edits that carry the same
 * `key` in quick succession (typing in one param field) merge into one
 * entry, and a drag is one edit because the canvas commits it on release.
 */
import type { FlowDocument } from '../../core/flow/document';

export interface HistoryEntry {
  /** The document before the edit (in `past`) or after it (in `future`). */
  doc: FlowDocument;
  label: string;
  key?: string;
  at: number;
}

export interface History {
  past: readonly HistoryEntry[];
  future: readonly HistoryEntry[];
}

export const emptyHistory: History = { past: [], future: [] };
/** Same-key edits closer together than this merge into one entry. */
export const MERGE_WINDOW_MS = 1000;
export const HISTORY_LIMIT = 200;

/** Record that `before` was changed by an edit named `label`. Clears the redo stack. */
export function record(
  history: History,
  before: FlowDocument,
  label: string,
  at: number,
  key?: string,
): History {
  const last = history.past.at(-1);
  if (key !== undefined && last?.key === key && at - last.at < MERGE_WINDOW_MS)
    return { past: [...history.past.slice(0, -1), { ...last, at }], future: [] };
  const past = [...history.past, { doc: before, label, key, at }].slice(-HISTORY_LIMIT);
  return { past, future: [] };
}

export function undo(
  history: History,
  current: FlowDocument,
): { history: History; doc: FlowDocument } | null {
  const last = history.past.at(-1);
  if (!last) return null;
  return {
    doc: last.doc,
    history: {
      past: history.past.slice(0, -1),
      future: [{ ...last, doc: current }, ...history.future],
    },
  };
}

export function redo(
  history: History,
  current: FlowDocument,
): { history: History; doc: FlowDocument } | null {
  const next = history.future[0];
  if (!next) return null;
  return {
    doc: next.doc,
    history: {
      past: [...history.past, { ...next, doc: current }],
      future: history.future.slice(1),
    },
  };
}

/**
 * Move to the state after `past.length` edits, where `target` counts from 0
 * (the document before any recorded edit) to past + future length.
 */
export function jump(
  history: History,
  current: FlowDocument,
  target: number,
): { history: History; doc: FlowDocument } {
  let state = { history, doc: current };
  while (state.history.past.length > target) state = undo(state.history, state.doc) ?? state;
  while (state.history.past.length < target) {
    const next = redo(state.history, state.doc);
    if (!next) break;
    state = next;
  }
  return state;
}
