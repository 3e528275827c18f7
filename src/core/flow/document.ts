/**
 * The flow document (`flowbench.flow/1`, or `/2` when it bypasses a node): what a person draws and keeps in git.
 *
 * It is plain data. Layout (`position`) sits beside meaning but never changes
 * what a flow computes; nothing of the canvas library's internal state is
 * kept. The schema checks the *shape* of a document; whether its nodes, ports
 * and params make sense is `validateFlow`'s job, which needs the catalog.
 */
import { z } from '../schema';

export const FLOW_FORMAT = 'flowbench.flow/1';
/**
 * The format of a document that bypasses a node. A bypassed node changes what
 * the flow computes, and a reader of `/1` drops keys it does not know, so it
 * would run that node: such a document is written as `/2`, which that reader
 * refuses by name instead. A document that bypasses nothing stays `/1`, so
 * every older reader keeps reading it; reading a `/1` document migrates
 * nothing (it is a `/2` document without bypassed nodes). A file is read
 * through `core/records/flow-file.ts`, where a future format's migrations go.
 */
export const FLOW_FORMAT_2 = 'flowbench.flow/2';
export const flowFormats = [FLOW_FORMAT, FLOW_FORMAT_2] as const;
export type FlowFormat = (typeof flowFormats)[number];

/** A node id or port name: it must not contain `.`, which separates them in edges. */
const identifier = z
  .string()
  .check(
    z.regex(
      /^[A-Za-z_][A-Za-z0-9_-]*$/,
      'expected letters, digits, _ or -, starting with a letter',
    ),
  );

/** A reference from a param to a flow input: `{ "$input": "lr" }`. */
export const inputRefSchema = z.strictObject({ $input: identifier });
export type InputRef = z.infer<typeof inputRefSchema>;

export const flowInputTypes = ['number', 'int', 'string', 'boolean'] as const;
export type FlowInputType = (typeof flowInputTypes)[number];

export const flowInputSchema = z.object({
  name: identifier,
  type: z.enum(flowInputTypes),
  default: z.optional(z.union([z.number(), z.string(), z.boolean()])),
  min: z.optional(z.number()),
  max: z.optional(z.number()),
  description: z.optional(z.string()),
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
  kind: z.string().check(z.minLength(1)),
  params: z._default(z.record(z.string(), paramValue), {}),
  position: z._default(z.object({ x: z.number(), y: z.number() }), { x: 0, y: 0 }),
  label: z.optional(z.string()),
  /**
   * Rate-limit intervals by output port, in milliseconds: at most one value
   * of that port is published live per interval (the run's record keeps every
   * value). Only streaming ports can have one; see `batchIssues`.
   */
  rateLimits: z.optional(z.record(z.string(), z.number().check(z.positive(), z.lte(3_600_000)))),
  /**
   * A bypassed node does not run: an output passes on the value of the node's
   * first input of the same type, and what needs an output with no such
   * input is skipped. Written only when true (and then the format is `/2`).
   */
  bypass: z.optional(z.literal(true)),
});
export type FlowNode = z.infer<typeof flowNodeSchema>;

const portRefSchema = z
  .string()
  .check(z.regex(/^[A-Za-z_][A-Za-z0-9_-]*\.[A-Za-z_][A-Za-z0-9_-]*$/, 'expected "nodeId.port"'));

export const flowEdgeSchema = z.object({ from: portRefSchema, to: portRefSchema });
export type FlowEdge = z.infer<typeof flowEdgeSchema>;

/**
 * A group: a titled frame drawn around some nodes, which move together when
 * the frame is dragged. Groups are layout only and never change what a flow
 * computes. The frame's position and size are not stored: they follow from
 * the member nodes' positions, so a group can never disagree with its nodes.
 * The field is optional and older readers drop unknown keys, so adding it
 * needs no format version bump (a reader that predates it just loses the
 * frames, never the flow). Which nodes a group may name is `groupIssues`'s job.
 */
export const flowGroupSchema = z.object({
  id: identifier,
  title: z.string(),
  nodes: z.array(identifier).check(z.minLength(1, 'a group holds at least one node')),
  /** A CSS colour for the frame. */
  color: z.optional(z.string()),
});
export type FlowGroup = z.infer<typeof flowGroupSchema>;

export const flowDocumentSchema = z
  .object({
    format: z.enum(flowFormats, { error: `expected "${FLOW_FORMAT}" or "${FLOW_FORMAT_2}"` }),
    name: z.string().check(z.minLength(1, 'a flow needs a name')),
    description: z.optional(z.string()),
    inputs: z._default(z.array(flowInputSchema), []),
    outputs: z._default(z.array(z.string()), []),
    nodes: z.array(flowNodeSchema),
    edges: z._default(z.array(flowEdgeSchema), []),
    groups: z.optional(z.array(flowGroupSchema)),
  })
  .check(
    z.superRefine((doc, ctx) => {
      if (doc.format !== FLOW_FORMAT) return;
      doc.nodes.forEach((node, i) => {
        if (node.bypass)
          ctx.addIssue({
            code: 'custom',
            path: ['nodes', i, 'bypass'],
            message: `a bypassed node needs format "${FLOW_FORMAT_2}" (a "${FLOW_FORMAT}" reader would run it)`,
          });
      });
    }),
  );
export type FlowDocument = z.infer<typeof flowDocumentSchema>;

/** The oldest format that says everything `doc` holds: `/2` only when a node is bypassed. */
export function flowFormatFor(doc: Pick<FlowDocument, 'nodes'>): FlowFormat {
  return doc.nodes.some((node) => node.bypass) ? FLOW_FORMAT_2 : FLOW_FORMAT;
}

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
