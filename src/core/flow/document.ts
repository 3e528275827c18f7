/**
 * The flow document (`flowbench.flow/1`): what a person draws and keeps in git.
 *
 * It is plain data. Layout (`position`) sits beside meaning but never changes
 * what a flow computes; nothing of the canvas library's internal state is
 * kept. The schema checks the *shape* of a document; whether its nodes, ports
 * and params make sense is `validateFlow`'s job, which needs the catalog.
 */
import { z } from 'zod';

export const FLOW_FORMAT = 'flowbench.flow/1';

/** A node id or port name: it must not contain `.`, which separates them in edges. */
const identifier = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'expected letters, digits, _ or -, starting with a letter');

/** A reference from a param to a flow input: `{ "$input": "lr" }`. */
export const inputRefSchema = z.strictObject({ $input: identifier });
export type InputRef = z.infer<typeof inputRefSchema>;

export const flowInputTypes = ['number', 'int', 'string', 'boolean'] as const;
export type FlowInputType = (typeof flowInputTypes)[number];

export const flowInputSchema = z.object({
  name: identifier,
  type: z.enum(flowInputTypes),
  default: z.union([z.number(), z.string(), z.boolean()]).optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  description: z.string().optional(),
});
export type FlowInput = z.infer<typeof flowInputSchema>;

const paramValue = z.union([
  z.number(),
  z.string(),
  z.boolean(),
  z.null(),
  inputRefSchema,
  z.array(z.union([z.number(), z.string(), z.boolean()])),
]);
export type ParamValue = z.infer<typeof paramValue>;

export const flowNodeSchema = z.object({
  id: identifier,
  kind: z.string().min(1),
  params: z.record(z.string(), paramValue).default({}),
  position: z.object({ x: z.number(), y: z.number() }).default({ x: 0, y: 0 }),
  label: z.string().optional(),
  /**
   * Rate-limit intervals by output port, in milliseconds: at most one value
   * of that port is published live per interval (the run's record keeps every
   * value). Only streaming ports can have one; see `batchIssues`.
   */
  rateLimits: z.record(z.string(), z.number().positive().max(3_600_000)).optional(),
});
export type FlowNode = z.infer<typeof flowNodeSchema>;

const portRefSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_-]*\.[A-Za-z_][A-Za-z0-9_-]*$/, 'expected "nodeId.port"');

export const flowEdgeSchema = z.object({ from: portRefSchema, to: portRefSchema });
export type FlowEdge = z.infer<typeof flowEdgeSchema>;

export const flowDocumentSchema = z.object({
  format: z.literal(FLOW_FORMAT, { error: `expected "${FLOW_FORMAT}"` }),
  name: z.string().min(1, 'a flow needs a name'),
  description: z.string().optional(),
  inputs: z.array(flowInputSchema).default([]),
  outputs: z.array(z.string()).default([]),
  nodes: z.array(flowNodeSchema),
  edges: z.array(flowEdgeSchema).default([]),
});
export type FlowDocument = z.infer<typeof flowDocumentSchema>;

/** A `nodeId.port` reference split in two. */
export interface PortAddress {
  node: string;
  port: string;
}

export function parsePortRef(ref: string): PortAddress {
  const dot = ref.indexOf('.');
  return { node: ref.slice(0, dot), port: ref.slice(dot + 1) };
}

export function portRef(node: string, port: string): string {
  return `${node}.${port}`;
}

export function isInputRef(value: unknown): value is InputRef {
  return typeof value === 'object' && value !== null && '$input' in value;
}
