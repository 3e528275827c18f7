/** The examples gallery: each example opens as a new flow in the library. */
import { useEffect, useRef } from 'react';
import { examples } from '../examples';
import { openExample } from '../library';
import { useEditorStore } from '../store/context';
import './panels.css';

export function ExamplesDialog({ onClose }: { onClose: () => void }) {
  const store = useEditorStore();
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  return (
    <dialog ref={ref} className="fb-dialog" aria-labelledby="examples-title" onClose={onClose}>
      <h2 id="examples-title">Examples</h2>
      <ul className="fb-examples">
        {examples.map((example) => (
          <li key={example.doc.name}>
            <button
              type="button"
              onClick={() => {
                openExample(store, example)
                  .catch((error: unknown) =>
                    store
                      .getState()
                      .alert(`Could not open the example ${example.doc.name}: ${String(error)}`),
                  )
                  .finally(onClose);
              }}
            >
              {example.doc.name}
            </button>
            <p>{example.doc.description}</p>
          </li>
        ))}
      </ul>
      <button type="button" onClick={onClose}>
        Close
      </button>
    </dialog>
  );
}
