/** The run actions behind the toolbar and the run panel: Run, Cancel run, Re-run. */
import type { RunRow } from '../../core/run/record';
import { requestCancel } from '../../db/runs';
import { db } from '../db';
import { useEditorStore } from '../store/context';
import { filesKept } from '../store/file-keeps';
import { nudgeEngines } from './client';
import { useSubmitRun, useSubmitRuns } from './EngineContext';
import { v7 as uuidv7 } from 'uuid';
import { formParams, planSweep } from '../../core/run/form';

export function useRunActions() {
  const store = useEditorStore();
  const submit = useSubmitRun();
  const submitMany = useSubmitRuns();

  /**
   * Run the open flow; `partial` runs to a node (only what it needs) or from
   * it (it and what is below it recompute, the cache standing in above).
   */
  const run = async (partial?: { to: string } | { from: string }) => {
    // A file just picked names itself in the flow once it is stored: the run waits for it.
    await filesKept();
    // The run records the library version its document stands on: the one this tab last saved or opened.
    const { doc, flowId, savedVersion, runParams, backend, useCache } = store.getState();
    if (!doc || !flowId) return;
    const { params, seed } = formParams(doc, runParams);
    await submit({
      flowId,
      flowVersion: savedVersion,
      flow: doc,
      params,
      seed,
      backendChoice: backend,
      cause: 'ui',
      // Absent is the default, the whole flow with the cache on: the record says only a choice.
      ...((!useCache || partial) && { cache: { use: useCache, ...partial } }),
    });
  };

  /** Every combination of the form's lists and ranges, journaled as one group. */
  const sweep = async () => {
    await filesKept();
    const { doc, flowId, savedVersion, runParams, backend } = store.getState();
    if (!doc || !flowId) return;
    const plan = planSweep(doc, runParams);
    if (typeof plan === 'string') {
      store.getState().alert(plan);
      return;
    }
    const groupId = uuidv7();
    const requests = plan.map(({ params, seed }) => ({
      flowId,
      flowVersion: savedVersion,
      flow: doc,
      params,
      seed,
      backendChoice: backend,
      cause: 'sweep' as const,
      groupId,
    }));
    await submitMany(requests);
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
      rerunOf: original.id,
      // A re-run checks that the run reproduces: every node runs, none stands in from the cache.
      cache: { use: false },
    });
  };

  const cancel = async (target: RunRow) => {
    // The request goes into the run's record, where the engine driving it, in any tab, sees it;
    // the nudge makes that engine look at once. A queued run ends cancelled there and then.
    // The request is a write: when storage refuses it (the quota is full), the person is told.
    try {
      if ((await requestCancel(db, target.id, new Date())) === 'requested')
        nudgeEngines({ type: 'cancel', runId: target.id });
    } catch (error) {
      store.getState().alertError(error, `Run ${target.id} could not be cancelled: `);
    }
  };

  return { run, sweep, rerun, cancel };
}
