/**
 * The page's one connection to a run server: which server, its runs as last
 * listed, the remote run selected, and the live series of the runs being
 * followed. Nothing of it is stored: remote runs live here, in memory, until
 * a person imports one (then it is a local run like any other, in IndexedDB).
 *
 * The list is read again every few seconds while connected, so a trial's
 * state follows the queue; a failed read keeps the last list and says why.
 * A finished run's series are read from its run file when it is shown
 * (`load`), so its charts need no import; a followed run's come live.
 * A failed Connect changes nothing: the previous connection, if any, stays.
 */
import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';
import type { MetricPoint } from '../../core/series/columns';
import type { LiveMessage, RemoteRun } from './answers';
import { FlowbenchError } from '../../core/errors';
import {
  fetchRemoteRunFile,
  followRemoteRun,
  listRemoteRuns,
  shownUrl,
  remoteServer,
  type Fetch,
  type OpenLiveSource,
  type RemoteServer,
} from './client';

/** How often the list of runs is read again while connected. */
export const REFRESH_MS = 2_000;

/** A followed run's live values, by metric (`node.port`), and how its stream ended. */
export interface RemoteLive {
  readonly series: Readonly<Record<string, readonly MetricPoint[]>>;
  /** The status the stream ended with (`ok`, `error` …), or null while it runs. */
  readonly finished: string | null;
  /** Why the stream broke off, if it did. */
  readonly error: string | null;
}

export interface RemoteState {
  server: RemoteServer | null;
  connecting: boolean;
  runs: readonly RemoteRun[];
  /** The last failure (of Connect, a list read, a stream), as a person reads it. */
  error: string | null;
  selected: string | null;
  live: Readonly<Record<string, RemoteLive>>;
}

const EMPTY_LIVE: RemoteLive = { series: {}, finished: null, error: null };

/** The values a run file's points stand for where JSON has no number (`[step, null, ts, name]`). */
const SPECIAL: Record<string, number> = { NaN, Infinity, '-Infinity': -Infinity, '-0': -0 };

/**
 * The series of a run file's text (`metrics`: each name's `[step, value, ts]`
 * points, in step order), or null when it has none of that shape. For
 * charting only: an import checks the whole file as the importer does.
 */
