/** The flow library: every saved flow; clicking one opens it. */
import { useLiveQuery } from 'dexie-react-hooks';
import { listFlows } from '../../db/flows';
import { db } from '../db';
import { openLibraryFlow } from '../library';
import { useEditor, useEditorStore } from '../store/context';

export function FlowsList() {
  const store = useEditorStore();
  const openId = useEditor((s) => s.flowId);
  const flows = useLiveQuery(() => listFlows(db), []);
  return (
    <section className="fb-flows">
      <h2 id="flows-title">Flows</h2>
      <ul aria-labelledby="flows-title">
        {flows?.map((flow) => (
          <li key={flow.id}>
            <button
              type="button"
              aria-current={flow.id === openId ? 'true' : undefined}
              onClick={() => void openLibraryFlow(store, flow.id)}
            >
              {flow.name}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
