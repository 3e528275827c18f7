/**
 * What the crash fuzzer holds IndexedDB to after a scenario, as a pure
 * function of what the stores hold (read in a page by `readStore`), so the
 * checks themselves are unit-tested on hand-made stores. Each broken rule is
 * one line naming the run, so a failure reads as a list of what is wrong.
 *
 * "Prefix of what its nodes emitted": the app's runs are deterministic (same
 * params, seed and backend, same series), so runs that share those are
 * compared with each other: the shorter series must be a prefix of the longer,
 * value for value, and two finished `ok` runs must be equal.
 */
import type { Page } from '@playwright/test';

export interface StoredRunRow {
  id: string;
  status: string;
  leaseUntil: number | null;
  paramsDigest: string;
  params: Record<string, unknown>;
  engine: { backend: string } | null;
  flowSnapshot: { nodes: { id: string }[] };
  finishedAt: string | null;
  /** When a tab asked to cancel it (absent in records from before cancel requests). */
  cancelRequestedAt?: string | null;
}

export interface StoredNodeRow {
  runId: string;
  node: string;
  status: string;
  startedAt: string | null;
  durationMs: number | null;
  error: string;
  /** A `cached` node's: the run (and node) that computed its outputs. */
  cachedFrom?: { runId: string; node: string };
}

export interface StoredMetricRow {
  runId: string;
  name: string;
  step: number;
  value: number;
}

/** A chunk of a series as the `metrics` store holds it: consecutive points, keyed by the first step. */
interface StoredMetricChunk {
  runId: string;
  name: string;
  step: number;
  steps: Int32Array | Float64Array | null;
  values: Float64Array;
}

export interface StoredState {
  /** The page's clock when the stores were read (leases are epoch ms on it). */
  now: number;
  runs: StoredRunRow[];
  nodes: StoredNodeRow[];
  metrics: StoredMetricRow[];
}

const finished = new Set(['ok', 'error', 'cancelled', 'abandoned']);
/** A node an `ok` run may end with: run, skipped, or its outputs taken from the node-output cache. */
const nodeDone = new Set(['ok', 'skipped', 'cached']);
/** A train node emits its loss every 5 steps (the default flow). */
const LOSS = 'train.loss';
const LOSS_EVERY = 5;
/**
 * How long after a cancel request a run may still end `ok`: the driver
 * watches the record, and a request made as the last step ran may lose.
 * Generous, so a loaded machine does not fail it; a cancel that never
 * reaches its driver runs on for much longer.
 */
const CANCEL_GRACE_MS = 5_000;

/** Every run, node outcome and metric point, read in one read-only transaction in `page`. */
export function readStore(page: Page): Promise<StoredState> {
  return page.evaluate(
    () =>
      new Promise<StoredState>((resolve, reject) => {
        const open = indexedDB.open('flowbench');
        open.onerror = () => reject(open.error ?? new Error('cannot open flowbench'));
        open.onsuccess = () => {
          const db = open.result;
          const tx = db.transaction(['runs', 'runNodes', 'metrics'], 'readonly');
          const runs = tx.objectStore('runs').getAll();
          const nodes = tx.objectStore('runNodes').getAll();
          const chunks = tx.objectStore('metrics').getAll();
          tx.onabort = () => reject(tx.error ?? new Error('cannot read the run stores'));
          tx.oncomplete = () => {
            db.close();
            // The store holds each series as chunks of points (typed columns): every point, as rows.
            const metrics: StoredMetricRow[] = [];
            for (const chunk of chunks.result as StoredMetricChunk[])
              chunk.values.forEach((value, i) =>
                metrics.push({
                  runId: chunk.runId,
                  name: chunk.name,
                  step: chunk.steps ? chunk.steps[i]! : chunk.step + i,
                  value,
                }),
              );
            resolve({
              now: Date.now(),
              runs: runs.result as StoredRunRow[],
              nodes: nodes.result as StoredNodeRow[],
              metrics,
            });
          };
        };
      }),
  );
}

/** Runs not yet ended: `queued`, or `running` (whether or not an engine still vouches for it). */
export function unfinishedRuns(state: StoredState): StoredRunRow[] {
  return state.runs.filter((run) => !finished.has(run.status));
}

