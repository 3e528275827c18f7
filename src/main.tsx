// App-level styles first: each folder's own stylesheet, imported by its components, builds on them.
import './ui/app.css';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './ui/App';
import { EngineProvider } from './ui/engine/EngineContext';
import { startServiceWorker } from './ui/offline/service-worker';
import { EditorProvider } from './ui/store/context';

const queryClient = new QueryClient();
startServiceWorker();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <EditorProvider>
        <EngineProvider>
          <App />
        </EngineProvider>
      </EditorProvider>
    </QueryClientProvider>
  </StrictMode>,
);
