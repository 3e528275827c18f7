/**
 * Typed ports. A value flows along an edge only between ports of the same
 * type. A *streaming* output emits many values while its node runs (each one
 * is charted live and recorded); downstream nodes receive its last value when
 * the node finishes.
 */

export const portTypes = [
  'number',
  'dataset',
  'model',
  'tensor',
  'text',
  'environment',
  'live',
  'windows',
] as const;
export type PortType = (typeof portTypes)[number];

export interface PortSpec {
  name: string;
  type: PortType;
  description: string;
  /** Output only: emits many values while the node runs. */
  stream?: boolean;
  /** Input only: the node runs without it. */
  optional?: boolean;
}

/** Human words for a port type, used in messages and the UI. */
export const portTypeLabel: Record<PortType, string> = {
  number: 'number',
  dataset: 'dataset',
  model: 'model',
  tensor: 'tensor',
  text: 'text',
  environment: 'environment',
  live: 'live data source',
  windows: 'context windows',
};
