/**
 * `Export report`: the comparison on screen (its runs, charts with their
 * settings, parallel coordinates, run diff, params and fingerprints) as one
 * self-contained HTML file that opens anywhere, offline. The report's code
 * is loaded only when asked for.
 */
import { useState } from 'react';
import type { RunRow } from '../../core/run/record';
import type { ChartSettings, ShownRun } from '../charts/plot-model';
import { saveBlob } from '../files';
import { useEditorStore } from '../store/context';

export interface ExportReportProps {
  /** The runs compared, the selected run first. */
  runs: readonly RunRow[];
  /** How the charts name and colour them, same order. */
  shown: readonly ShownRun[];
  /** The metrics charted. */
  metrics: readonly string[];
  settings: ChartSettings;
}

export function ExportReport({ runs, shown, metrics, settings }: ExportReportProps) {
  const store = useEditorStore();
  const [busy, setBusy] = useState(false);
  const exportReport = async () => {
    setBusy(true);
    try {
      const [{ readReport }, { reportHtml }, { reportAssets }] = await Promise.all([
        import('./read-report'),
        import('./html'),
        import('./assets'),
      ]);
      const data = await readReport(runs, shown, metrics, settings, store.getState().parallelView);
      const html = reportHtml(data, reportAssets);
      saveBlob(
        `flowbench-report-${String(runs.length)}-run${runs.length === 1 ? '' : 's'}.html`,
        new Blob([html], { type: 'text/html' }),
      );
    } catch (error) {
      store.getState().alertError(error, 'Could not export the report: ');
    } finally {
      setBusy(false);
    }
  };
  return (
    <button
      type="button"
      disabled={busy || runs.length === 0}
      title="One HTML file with these charts, the parallel coordinates, the run diff, params and fingerprints; it opens in any browser, offline"
      onClick={() => void exportReport()}
    >
      Export report
    </button>
  );
}