/** Each run's series, by metric name, in step order. */
function seriesOf(state: StoredState): Map<string, Map<string, StoredMetricRow[]>> {
  const byRun = new Map<string, Map<string, StoredMetricRow[]>>();
  for (const point of state.metrics) {
    const names = byRun.get(point.runId) ?? new Map<string, StoredMetricRow[]>();
    byRun.set(point.runId, names);
    const series = names.get(point.name) ?? [];
    names.set(point.name, series);
    series.push(point);
  }
  for (const names of byRun.values())
    for (const series of names.values()) series.sort((a, b) => a.step - b.step);
  // A cached node emitted nothing in its run: its series are those of the run that computed it.
  for (const node of state.nodes) {
    const from = node.cachedFrom;
    if (node.status !== 'cached' || !from) continue;
    const names = byRun.get(node.runId) ?? new Map<string, StoredMetricRow[]>();
    byRun.set(node.runId, names);
    for (const [name, points] of byRun.get(from.runId) ?? [])
      if (name.startsWith(`${from.node}.`))
        names.set(`${node.node}.${name.slice(from.node.length + 1)}`, points);
  }
  return byRun;
}

/**
 * Every rule the stores break once the scenario has settled, one line each.
 * A run still `queued` or `running` here had an engine able to take it for
 * the whole settling window, so it counts as stuck.
 */
export function violations(state: StoredState): string[] {
  const found: string[] = [];
  const ids = new Set(state.runs.map((run) => run.id));
  const series = seriesOf(state);

  for (const run of state.runs) {
    const tag = `run ${run.id} (${run.status})`;
    if (!finished.has(run.status)) {
      const lease =
        run.leaseUntil === null ? 'no lease' : `lease ${run.leaseUntil - state.now} ms left`;
      found.push(`${tag} never ended (${lease})`);
    }

    const asked = run.cancelRequestedAt ? Date.parse(run.cancelRequestedAt) : NaN;
    const ended = run.finishedAt ? Date.parse(run.finishedAt) : NaN;
    if (run.status === 'ok' && ended - asked > CANCEL_GRACE_MS)
      found.push(
        `${tag} ended ${ended - asked} ms after a cancel request (${run.cancelRequestedAt})`,
      );

    // Node outcomes: whole rows, none left mid-way in an ended run.
    const nodes = state.nodes.filter((n) => n.runId === run.id);
    for (const node of nodes) {
      const where = `${tag} node ${node.node} (${node.status})`;
      if ((node.status === 'ok' || node.status === 'running') && node.startedAt === null)
        found.push(`${where} has no start time`);
      if (node.status === 'ok' && (node.durationMs === null || node.durationMs < 0))
        found.push(`${where} has no duration`);
      if (node.status === 'error' && node.error === '') found.push(`${where} has no error`);
      if (finished.has(run.status) && (node.status === 'running' || node.status === 'queued'))
        found.push(`${where} is still ${node.status} in an ended run`);
    }
    if (run.status === 'ok') {
      const flowNodes = run.flowSnapshot.nodes.map((n) => n.id).sort();
      const recorded = nodes.map((n) => n.node).sort();
      if (JSON.stringify(flowNodes) !== JSON.stringify(recorded))
        found.push(
          `${tag} records nodes [${recorded.join(', ')}], its flow has [${flowNodes.join(', ')}]`,
        );
      for (const node of nodes)
        if (!nodeDone.has(node.status)) found.push(`${tag} node ${node.node} is ${node.status}`);
    }

    // Series: steps 0, 1, 2 … once each.
    for (const [name, points] of series.get(run.id) ?? []) {
      const gap = points.findIndex((point, i) => point.step !== i);
      if (gap >= 0)
        found.push(`${tag} ${name}: point ${gap} has step ${points[gap]!.step} (gap or duplicate)`);
    }
    const steps = run.params.steps;
    const loss = series.get(run.id)?.get(LOSS)?.length ?? 0;
    if (run.status === 'ok' && typeof steps === 'number' && loss !== steps / LOSS_EVERY)
      found.push(
        `${tag} ${LOSS} has ${loss} points, its ${steps} steps emit ${steps / LOSS_EVERY}`,
      );
  }

  for (const id of new Set(state.metrics.map((point) => point.runId)))
    if (!ids.has(id)) found.push(`metric points of run ${id}, which has no record`);
  for (const id of new Set(state.nodes.map((node) => node.runId)))
    if (!ids.has(id)) found.push(`node outcomes of run ${id}, which has no record`);

  found.push(...divergences(state, series));
  return found;
}

