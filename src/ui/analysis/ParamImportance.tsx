/**
 * Which params drive a chosen metric across the runs the parallel
 * coordinates show: a bar per param, sorted by its random-forest importance,
 * with its correlation beside it (computed in a worker,
 * `core/run/importance.ts`); and a scatter of the metric against the param
 * picked in the list.
 */
import { useCallback, useMemo, useState } from 'react';
import type { ImportanceRow } from '../../core/run/importance';
import { rawValue, type ParallelAxis, type ParallelRun } from '../../core/run/parallel';
import { formatValue } from '../runs/format';
import { useEditorStore } from '../store/context';
import { useImportance } from './importance-client';

const W = 320;
const H = 160;
const PAD = 28;

export function ParamImportance({
  runs,
  axes,
}: {
  runs: readonly ParallelRun[];
  axes: readonly ParallelAxis[];
}) {
  const store = useEditorStore();
  const paramAxes = useMemo(() => axes.filter((a) => a.source === 'param'), [axes]);
  const metricAxes = useMemo(() => axes.filter((a) => a.source === 'metric'), [axes]);
  const [metricKey, setMetricKey] = useState('');
  const metric = metricAxes.find((a) => a.key === metricKey) ?? metricAxes[0];
  const rows = useMemo((): ImportanceRow[] => {
    if (!metric) return [];
    return runs.flatMap((run) => {
      const value = rawValue(run, metric.key);
      if (typeof value !== 'number') return [];
      const params: Record<string, number | string> = {};
      for (const axis of paramAxes) {
        const v = rawValue(run, axis.key);
        if (v !== undefined) params[axis.label] = v;
      }
      return [{ params, metric: value }];
    });
  }, [runs, metric, paramAxes]);
  const names = useMemo(() => paramAxes.map((a) => a.label), [paramAxes]);
  const failed = useCallback(
    (error: unknown) =>
      store.getState().alert(error instanceof Error ? error.message : String(error)),
    [store],
  );
  const ranked = useImportance(rows, names, failed);
  const [chosen, setChosen] = useState<string>();
  const param = chosen && names.includes(chosen) ? chosen : ranked?.[0]?.param;

  if (!metric || names.length === 0) return null;
  return (
    <section className="fb-importance" aria-label="Parameter importance">
      <h4>Parameter importance</h4>
      <label>
        Importance for{' '}
        <select value={metric.key} onChange={(e) => setMetricKey(e.currentTarget.value)}>
          {metricAxes.map((axis) => (
            <option key={axis.key} value={axis.key}>
              {axis.label}
            </option>
          ))}
        </select>
      </label>
      <div className="fb-importance__body">
        {ranked === undefined ? (
          <p className="fb-muted">Ranking the params…</p>
        ) : (
          <ol aria-label={`Importance for ${metric.label}`} className="fb-importance__bars">
            {ranked.map((p) => (
              <li key={p.param}>
                <button
                  type="button"
                  aria-pressed={p.param === param}
                  onClick={() => setChosen(p.param)}
                  title="Show the metric against this param"
                >
                  <span className="fb-importance__name">{p.param}</span>
                  <span className="fb-importance__track" aria-hidden="true">
                    <span
                      className="fb-importance__bar"
                      style={{ width: `${(p.importance * 100).toFixed(1)}%` }}
                    />
                  </span>
                  <span className="fb-importance__value">
                    {p.importance.toFixed(2)} · r {p.correlation >= 0 ? '' : '−'}
                    {Math.abs(p.correlation).toFixed(2)}
                  </span>
                </button>
              </li>
            ))}
          </ol>
        )}
        {param && <Scatter rows={rows} param={param} metric={metric.label} />}
      </div>
    </section>
  );
}

/** The metric against one param, a dot per run; a categorical param spreads its values evenly. */
function Scatter({
  rows,
  param,
  metric,
}: {
  rows: readonly ImportanceRow[];
  param: string;
  metric: string;
}) {
  const points = rows.filter((row) => row.params[param] !== undefined);
  const raw = points.map((row) => row.params[param]!);
  const categories = raw.some((v) => typeof v !== 'number')
    ? [...new Set(raw.map(String))].sort()
    : null;
  const xs = raw.map((v) => (categories ? categories.indexOf(String(v)) : (v as number)));
  const ys = points.map((row) => row.metric);
  const scale = (values: number[], from: number, to: number) => {
    const min = Math.min(...values);
    const max = Math.max(...values);
    return (v: number) =>
      max === min ? (from + to) / 2 : from + ((v - min) / (max - min)) * (to - from);
  };
  const x = scale(xs, PAD, W - 8);
  const y = scale(ys, H - PAD, 8);
  const low = (values: number[]) => formatValue(Math.min(...values));
  const high = (values: number[]) => formatValue(Math.max(...values));
  return (
    <svg
      role="img"
      aria-label={`Scatter: ${metric} against ${param}`}
      data-points={points.length}
      viewBox={`0 0 ${W} ${H}`}
      className="fb-importance__scatter"
    >
      <line x1={PAD} y1={H - PAD} x2={W - 8} y2={H - PAD} stroke="#3b4350" />
      <line x1={PAD} y1={8} x2={PAD} y2={H - PAD} stroke="#3b4350" />
      {xs.map((v, i) => (
        <circle key={i} cx={x(v)} cy={y(ys[i]!)} r={3.5} />
      ))}
      <text x={PAD} y={H - 10} fontSize="10">
        {categories ? categories[0] : low(xs)}
      </text>
      <text x={W - 8} y={H - 10} fontSize="10" textAnchor="end">
        {categories ? categories.at(-1) : high(xs)}
      </text>
      <text x={(PAD + W) / 2} y={H - 2} fontSize="10" textAnchor="middle">
        {param}
      </text>
      <text x={4} y={12} fontSize="10">
        {high(ys)}
      </text>
      <text x={4} y={H - PAD} fontSize="10">
        {low(ys)}
      </text>
      <text x={PAD + 4} y={20} fontSize="10">
        {metric}
      </text>
    </svg>
  );
}
