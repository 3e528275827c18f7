/**
 * Every node kind is drawn by this one component, from its catalog entry:
 * title, typed ports as handles, the live status of the displayed run,
 * progress (steps done / total and steps per second) while it runs and the
 * error when it fails.
 */
import { Handle, Position, type NodeProps } from '@xyflow/react';
import { memo } from 'react';
import type { PortSpec } from '../../core/catalog/ports';
import { formatDuration } from '../runs/format';
import type { CanvasNode } from './adapter';
import { useNodeState } from './node-states';
import { useNodeDetail, type Size } from './node-detail';
import './canvas.css';

/** A handle's accessible name, the same on full and far cards. */
function handleName(port: PortSpec, side: 'in' | 'out'): string {
  return `${side === 'in' ? 'input' : 'output'} ${port.name} (${port.type}${port.stream ? ' stream' : ''})`;
}

/** A port's handle, the same on full and far cards. */
function PortHandle({ port, side }: { port: PortSpec; side: 'in' | 'out' }) {
  return (
    <Handle
      type={side === 'in' ? 'target' : 'source'}
      position={side === 'in' ? Position.Left : Position.Right}
      id={port.name}
      className={`fb-handle fb-type-${port.type}`}
      // A handle is a picture of the port to a screen reader (it is not
      // focusable): a name is allowed only with a role.
      role="img"
      aria-label={handleName(port, side)}
    />
  );
}

function Port({ port, side, value }: { port: PortSpec; side: 'in' | 'out'; value?: number }) {
  return (
    <div className={`fb-port fb-port-${side}`} title={port.description}>
      <PortHandle port={port} side={side} />
      <span className="fb-port-name">{port.name}</span>
      {value !== undefined && (
        <output className="fb-port-live" aria-label={`${port.name} live value`}>
          {Number.isFinite(value) ? value.toPrecision(4) : String(value)}
        </output>
      )}
      <span className="fb-port-type">
        {port.type}
        {port.stream ? '…' : ''}
      </span>
    </div>
  );
}

const noValues: Readonly<Record<string, number>> = {};

/** Steps per second with three significant digits, e.g. 412, 45.2, 0.831. */
function formatRate(perSecond: number): string {
  return perSecond >= 100 ? perSecond.toFixed(0) : perSecond.toPrecision(3);
}

/**
 * A node far out (see node-detail.ts): a transparent box at the size its full
 * card last had, with its title and handles where the far view
 * (far-view.ts) draws them, and its status, for the tests and the tooltip.
 */
function FarNodeView({
  id,
  data,
  status,
  title,
  size,
}: {
  id: string;
  data: CanvasNode['data'];
  status: string;
  title: string;
  size: Size | undefined;
}) {
  const { kind } = data;
  return (
    <div
      // No status, selection or bypass classes: the far view draws them, and a class changing
      // on a thousand cards as a run goes would restyle them for nothing.
      className="fb-node fb-node-far"
      data-bypass={data.bypass || undefined}
      data-testid={`node-${id}`}
      data-status={status}
      title={title || undefined}
      style={size}
    >
      <div className="fb-node-far-title">{kind?.title ?? data.kindName}</div>
      <div className="fb-node-far-ports">
        <div>
          {kind?.inputs.map((p) => (
            <PortHandle key={p.name} port={p} side="in" />
          ))}
        </div>
        <div>
          {kind?.outputs.map((p) => (
            <PortHandle key={p.name} port={p} side="out" />
          ))}
        </div>
      </div>
    </div>
  );
}

function FlowNodeViewBase({ id, data, selected }: NodeProps<CanvasNode>) {
  const { kind } = data;
  const state = useNodeState(id);
  const detail = useNodeDetail();
  const status = state?.status ?? 'idle';
  if (detail.far)
    return (
      <FarNodeView
        id={id}
        data={data}
        status={status}
        title={state?.error ?? ''}
        size={detail.fullSizes.get(id)}
      />
    );
  const { progress, error = '' } = state ?? {};
  const durationMs = state?.durationMs ?? null;
  const live = state?.live ?? noValues;
  return (
    <div
      className={`fb-node fb-status-${status}${selected ? ' fb-selected' : ''}${data.bypass ? ' fb-bypassed' : ''}`}
      data-bypass={data.bypass || undefined}
      data-testid={`node-${id}`}
      data-status={status}
      title={error || undefined}
    >
      <header className="fb-node-header">
        <span className="fb-node-title">{kind?.title ?? data.kindName}</span>
        {data.bypass && (
          <span className="fb-node-badge" title="Bypassed: does not run (Ctrl/⌘+B)">
            bypassed
          </span>
        )}
        <span className="fb-node-status">{status}</span>
        {durationMs !== null && (
          <span className="fb-node-duration" title="How long it ran">
            {formatDuration(durationMs)}
          </span>
        )}
      </header>
      <div className="fb-node-id">
        {data.label} · <code>{data.kindName}</code>
      </div>
      {!kind && <div className="fb-node-error">unknown kind</div>}
      <div className="fb-node-ports">
        <div>
          {kind?.inputs.map((p) => (
            <Port key={p.name} port={p} side="in" />
          ))}
        </div>
        <div>
          {kind?.outputs.map((p) => (
            <Port key={p.name} port={p} side="out" value={live[p.name]} />
          ))}
        </div>
      </div>
      {status === 'running' && progress && (
        <progress
          className="fb-node-progress"
          max={progress.total}
          value={progress.done}
          aria-label={`${id} progress`}
        />
      )}
      {status === 'running' && progress && (
        <output className="fb-node-steps" aria-label={`${id} steps`}>
          {progress.done} / {progress.total} steps
          {progress.perSecond !== undefined && ` · ${formatRate(progress.perSecond)} steps/s`}
        </output>
      )}
      {error && status === 'error' && <div className="fb-node-error">{error}</div>}
    </div>
  );
}

export const FlowNodeView = memo(FlowNodeViewBase);
