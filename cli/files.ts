/**
 * The files a run reads, given on the command line as the app's inspector
 * gives them: `--file name=path` picks `path` for the file param `name`
 * (`node.param`; a node with one file param; a param name only one node
 * has; or a flow input a file param is bound to), and a bare `--file path` only makes the file there
 * available to file params that already name its digest (a shipped
 * example's model). A picked file changes the flow the run records, as a
 * pick in the inspector does, so the record names the bytes it ran on.
 */
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { Catalog } from '../src/core/catalog/catalog';
import { FlowbenchError } from '../src/core/errors';
import type { FlowDocument } from '../src/core/flow/document';
import { sha256Hex } from '../src/core/run/digest';

/** A file as the app stores a picked one. */
export interface GivenFile {
  name: string;
  bytes: Uint8Array;
  mediaType: string;
}

const mediaTypes: Record<string, string> = {
  '.onnx': 'application/onnx',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.parquet': 'application/vnd.apache.parquet',
};

/** The file at `path`; `bad-import` naming it when it cannot be read. */
export async function readGivenFile(path: string): Promise<GivenFile> {
  try {
    const bytes = new Uint8Array(await readFile(path));
    const mediaType = mediaTypes[extname(path).toLowerCase()] ?? 'application/octet-stream';
    return { name: basename(path), bytes, mediaType };
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new FlowbenchError('bad-import', {
      file: path,
      problem: missing ? 'does not exist' : `cannot be read: ${(error as Error).message}`,
    });
  }
}

/** `name=path` when the text before the first `=` reads as a param name, else a bare path. */
const NAMED = /^([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)?)=(.+)$/s;

/** Where a picked file goes: a node's file param, or the flow input one is bound to. */
type Target = { node: string; param: string } | { input: string };

/** Every file param of the flow, as `node.param`, with the flow input it is bound to, if any. */
function fileParams(flow: FlowDocument, catalog: Catalog) {
  const found: { node: string; param: string; input: string | undefined }[] = [];
  for (const node of flow.nodes) {
    const kind = catalog.get(node.kind);
    if (!kind) continue;
    for (const [param, spec] of Object.entries(kind.params)) {
      if (spec.type !== 'file') continue;
      const value = node.params[param];
      const input =
        typeof value === 'object' && value !== null && !Array.isArray(value)
          ? value.$input
          : undefined;
      found.push({ node: node.id, param, input });
    }
  }
  return found;
}

/** The one file param `name` names; `bad-option` saying what it could have named when none or several. */
function targetOf(flow: FlowDocument, catalog: Catalog, name: string): Target {
  const params = fileParams(flow, catalog);
  const listed = params.map((p) => `${p.node}.${p.param}`).join(', ') || 'none';
  const matches = name.includes('.')
    ? params.filter((p) => `${p.node}.${p.param}` === name)
    : params.filter((p) => p.param === name || p.input === name || p.node === name);
  if (matches.length === 0)
    throw new FlowbenchError('bad-option', {
      option: '--file',
      problem: `'${name}' names no file param of flow '${flow.name}' (its file params: ${listed})`,
    });
  const inputs = new Set(matches.map((p) => p.input));
  if (matches.length > 1 && !(inputs.size === 1 && !inputs.has(undefined)))
    throw new FlowbenchError('bad-option', {
      option: '--file',
      problem: `'${name}' names ${matches.length} file params of flow '${flow.name}' (${matches
        .map((p) => `${p.node}.${p.param}`)
        .join(', ')}): name one as node.param`,
    });
  const match = matches[0]!;
  return match.input !== undefined
    ? { input: match.input }
    : { node: match.node, param: match.param };
}

/**
 * The flow and params with every `--file` applied, and the files the run's
 * store must hold. Throws `bad-option` for a name that names no file param
 * (or several) and `bad-import` for a file that cannot be read; nothing is
 * run then.
 */
export async function applyFiles(
  flow: FlowDocument,
  params: Record<string, unknown>,
  given: readonly string[],
  catalog: Catalog,
): Promise<{ flow: FlowDocument; params: Record<string, unknown>; files: GivenFile[] }> {
  const picked = new Map<string, string>();
  const inputs: Record<string, unknown> = {};
  const files: GivenFile[] = [];
  for (const text of given) {
    const named = NAMED.exec(text);
    const target = named ? targetOf(flow, catalog, named[1]!) : null;
    const file = await readGivenFile(named ? named[2]! : text);
    files.push(file);
    if (!target) continue;
    const digest = `sha256:${await sha256Hex(file.bytes)}`;
    if ('input' in target) inputs[target.input] = digest;
    else picked.set(`${target.node}.${target.param}`, digest);
  }
  return {
    flow: {
      ...flow,
      nodes: flow.nodes.map((node) => {
        const mine = [...picked].filter(([at]) => at.startsWith(`${node.id}.`));
        if (mine.length === 0) return node;
        const params = { ...node.params };
        for (const [at, digest] of mine) params[at.slice(node.id.length + 1)] = digest;
        return { ...node, params };
      }),
    },
    params: { ...params, ...inputs },
    files,
  };
}
