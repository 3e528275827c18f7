/** The run actions behind the toolbar and the run panel: Run, Cancel run, Re-run. */
import type { FlowDocument } from '../../core/flow/document';
import type { RunRow } from '../../core/run/record';
import { cancelQueuedRun } from '../../db/runs';
import { db } from '../db';
import { useEditorStore } from '../store/context';
import { useEngine, useSubmitRun } from './EngineContext';

/** Turn the form's text into param values; text that is no number stays text, to be refused by name. */
export function formParams(
  flow: FlowDocument,
  typed: Readonly<Record<string, string>>,
): { params: Record<string, unknown>; seed: number } {
  const params: Record<string, unknown> = {};
  let seed = 0;
  for (const input of flow.inputs) {
    const text = typed[input.name];
    if (text === undefined || text.trim() === '') continue;
    let value: unknown = text;
    if (input.type === 'number' || input.type === 'int')
      value = Number.isFinite(Number(text)) ? Number(text) : text;
    if (input.type === 'boolean') value = text === 'true';
    if (input.name === 'seed' && typeof value === 'number') seed = value;
    else params[input.name] = value;
  }
  return { params, seed };
}

export function useRunActions() {
  const store = useEditorStore();
  const engine = useEngine();
  const submit = useSubmitRun();

  const run = async () => {
    const { doc, flowId, runParams, backend } = store.getState();
    if (!doc || !flowId) return;
    const row = await db.flows.get(flowId);
    const { params, seed } = formParams(doc, runParams);
    await submit({
      flowId,
      flowVersion: row?.version ?? 1,
      flow: doc,
      params,
      seed,
      backendChoice: backend,
      cause: 'ui',
    });
  };

  const rerun = async (original: RunRow) => {
    await submit({
      flowId: original.flowId,
      flowVersion: original.flowVersion,
      flow: original.flowSnapshot,
      params: original.params,
      seed: original.seed,
      backendChoice: original.backendChoice,
      cause: 'rerun',
      groupId: original.groupId,
    });
  };

  const cancel = async (target: RunRow) => {
    // A queued run may be waiting in this engine for a slot: stop it there too.
    const { cancelled: cancelledHere } = await engine.call('cancel', { runId: target.id });
    if (await cancelQueuedRun(db, target.id)) return;
    if (!cancelledHere && target.status === 'running')
      store.getState().alert(`Run ${target.id} is driven by another tab; cancel it there`);
  };

  return { run, rerun, cancel };
}
