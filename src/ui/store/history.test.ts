import { describe, expect, it } from 'vitest';
import type { FlowDocument } from '../../core/flow/document';
import { emptyHistory, jump, MERGE_WINDOW_MS, record, redo, undo, type History } from './history';

const doc = (name: string): FlowDocument => ({
  format: 'flowbench.flow/1',
  name,
  inputs: [],
  outputs: [],
  nodes: [],
  edges: [],
});

function edits(...names: string[]): { history: History; current: FlowDocument } {
  let history = emptyHistory;
  let current = doc('v0');
  names.forEach((name, i) => {
    history = record(history, current, `edit ${name}`, i * 10_000);
    current = doc(name);
  });
  return { history, current };
}

describe('undo history', () => {
  it('undoes and redoes edits in order', () => {
    const { history, current } = edits('v1', 'v2');
    const back = undo(history, current)!;
    expect(back.doc.name).toBe('v1');
    const back2 = undo(back.history, back.doc)!;
    expect(back2.doc.name).toBe('v0');
    expect(undo(back2.history, back2.doc)).toBeNull();
    const forward = redo(back2.history, back2.doc)!;
    expect(forward.doc.name).toBe('v1');
    expect(redo(forward.history, forward.doc)!.doc.name).toBe('v2');
  });

  it('drops the redo stack when a new edit is made', () => {
    const { history, current } = edits('v1', 'v2');
    const back = undo(history, current)!;
    const branched = record(back.history, back.doc, 'other', 99_000);
    expect(branched.future).toHaveLength(0);
    expect(redo(branched, doc('v3'))).toBeNull();
  });

  it('merges edits with the same key made in quick succession, not slower ones', () => {
    let h = record(emptyHistory, doc('a'), 'lr', 0, 'train.lr');
    h = record(h, doc('b'), 'lr', MERGE_WINDOW_MS - 1, 'train.lr');
    expect(h.past).toHaveLength(1);
    expect(h.past[0]!.doc.name).toBe('a');
    h = record(h, doc('c'), 'lr', 3 * MERGE_WINDOW_MS, 'train.lr');
    expect(h.past).toHaveLength(2);
    h = record(h, doc('d'), 'steps', 3 * MERGE_WINDOW_MS + 1, 'train.steps');
    expect(h.past).toHaveLength(3);
  });

  it('jumps to any point of the history and back', () => {
    const { history, current } = edits('v1', 'v2', 'v3');
    const start = jump(history, current, 0);
    expect(start.doc.name).toBe('v0');
    expect(start.history.future.map((e) => e.label)).toEqual(['edit v1', 'edit v2', 'edit v3']);
    const middle = jump(start.history, start.doc, 2);
    expect(middle.doc.name).toBe('v2');
    expect(jump(middle.history, middle.doc, 3).doc.name).toBe('v3');
  });
});
