/**
 * Parallel coordinates of the picked runs (two or more), or else of the
 * selected run's sweep: an axis per param that varies and per final metric,
 * a line per run coloured by a chosen metric. Drag along an axis to brush
 * it: the Runs table then shows only the runs inside every brush; a click on
 * an axis clears its brush, `Clear brushes` clears them all.
 *
 * Drawn on a canvas, not SVG: a thousand runs are a thousand paths, which a
 * canvas draws in a frame and the DOM would hold as a thousand elements. The
 * axes' names and controls are HTML above it, placed at each axis.
 */
import { useEffect, useMemo, useRef, useState, type PointerEvent } from 'react';
import {
  axisPosition,
  axisValueAt,
  colourAxisOf,
  parallelAxes,
  runsInBrushes,
  type AxisScale,
  type Brush,
  type ParallelAxis,
  type ParallelRun,
} from '../../core/run/parallel';
import { finishedRunStatuses, type RunId, type RunRow } from '../../core/run/record';
import type { RunEntry } from '../../core/run/run-entry';
import { formatValue } from '../runs/format';
import { useRunList } from '../runs/queries';
import { useEditor, useEditorStore } from '../store/context';
import { useFinals } from './finals';
import { ParamImportance } from './ParamImportance';
import { rampColour } from './colour-ramp';
import './analysis.css';

const HEIGHT = 240;
/** Room above and below the plot for each axis's top and bottom values. */
const PLOT_TOP = 16;
const PLOT_BOTTOM = HEIGHT - 18;
const SIDE = 48;
/** How near an axis (px) a drag must start to brush it. */
const GRAB = 16;

/** The runs the view draws: the picked ones, or else the selected run's sweep. */
function useShownRuns(run: RunRow): readonly RunEntry[] {
  const all = useRunList();
  const picked = useEditor((s) => s.pickedRuns);
  return useMemo(() => {
    const runs = all ?? [];
    if (picked.length >= 2) {
      const set = new Set(picked);
      return runs.filter((r) => set.has(r.id));
    }
    return run.groupId ? runs.filter((r) => r.groupId === run.groupId) : [];
  }, [all, picked, run.groupId]);
}

function axisXs(count: number, width: number): number[] {
  if (count === 1) return [width / 2];
  return Array.from({ length: count }, (_, i) => SIDE + (i * (width - 2 * SIDE)) / (count - 1));
}

const yOf = (at: number) => PLOT_BOTTOM - at * (PLOT_BOTTOM - PLOT_TOP);
const atOf = (y: number) => Math.min(1, Math.max(0, (PLOT_BOTTOM - y) / (PLOT_BOTTOM - PLOT_TOP)));

function withoutKey<T>(record: Readonly<Record<string, T>>, key: string): Record<string, T> {
  return Object.fromEntries(Object.entries(record).filter(([k]) => k !== key));
}

function tick(axis: ParallelAxis, at: number, scale: AxisScale): string {
  const value = axisValueAt(axis, at, scale);
  return typeof value === 'number' ? formatValue(value) : value;
}

