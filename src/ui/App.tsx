/** The workbench: toolbar, library and palette, canvas, inspector and parameters, runs. */
import { ReactFlowProvider } from '@xyflow/react';
import { useEffect, useState } from 'react';
import { Alerts } from './Alerts';
import { Canvas } from './canvas/Canvas';
import { restoreSession, useAutosave } from './library';
import { FlowsList } from './panels/FlowsList';
import { HelpDialog } from './panels/HelpDialog';
import { HistoryPanel } from './panels/HistoryPanel';
import { Inspector } from './panels/Inspector';
import { Palette } from './panels/Palette';
import { RunParameters } from './panels/RunParameters';
import { RunDetail } from './runs/RunDetail';
import { RunsTable } from './runs/RunsTable';
import { useEditorStore } from './store/context';
import { Toolbar } from './Toolbar';
import { useShortcuts } from './shortcuts';

export function App() {
  const store = useEditorStore();
  useAutosave();
  useEffect(() => {
    const startUp = new AbortController();
    restoreSession(store, startUp.signal).catch((error: unknown) =>
      store.getState().alert(`Could not open the flow library: ${String(error)}`),
    );
    return () => startUp.abort();
  }, [store]);
  return (
    <ReactFlowProvider>
      <Workbench />
    </ReactFlowProvider>
  );
}

function Workbench() {
  const [help, setHelp] = useState(false);
  useShortcuts(() => setHelp(true));
  return (
    <>
      {help && <HelpDialog onClose={() => setHelp(false)} />}
      <div className="fb-app">
        <Toolbar />
        <Alerts />
        <aside className="fb-left" aria-label="Flows and nodes">
          <FlowsList />
          <Palette />
          <HistoryPanel />
        </aside>
        <main className="fb-main">
          <Canvas />
        </main>
        <aside className="fb-right" aria-label="Parameters">
          <RunParameters />
          <Inspector />
        </aside>
        <section className="fb-bottom" aria-label="Runs">
          <RunsTable />
          <RunDetail />
        </section>
      </div>
    </>
  );
}
