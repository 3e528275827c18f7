/** How a remote trial reads in the app's words: its job state as a run status, its params. */
import type { RemoteRun } from './answers';

/** The status word the runs table shows for a trial: the app's, not BullMQ's. */
export function remoteStatus(run: RemoteRun): string {
  switch (run.state) {
    case 'active':
      return 'running';
    case 'waiting':
    case 'delayed':
      return 'queued';
    case 'completed':
      return run.status ?? 'ok';
    case 'failed':
      return 'error';
    default:
      return run.state;
  }
}

/** Whether the trial may still stream live values (not started, or running). */
export function isLive(run: RemoteRun): boolean {
  return run.state === 'waiting' || run.state === 'delayed' || run.state === 'active';
}

/** Whether the server holds the trial's run file, so it can be imported. */
export function isImportable(run: RemoteRun): boolean {
  return run.state === 'completed';
}

/** `lr=0.05 steps=300 seed=2`, as the table shows a local run's params. */
export function describeRemoteParams(run: RemoteRun): string {
  const params = Object.entries(run.params).map(
    ([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
  );
  if (run.seed !== null && !('seed' in run.params)) params.push(`seed=${run.seed}`);
  return params.join(' ');
}