export function ParallelCoordinates({ run }: { run: RunRow }) {
  const store = useEditorStore();
  const entries = useShownRuns(run);
  const finishedIds = useMemo(
    () => entries.filter((r) => finishedRunStatuses.includes(r.status)).map((r) => r.id),
    [entries],
  );
  const finals = useFinals(
    finishedIds,
    entries.some((r) => r.id === run.id) ? run.id : entries[0]?.id,
  );
  const runs = useMemo(
    (): ParallelRun<RunId>[] =>
      entries.map((r) => ({
        id: r.id,
        params: r.params,
        seed: r.seed,
        result: r.result,
        finals: finals.get(r.id),
      })),
    [entries, finals],
  );
  const allAxes = useMemo(() => parallelAxes(runs), [runs]);
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const [scales, setScales] = useState<Readonly<Record<string, AxisScale>>>({});
  const [brushes, setBrushes] = useState<Readonly<Record<string, Brush>>>({});
  const [colourBy, setColourBy] = useState<string>('');
  const axes = useMemo(() => allAxes.filter((a) => !hidden.has(a.key)), [allAxes, hidden]);
  const metricAxes = allAxes.filter((a) => a.source === 'metric');
  const colourAxis = colourAxisOf(allAxes, colourBy);

  const canvas = useRef<HTMLCanvasElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(600);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setWidth(Math.max(200, Math.floor(entry.contentRect.width)));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const xs = useMemo(() => axisXs(axes.length, width), [axes.length, width]);

  // The brushed axes' keys that are still drawn: a hidden axis does not filter.
  const activeBrushes = useMemo(
    () => Object.fromEntries(Object.entries(brushes).filter(([key]) => !hidden.has(key))),
    [brushes, hidden],
  );
  const inside = useMemo(
    () => new Set(runsInBrushes(runs, axes, activeBrushes, scales)),
    [runs, axes, activeBrushes, scales],
  );
  const brushing = Object.keys(activeBrushes).length > 0;
  useEffect(() => {
    store.getState().setBrushedRuns(brushing ? inside : null);
  }, [store, brushing, inside]);
  // What a report of this view draws again.
  useEffect(() => {
    store.getState().setParallelView({
      hidden: [...hidden],
      scales,
      brushes: activeBrushes,
      colourBy: colourAxis?.key ?? null,
    });
  }, [store, hidden, scales, activeBrushes, colourAxis]);
  // Leaving the view gives the table back all its runs.
  useEffect(
    () => () => {
      store.getState().setBrushedRuns(null);
      store.getState().setParallelView(null);
    },
    [store],
  );

  // A brush being dragged: drawn at once, applied to the table when let go.
  const [drag, setDrag] = useState<{ key: string; from: number; to: number } | null>(null);

  useEffect(() => {
    const element = canvas.current;
    const context = element?.getContext('2d');
    if (!element || !context) return;
    const ratio = window.devicePixelRatio || 1;
    element.width = width * ratio;
    element.height = HEIGHT * ratio;
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, width, HEIGHT);
    const colourScale = colourAxis ? scales[colourAxis.key] : undefined;
    const draw = (r: ParallelRun, stroke: string) => {
      context.strokeStyle = stroke;
      context.beginPath();
      let open = false;
      axes.forEach((axis, i) => {
        const at = axisPosition(axis, r, scales[axis.key]);
        if (at === undefined) {
          open = false;
          return;
        }
        if (open) context.lineTo(xs[i]!, yOf(at));
        else context.moveTo(xs[i]!, yOf(at));
        open = true;
      });
      context.stroke();
    };
    // Runs outside the brushes first, faint; those inside over them, in colour.
    context.lineWidth = 1;
    context.globalAlpha = 0.5;
    for (const r of runs) if (brushing && !inside.has(r.id)) draw(r, '#c9ced6');
    context.lineWidth = 1.5;
    context.globalAlpha = 0.85;
    for (const r of runs)
      if (!brushing || inside.has(r.id))
        draw(r, rampColour(colourAxis ? axisPosition(colourAxis, r, colourScale) : undefined));
    context.globalAlpha = 1;
    context.font = '11px system-ui, sans-serif';
    context.textAlign = 'center';
    axes.forEach((axis, i) => {
      const x = xs[i]!;
      context.strokeStyle = '#3b4350';
      context.lineWidth = 1;
      context.beginPath();
      context.moveTo(x, PLOT_TOP);
      context.lineTo(x, PLOT_BOTTOM);
      context.stroke();
      context.fillStyle = '#3b4350';
      context.fillText(tick(axis, 1, scales[axis.key] ?? {}), x, PLOT_TOP - 4);
      context.fillText(tick(axis, 0, scales[axis.key] ?? {}), x, PLOT_BOTTOM + 13);
      const brush =
        drag?.key === axis.key
          ? ([Math.min(drag.from, drag.to), Math.max(drag.from, drag.to)] as const)
          : activeBrushes[axis.key];
      if (brush) {
        context.fillStyle = 'rgba(31, 78, 121, 0.18)';
        context.strokeStyle = 'rgba(31, 78, 121, 0.8)';
        const top = yOf(brush[1]);
        context.fillRect(x - 8, top, 16, yOf(brush[0]) - top);
        context.strokeRect(x - 8, top, 16, yOf(brush[0]) - top);
      }
    });
  }, [runs, axes, xs, width, scales, colourAxis, brushing, inside, activeBrushes, drag]);

  const pointerAt = (event: PointerEvent<HTMLCanvasElement>) => {
    const rect = event.currentTarget.getBoundingClientRect();
    return { x: event.clientX - rect.left, y: event.clientY - rect.top };
  };
  const onPointerDown = (event: PointerEvent<HTMLCanvasElement>) => {
    const { x, y } = pointerAt(event);
    const i = xs.findIndex((axisX) => Math.abs(axisX - x) <= GRAB);
    if (i < 0) return;
    event.currentTarget.setPointerCapture(event.pointerId);
    setDrag({ key: axes[i]!.key, from: atOf(y), to: atOf(y) });
  };
  const onPointerMove = (event: PointerEvent<HTMLCanvasElement>) => {
    if (!drag) return;
    const { y } = pointerAt(event);
    setDrag({ ...drag, to: atOf(y) });
  };
  const onPointerUp = () => {
    if (!drag) return;
    const { key, from, to } = drag;
    setDrag(null);
    setBrushes((current) => {
      const next = { ...current };
      // A click (no drag) on an axis clears its brush.
      if (Math.abs(to - from) * (PLOT_BOTTOM - PLOT_TOP) < 3) return withoutKey(next, key);
      next[key] = [Math.min(from, to), Math.max(from, to)];
      return next;
    });
  };
  const setScale = (key: string, change: AxisScale) => {
    setScales((current) => ({ ...current, [key]: { ...current[key], ...change } }));
    // The brush was drawn on the old scale: it would now mean other values.
    setBrushes((current) => withoutKey(current, key));
  };

  if (runs.length < 2 || allAxes.length === 0) return null;
  return (
    <section className="fb-run-part fb-pc" aria-label="Parallel coordinates">
      <h3>Parallel coordinates</h3>
      <div className="fb-toolbar-group fb-pc__controls">
        <label>
          Colour by{' '}
          <select
            value={colourAxis?.key ?? ''}
            onChange={(event) => setColourBy(event.currentTarget.value)}
          >
            {allAxes.map((axis) => (
              <option key={axis.key} value={axis.key}>
                {axis.label}
              </option>
            ))}
          </select>
        </label>
        <button type="button" disabled={!brushing} onClick={() => setBrushes({})}>
          Clear brushes
        </button>
        <span className="fb-muted" role="status" aria-label="Brushed runs">
          {brushing
            ? `${inside.size} of ${runs.length} runs inside the brushes`
            : `${runs.length} runs · drag along an axis to brush it`}
        </span>
      </div>
      <div ref={box} className="fb-pc__plot">
        <div className="fb-pc__axes">
          {axes.map((axis, i) => (
            <div
              key={axis.key}
              role="group"
              aria-label={`Axis ${axis.label}`}
              className="fb-pc__axis"
              style={{ left: xs[i] }}
            >
              <span className="fb-pc__name" title={axis.key}>
                {axis.label}
              </span>
              <button
                type="button"
                aria-label={`Flip ${axis.label}`}
                aria-pressed={scales[axis.key]?.flip === true}
                title="Flip: largest at the bottom"
                onClick={() => setScale(axis.key, { flip: !scales[axis.key]?.flip })}
              >
                ⇅
              </button>
              {axis.canLog && (
                <label title="Log scale">
                  <input
                    type="checkbox"
                    aria-label={`Log ${axis.label}`}
                    checked={scales[axis.key]?.log === true}
                    onChange={(event) => setScale(axis.key, { log: event.currentTarget.checked })}
                  />
                  log
                </label>
              )}
            </div>
          ))}
        </div>
        <canvas
          ref={canvas}
          role="img"
          aria-label="Parallel coordinates"
          data-runs={runs.length}
          data-plot-top={PLOT_TOP}
          data-plot-bottom={PLOT_BOTTOM}
          style={{ width, height: HEIGHT }}
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={onPointerUp}
          onPointerCancel={() => setDrag(null)}
        />
      </div>
      {metricAxes.length > 0 && (
        <fieldset className="fb-pc__choose">
          <legend>Metric axes</legend>
          {metricAxes.map((axis) => (
            <label key={axis.key}>
              <input
                type="checkbox"
                checked={!hidden.has(axis.key)}
                onChange={(event) => {
                  const shown = event.currentTarget.checked;
                  setHidden((current) => {
                    const next = new Set(current);
                    if (shown) next.delete(axis.key);
                    else next.add(axis.key);
                    return next;
                  });
                }}
              />{' '}
              {axis.label}
            </label>
          ))}
        </fieldset>
      )}
      <ParamImportance runs={runs} axes={allAxes} />
    </section>
  );
}
