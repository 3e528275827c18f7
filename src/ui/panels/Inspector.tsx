/** The inspector: the selected node's params as a form from its kind's declaration, and its last outcome. */
import type { ParamSpec } from '../../core/catalog/params';
import { checkParam } from '../../core/catalog/params';
import { isInputRef, type ParamValue } from '../../core/flow/document';
import { crossParamFindings } from '../../core/flow/validate';
import { tensorPorts } from '../../core/onnx/feeds';
import { builtinCatalog } from '../../core/nodes';
import { useRunNodes, useSelectedRun } from '../runs/queries';
import { useRunActions } from '../engine/actions';
import { useEditor, useEditorStore } from '../store/context';
import { edits } from '../store/editor';
import { bindParam, inputFor, setBypass, unbindParam } from '../store/node-edits';
import { FileParamField } from './FileParamField';
import { ModelCard } from './ModelCard';
import { parseTensorFiles, tensorFilesOf } from './model-feeds';
import { TableColumns } from './TableColumns';
import type { HeaderChoice } from '../../core/tables';
import './panels.css';

function ParamField({
  name,
  spec,
  value,
  finding,
  onChange,
  onBind,
  onUnbind,
}: {
  name: string;
  spec: ParamSpec;
  value: ParamValue | undefined;
  /** What the kind's check across params says about this one, if anything. */
  finding: string | undefined;
  onChange: (value: ParamValue) => void;
  onBind: () => void;
  onUnbind: () => void;
}) {
  const id = `node-param-${name}`;
  if (isInputRef(value))
    return (
      <div className="fb-field">
        <label htmlFor={id}>{name}</label>
        <input id={id} readOnly value={`← flow input '${value.$input}'`} />
        <button type="button" aria-label={`Unbind ${name}`} onClick={onUnbind}>
          Unbind
        </button>
      </div>
    );
  if (spec.type === 'file')
    return (
      <FileParamField
        id={id}
        name={name}
        spec={spec}
        value={typeof value === 'string' ? value : ''}
        onChange={onChange}
      />
    );
  const current = value ?? spec.default;
  const problem = checkParam(spec, current) ?? finding;
  return (
    <div className="fb-field">
      <label htmlFor={id}>{name}</label>
      {spec.type === 'enum' ? (
        <select id={id} value={String(current)} onChange={(e) => onChange(e.currentTarget.value)}>
          {spec.options.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      ) : spec.type === 'boolean' ? (
        <input
          id={id}
          type="checkbox"
          checked={current === true}
          onChange={(e) => onChange(e.currentTarget.checked)}
        />
      ) : (
        <input
          id={id}
          type={spec.type === 'string' ? 'text' : 'number'}
          min={'min' in spec ? spec.min : undefined}
          max={'max' in spec ? spec.max : undefined}
          step={spec.type === 'int' ? 1 : 'any'}
          value={String(current)}
          aria-invalid={problem ? 'true' : undefined}
          onChange={(e) => {
            const text = e.currentTarget.value;
            onChange(spec.type === 'string' || text === '' ? text : Number(text));
          }}
        />
      )}
      <small className={problem ? 'fb-invalid' : 'fb-muted'}>{problem ?? spec.description}</small>
      <button
        type="button"
        className="fb-bind"
        // The name starts with the button's text (which names no param).
        aria-label={`Bind to flow input (${name})`}
        title="Take this value from a flow input (a field of Run parameters)"
        onClick={onBind}
      >
        Bind to flow input
      </button>
    </div>
  );
}

/** The model file of a node that shows a model card: a `model.onnx` with its file picked (its feeds replace the `inputs` text field). */
function modelFile(kind: string, params: Readonly<Record<string, ParamValue>>): string | null {
  return kind === 'model.onnx' && typeof params.file === 'string' && params.file !== ''
    ? params.file
    : null;
}

/** A table node's file and column choices, once it has a file (its pickers replace two text fields). */
function tableParams(
  kind: string,
  params: Readonly<Record<string, ParamValue>>,
): { digest: string; header: HeaderChoice; label: string; features: string } | null {
  const { file, header, label, features } = params;
  if (kind !== 'data.table' || typeof file !== 'string' || file === '') return null;
  return {
    digest: file,
    header: header === 'yes' || header === 'no' ? header : 'auto',
    label: typeof label === 'string' ? label : '',
    features: typeof features === 'string' ? features : '',
  };
}

export function Inspector() {
  const store = useEditorStore();
  const selected = useEditor((s) => s.selectedNode);
  const node = useEditor((s) => s.doc?.nodes.find((n) => n.id === selected));
  // The selected node's wired input ports, as one string so the selection stays equal between renders.
  const wiredPorts = useEditor((s) =>
    (s.doc?.edges ?? [])
      .filter((e) => e.to.startsWith(`${selected}.`))
      .map((e) => e.to.slice(e.to.indexOf('.') + 1))
      .sort()
      .join(' '),
  );
  // Where each wired tensor port's array comes from: a `data.tensor` node's file, as one string
  // (one line a port) so the selection stays equal between renders.
  const tensorFiles = useEditor((s) => tensorFilesOf(s.doc, selected));
  const run = useSelectedRun();
  const { run: runFlow } = useRunActions();
  const outcomes = useRunNodes(run?.id ?? null);
  if (!node) return <section className="fb-inspector fb-muted">Select a node to edit it.</section>;
  const kind = builtinCatalog.get(node.kind);
  const outcome = outcomes?.find((o) => o.node === node.id);
  const findings = kind ? crossParamFindings(kind, node.params) : [];
  const table = tableParams(node.kind, node.params);
  const model = modelFile(node.kind, node.params);
  return (
    <section className="fb-inspector" aria-label="Inspector">
      <h2>
        {kind?.title ?? node.kind} <code>{node.id}</code>
      </h2>
      <p className="fb-muted">{kind?.description ?? `Unknown kind ${node.kind}`}</p>
      <label className="fb-field">
        <input
          type="checkbox"
          checked={node.bypass === true}
          onChange={(e) =>
            store.getState().changeDoc(setBypass([node.id], e.currentTarget.checked))
          }
        />{' '}
        Bypass (does not run; passes matching inputs on)
      </label>
      {kind &&
        Object.entries(kind.params)
          .filter(([name]) => !(table && (name === 'label' || name === 'features')))
          .filter(([name]) => !((name === 'inputs' || name === 'sequence') && model !== null))
          .map(([name, spec]) => (
            <ParamField
              key={name}
              name={name}
              spec={spec}
              value={node.params[name]}
              finding={findings.find((f) => f.param === name)?.message}
              onChange={(value) => store.getState().changeDoc(edits.setParam(node.id, name, value))}
              onBind={() => {
                const { doc, changeDoc, alert } = store.getState();
                if (!doc) return;
                const found = inputFor(doc, name, spec, node.params[name]);
                if (typeof found === 'string') alert(found);
                else changeDoc(bindParam(node.id, name, found.input, found.isNew));
              }}
              onUnbind={() => {
                const { doc, changeDoc } = store.getState();
                if (doc) changeDoc(unbindParam(doc, node.id, name, spec));
              }}
            />
          ))}
      {model !== null && (
        <ModelCard
          digest={model}
          inputs={typeof node.params.inputs === 'string' ? node.params.inputs : ''}
          onSetInputs={(value) =>
            store.getState().changeDoc(edits.setParam(node.id, 'inputs', value))
          }
          sequence={{
            sequence: typeof node.params.sequence === 'string' ? node.params.sequence : '',
            frame: typeof node.params.frame === 'number' ? node.params.frame : 0,
            carry: typeof node.params.carry === 'string' ? node.params.carry : '',
          }}
          onSetSequence={(value) =>
            store.getState().changeDoc(edits.setParam(node.id, 'sequence', value))
          }
          wired={{
            dataset: wiredPorts.split(' ').includes('dataset'),
            ...Object.fromEntries(
              tensorPorts.map((port) => [port, wiredPorts.split(' ').includes(port)]),
            ),
            samples: wiredPorts.split(' ').includes('samples'),
          }}
          tensorFiles={parseTensorFiles(tensorFiles)}
        />
      )}
      {table && (
        <TableColumns
          {...table}
          onSetParam={(name, value) =>
            store.getState().changeDoc(edits.setParam(node.id, name, value))
          }
        />
      )}
      {outcome && (
        <div className="fb-outcome">
          <h3>Last outcome: {outcome.status}</h3>
          {outcome.cachedFrom && (
            <p>
              From the cache: computed by run <code>{outcome.cachedFrom.runId}</code>
            </p>
          )}
          {outcome.error && <p className="fb-invalid">{outcome.error}</p>}
          {outcome.logs && (
            // Long logs scroll within a few lines: focusable, so a keyboard can scroll them too.
            <pre tabIndex={0} aria-label={`${node.id} log`}>
              {outcome.logs}
            </pre>
          )}
        </div>
      )}
      <div className="fb-run-partial">
        <button type="button" onClick={() => void runFlow({ to: node.id })}>
          Run to here
        </button>
        <button type="button" onClick={() => void runFlow({ from: node.id })}>
          Run from here
        </button>
      </div>
      <button
        type="button"
        onClick={() => {
          store.getState().changeDoc(edits.removeNodes([node.id]));
          store.getState().selectNode(null);
        }}
      >
        Delete node
      </button>
    </section>
  );
}
