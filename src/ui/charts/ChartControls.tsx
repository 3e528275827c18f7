/**
 * The controls every chart of the panel shares: smoothing, y scale, x unit and scale,
 * outliers, grouping a sweep by a param, and a shortcut to compare every run
 * of the selected run's sweep.
 */
import type { XMode } from '../../core/series/columns';
import type { ChartSettings } from './plot-model';

export interface ChartControlsProps {
  settings: ChartSettings;
  onChange: (settings: ChartSettings) => void;
  /** Params the runs can be grouped by (those that differ); empty hides the choice. */
  groupOptions: readonly string[];
  /** How many runs the selected run's sweep has, when it belongs to one. */
  sweepSize: number;
  /** Whether every run of that sweep is shown already. */
  sweepShown: boolean;
  onCompareSweep: () => void;
}

const xModes: readonly { value: XMode; label: string }[] = [
  { value: 'step', label: 'step' },
  { value: 'wall', label: 'wall time' },
  { value: 'relative', label: 'relative time' },
];

export function ChartControls({
  settings,
  onChange,
  groupOptions,
  sweepSize,
  sweepShown,
  onCompareSweep,
}: ChartControlsProps) {
  const set = (change: Partial<ChartSettings>) => onChange({ ...settings, ...change });
  return (
    <div className="fb-chart-controls" role="group" aria-label="Chart settings">
      <label>
        Smoothing
        <input
          type="range"
          min={0}
          max={0.99}
          step={0.01}
          value={settings.smoothing}
          onChange={(e) => set({ smoothing: Number(e.target.value) })}
        />
        <output>{settings.smoothing.toFixed(2)}</output>
      </label>
      <label>
        Y axis
        <select
          value={settings.log ? 'log' : 'linear'}
          onChange={(e) => set({ log: e.target.value === 'log' })}
        >
          <option value="linear">linear</option>
          <option value="log">log</option>
        </select>
      </label>
      <label>
        X axis
        <select value={settings.xMode} onChange={(e) => set({ xMode: e.target.value as XMode })}>
          {xModes.map((m) => (
            <option key={m.value} value={m.value}>
              {m.label}
            </option>
          ))}
        </select>
      </label>
      <label title={settings.xMode === 'wall' ? 'Wall time is always linear' : undefined}>
        X scale
        <select
          value={settings.logX && settings.xMode !== 'wall' ? 'log' : 'linear'}
          disabled={settings.xMode === 'wall'}
          onChange={(e) => set({ logX: e.target.value === 'log' })}
        >
          <option value="linear">linear</option>
          <option value="log">log</option>
        </select>
      </label>
      <label>
        <input
          type="checkbox"
          checked={settings.ignoreOutliers}
          onChange={(e) => set({ ignoreOutliers: e.target.checked })}
        />
        Ignore outliers
      </label>
      {groupOptions.length > 0 ? (
        <label>
          Group by
          <select
            value={settings.groupBy ?? ''}
            onChange={(e) => set({ groupBy: e.target.value === '' ? null : e.target.value })}
          >
            <option value="">none (one line per run)</option>
            {groupOptions.map((key) => (
              <option key={key} value={key}>
                {key} (mean, min–max)
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {sweepSize > 1 ? (
        <button type="button" disabled={sweepShown} onClick={onCompareSweep}>
          Compare sweep ({sweepSize} runs)
        </button>
      ) : null}
    </div>
  );
}
