/**
 * Messages for the person: bad imports, refused connections, bad params,
 * failed starts. An alert an error raised carries its catalogue code
 * (`data-code`), so what it means can be checked without reading its words.
 */
import { useEditor, useEditorStore } from './store/context';

export function Alerts() {
  const store = useEditorStore();
  const alerts = useEditor((s) => s.alerts);
  if (alerts.length === 0) return null;
  return (
    <div className="fb-alerts">
      {alerts.map((a) => (
        <div key={a.id} role="alert" className="fb-alert" data-code={a.code}>
          <pre>{a.message}</pre>
          <button
            type="button"
            aria-label="Dismiss"
            onClick={() => store.getState().dismissAlert(a.id)}
          >
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