/** Runs of equal params and backend whose series are not prefixes of one another. */
function divergences(
  state: StoredState,
  series: Map<string, Map<string, StoredMetricRow[]>>,
): string[] {
  const found: string[] = [];
  const groups = new Map<string, StoredRunRow[]>();
  for (const run of state.runs) {
    if (!run.engine) continue;
    const key = `${run.paramsDigest} ${run.engine.backend}`;
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  for (const runs of groups.values())
    for (let i = 0; i < runs.length; i++)
      for (let j = i + 1; j < runs.length; j++) {
        const [a, b] = [runs[i]!, runs[j]!];
        const names = new Set([
          ...(series.get(a.id)?.keys() ?? []),
          ...(series.get(b.id)?.keys() ?? []),
        ]);
        for (const name of names) {
          const [x, y] = [series.get(a.id)?.get(name) ?? [], series.get(b.id)?.get(name) ?? []];
          const shared = Math.min(x.length, y.length);
          const differs = x.slice(0, shared).findIndex((p, k) => !Object.is(p.value, y[k]!.value));
          if (differs >= 0)
            found.push(
              `runs ${a.id} and ${b.id} share params but ${name} differs at step ${differs}: ` +
                `${x[differs]!.value} vs ${y[differs]!.value}`,
            );
          else if (a.status === 'ok' && b.status === 'ok' && x.length !== y.length)
            found.push(
              `ok runs ${a.id} and ${b.id} share params but ${name} has ${x.length} vs ${y.length} points`,
            );
        }
      }
  return found;
}

/**
 * Where two exported files first differ (`run.engine.adapter: "a" vs "b"`),
 * or null when they are equal: keys in any order, arrays in order, numbers
 * by `Object.is`.
 */
export function firstDifference(a: unknown, b: unknown, path = ''): string | null {
  if (Object.is(a, b)) return null;
  const show = (value: unknown) =>
    value === undefined ? 'undefined' : JSON.stringify(value).slice(0, 120);
  const here = `${path || '(the file)'}: ${show(a)} vs ${show(b)}`;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return here;
  if (Array.isArray(a) !== Array.isArray(b)) return here;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const inner = firstDifference(
      (a as Record<string, unknown>)[key],
      (b as Record<string, unknown>)[key],
      path ? `${path}.${key}` : key,
    );
    if (inner !== null) return inner;
  }
  return null;
}

/** One look at the pool bookings of every tab, as IndexedDB holds them. */
export interface PoolSample {
  /** The page's clock when it looked (leases are epoch ms on it). */
  now: number;
  /** Engines that held their Web Lock just before the bookings were read: alive. */
  live: string[];
  bookings: { engine: string; backend: string; bytes: number; leaseUntil: number }[];
}

/**
 * Every look at the bookings where what counts on one backend passed its
 * budget: the pool admitted more than it had. A booking counts as the
 * engines count it (db/pool-bookings.ts): its lease runs, or its engine is
 * alive; one that neither vouches for is left over, swept by the next booking.
 */
export function poolOverruns(
  samples: readonly PoolSample[],
  budgets: Readonly<Record<string, number>>,
): string[] {
  const found: string[] = [];
  for (const sample of samples)
    for (const [backend, { bytes, engines }] of poolHeld(sample)) {
      const budget = budgets[backend];
      if (budget !== undefined && bytes > budget)
        found.push(
          `the ${backend} pool held ${bytes} bytes (${engines} engines) at ${sample.now}, its budget is ${budget}`,
        );
    }
  return found;
}

/** What counts on each backend in one look: bytes, and how many engines hold them. */
export function poolHeld(sample: PoolSample): Map<string, { bytes: number; engines: number }> {
  const held = new Map<string, { bytes: number; engines: Set<string> }>();
  for (const row of sample.bookings)
    if (row.leaseUntil > sample.now || sample.live.includes(row.engine)) {
      const backend = held.get(row.backend) ?? { bytes: 0, engines: new Set<string>() };
      backend.bytes += row.bytes;
      backend.engines.add(row.engine);
      held.set(row.backend, backend);
    }
  return new Map(
    [...held].map(([backend, { bytes, engines }]) => [backend, { bytes, engines: engines.size }]),
  );
}

/** Engines alive and every pool booking, read in `page` (the locks first, as the engines do). */
export function readPool(page: Page): Promise<PoolSample> {
  return page.evaluate(async () => {
    const { held = [] } = await navigator.locks.query();
    const prefix = 'flowbench-engine/';
    const live = held.flatMap((lock) =>
      lock.name?.startsWith(prefix) === true ? [lock.name.slice(prefix.length)] : [],
    );
    return new Promise<PoolSample>((resolve, reject) => {
      const open = indexedDB.open('flowbench');
      open.onerror = () => reject(open.error ?? new Error('cannot open flowbench'));
      open.onsuccess = () => {
        const db = open.result;
        const tx = db.transaction('poolBookings', 'readonly');
        const rows = tx.objectStore('poolBookings').getAll();
        tx.onabort = () => reject(tx.error ?? new Error('cannot read the pool bookings'));
        tx.oncomplete = () => {
          db.close();
          resolve({ now: Date.now(), live, bookings: rows.result as PoolSample['bookings'] });
        };
      };
    });
  });
}