export function seriesOfRunFile(text: string): Record<string, MetricPoint[]> | null {
  let metrics: unknown;
  try {
    metrics = (JSON.parse(text) as { metrics?: unknown }).metrics;
  } catch {
    return null;
  }
  if (typeof metrics !== 'object' || metrics === null || Array.isArray(metrics)) return null;
  const series: Record<string, MetricPoint[]> = {};
  for (const [name, points] of Object.entries(metrics)) {
    if (!Array.isArray(points)) return null;
    const read: MetricPoint[] = [];
    for (const point of points as unknown[]) {
      if (!Array.isArray(point)) return null;
      const [step, value, ts, special] = point as unknown[];
      const number = value === null && typeof special === 'string' ? SPECIAL[special] : value;
      if (typeof step !== 'number' || typeof number !== 'number' || typeof ts !== 'number')
        return null;
      read.push({ step, value: number, ts });
    }
    series[name] = read;
  }
  return series;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The store and its actions; `fetchImpl` and `open` stand in for the browser's in tests. */
export function createRemoteStore(fetchImpl?: Fetch, open?: OpenLiveSource) {
  const store = createStore<RemoteState>(() => ({
    server: null,
    connecting: false,
    runs: [],
    error: null,
    selected: null,
    live: {},
  }));
  let timer: ReturnType<typeof setInterval> | undefined;
  const streams = new Map<string, () => void>();

  const stopStreams = () => {
    for (const stop of streams.values()) stop();
    streams.clear();
  };

  /** Read the list again; a failure keeps the list and says why. */
  const refresh = async () => {
    const server = store.getState().server;
    if (!server) return;
    try {
      const runs = await listRemoteRuns(server, fetchImpl);
      if (store.getState().server === server) store.setState({ runs, error: null });
    } catch (error) {
      if (store.getState().server === server) store.setState({ error: messageOf(error) });
    }
  };

  const addMessage = (runId: string, message: LiveMessage) => {
    const live = store.getState().live[runId] ?? EMPTY_LIVE;
    let next: RemoteLive;
    if (message.event === 'live') {
      const name = `${message.node}.${message.port}`;
      const points = live.series[name] ?? [];
      const step = message.step ?? (points.at(-1)?.step ?? -1) + 1;
      next = {
        ...live,
        series: {
          ...live.series,
          [name]: [...points, { step, value: message.value, ts: message.at / 1000 }],
        },
      };
    } else if (message.event === 'started') {
      // A trial started again (its worker died) records only its new attempt: start over.
      next = { ...live, series: {} };
    } else if (message.event === 'finished') {
      next = { ...live, finished: message.status };
      // The list learns the job ended a moment later; read it now rather than at the next tick.
      void refresh();
    } else return;
    store.setState({ live: { ...store.getState().live, [runId]: next } });
  };

  return {
    store,
    /** Connect to the server at `url`; on failure nothing changes and the error says why. */
    async connect(url: string, token: string): Promise<boolean> {
      store.setState({ connecting: true });
      try {
        const server = remoteServer(url, token);
        const runs = await listRemoteRuns(server, fetchImpl);
        stopStreams();
        clearInterval(timer);
        store.setState({ server, runs, error: null, selected: null, live: {} });
        timer = setInterval(() => void refresh(), REFRESH_MS);
        return true;
      } catch (error) {
        store.setState({ error: messageOf(error) });
        return false;
      } finally {
        store.setState({ connecting: false });
      }
    },
    /** Forget the server, its runs and their live series. */
    disconnect() {
      clearInterval(timer);
      stopStreams();
      store.setState({ server: null, runs: [], error: null, selected: null, live: {} });
    },
    refresh,
    /**
     * Read finished run `runId`'s series from its run file, once (a run
     * followed live already has them); a failure is said in its panel.
     */
    async load(runId: string): Promise<void> {
      const server = store.getState().server;
      if (!server || store.getState().live[runId] || streams.has(runId)) return;
      const status = store.getState().runs.find((run) => run.runId === runId)?.status ?? null;
      const set = (next: RemoteLive) => {
        if (store.getState().server === server)
          store.setState({ live: { ...store.getState().live, [runId]: next } });
      };
      // Marked at once, so a second view asking meanwhile reads nothing again.
      set({ ...EMPTY_LIVE, finished: status });
      try {
        const series = seriesOfRunFile(await fetchRemoteRunFile(server, runId, fetchImpl));
        if (series === null)
          throw new FlowbenchError('remote-malformed', {
            url: shownUrl(server, `/runs/${encodeURIComponent(runId)}`),
            expected: 'a run file',
            problem: 'it has no metrics of points',
          });
        set({ series, finished: status, error: null });
      } catch (error) {
        set({ ...EMPTY_LIVE, finished: status, error: messageOf(error) });
      }
    },
    select(runId: string | null) {
      store.setState({ selected: runId });
    },
    /**
     * Follow `runId`'s live stream (once, however many views ask) until it
     * finishes or the returned function is called.
     */
    follow(runId: string): () => void {
      const server = store.getState().server;
      if (!server || streams.has(runId)) return () => undefined;
      const stop = followRemoteRun(
        server,
        runId,
        {
          message: (message) => addMessage(runId, message),
          failed: (error) => {
            streams.delete(runId);
            const live = store.getState().live[runId] ?? EMPTY_LIVE;
            store.setState({
              live: { ...store.getState().live, [runId]: { ...live, error: error.message } },
            });
          },
        },
        open,
      );
      streams.set(runId, stop);
      return () => {
        stop();
        streams.delete(runId);
      };
    },
  };
}

/** The page's run-server connection. */
export const remote = createRemoteStore();

/** A slice of the page's run-server connection, re-rendering when it changes. */
export function useRemote<T>(pick: (state: RemoteState) => T): T {
  return useStore(remote.store, pick);
}
