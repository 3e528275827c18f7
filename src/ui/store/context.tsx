/** The editor store in React: a provider, and a hook that reads through a selector. */
import { createContext, useContext, useState, type ReactNode } from 'react';
import { useStore } from 'zustand';
import { createEditorStore, type EditorState, type EditorStore } from './editor';

const EditorContext = createContext<EditorStore | null>(null);

export function EditorProvider({ children, store }: { children: ReactNode; store?: EditorStore }) {
  const [value] = useState(() => store ?? createEditorStore());
  return <EditorContext.Provider value={value}>{children}</EditorContext.Provider>;
}

export function useEditorStore(): EditorStore {
  const store = useContext(EditorContext);
  if (!store) throw new Error('useEditor must be used inside <EditorProvider>');
  return store;
}

export function useEditor<T>(selector: (state: EditorState) => T): T {
  return useStore(useEditorStore(), selector);
}
