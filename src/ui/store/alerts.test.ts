import { describe, expect, it } from 'vitest';
import { FlowbenchError } from '../../core/errors';
import type { RunId } from '../../core/run/record';
import { createEditorStore } from './editor';

describe('alerts', () => {
  it('keep the catalogue code of the error that raised them, and its words', () => {
    const store = createEditorStore();
    const refused = new FlowbenchError('run-exists', { runId: 'r1' as RunId });
    store.getState().alertError(refused);
    store.getState().alertError(new TypeError('x is not a function'), 'Run r2 stopped: ');
    store.getState().alert('Could not save the flow');
    expect(store.getState().alerts.map(({ message, code }) => ({ message, code }))).toEqual([
      {
        message: 'run r1 is already in this browser; it was not imported again',
        code: 'run-exists',
      },
      { message: 'Run r2 stopped: x is not a function', code: undefined },
      { message: 'Could not save the flow', code: undefined },
    ]);
  });
});
