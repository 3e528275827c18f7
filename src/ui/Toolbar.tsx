/** The top bar: the open flow's name, files in and out, the backend, Run and Cancel run. */
import { useState, type ChangeEvent } from 'react';
import { backendChoices, type BackendChoice } from '../core/runtime/tensor-runtime';
import { useEngine, useEngineInfo } from './engine/EngineContext';
import { useRunActions } from './engine/actions';
import { ExamplesDialog } from './panels/ExamplesDialog';
import { UpdateNotice } from './offline/UpdateNotice';
import { download } from './files';
import { writeSetting } from '../db/settings';
import { db } from './db';
import { importPickedFiles } from './library';
import { useSelectedRun } from './runs/queries';
import { useEditor, useEditorStore } from './store/context';

export function Toolbar() {
  const store = useEditorStore();
  const doc = useEditor((s) => s.doc);
  const backend = useEditor((s) => s.backend);
  const useCache = useEditor((s) => s.useCache);
  const selected = useSelectedRun();
  const info = useEngineInfo();
  const engine = useEngine();
  const { run, cancel } = useRunActions();
  const [examplesOpen, setExamplesOpen] = useState(false);
  const [importing, setImporting] = useState<{ done: number; total: number } | null>(null);

  const onImport = async (event: ChangeEvent<HTMLInputElement>) => {
    const input = event.currentTarget;
    const files = [...(input.files ?? [])];
    input.value = '';
    // Only the last run imported is selected: selecting each in turn would load every one's charts.
    const total = files.length;
    if (total > 1) setImporting({ done: 0, total });
    try {
      const lastRun = await importPickedFiles(store, engine, files, (done) => {
        if (total > 1) setImporting({ done, total });
      });
      if (lastRun) store.getState().selectRun(lastRun);
    } catch (error) {
      store.getState().alertError(error);
    } finally {
      setImporting(null);
    }
  };

  const active = selected?.status === 'queued' || selected?.status === 'running';
  const auto = info.data
    ? `auto (${info.data.backend}${info.data.adapter?.isFallbackAdapter ? ', adapter is a software fallback' : ''})`
    : 'auto';

  return (
    <header className="fb-toolbar">
      <span className="fb-brand">Flowbench</span>
      <h1 className="fb-flow-name">{doc?.name ?? '…'}</h1>
      <div className="fb-toolbar-group">
        <button type="button" onClick={() => setExamplesOpen(true)}>
          Examples
        </button>
        <label className="fb-file-button">
          Import
          <input
            type="file"
            multiple
            accept=".json,application/json,.zip,application/zip"
            onChange={(e) => void onImport(e)}
          />
        </label>
        {importing && (
          <progress
            aria-label="Import progress"
            max={importing.total}
            value={importing.done}
            title={`${importing.done.toLocaleString('en-US')} of ${importing.total.toLocaleString('en-US')} files imported`}
          />
        )}
        <button
          type="button"
          disabled={!doc}
          onClick={() => doc && download(`${doc.name}.flow.json`, doc)}
        >
          Export flow
        </button>
      </div>
      <div className="fb-toolbar-group">
        <label htmlFor="backend-choice">Backend</label>
        <select
          id="backend-choice"
          value={backend}
          onChange={(e) => {
            const choice = e.currentTarget.value as BackendChoice;
            store.getState().setBackend(choice);
            writeSetting(db, 'backend', choice).catch((error: unknown) =>
              store.getState().alertError(error, 'The backend choice could not be kept: '),
            );
          }}
        >
          {backendChoices.map((choice) => (
            <option key={choice} value={choice}>
              {choice === 'auto' ? auto : choice}
            </option>
          ))}
        </select>
        <label title="Nodes whose kind, params and inputs match a stored run's take its outputs instead of running">
          <input
            type="checkbox"
            checked={useCache}
            onChange={(e) => {
              const use = e.currentTarget.checked;
              store.getState().setUseCache(use);
              writeSetting(db, 'useCache', use).catch((error: unknown) =>
                store.getState().alertError(error, 'The cache choice could not be kept: '),
              );
            }}
          />
          Use cache
        </label>
        <button type="button" className="fb-primary" disabled={!doc} onClick={() => void run()}>
          Run
        </button>
        <button type="button" disabled={!active} onClick={() => selected && void cancel(selected)}>
          Cancel run
        </button>
      </div>
      <UpdateNotice />
      {examplesOpen && <ExamplesDialog onClose={() => setExamplesOpen(false)} />}
    </header>
  );
}
