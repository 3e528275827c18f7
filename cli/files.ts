/**
 * The files a run reads, given on the command line as the app's inspector
 * gives them: `--file name=path` picks `path` for the file param `name`
 * (`node.param`; a node with one file param; a param name only one node
 * has; or a flow input a file param is bound to), and a bare `--file path`
 * only makes the file there available to file params that already name its
 * digest. A file the flow names by digest and no `--file` gives is looked
 * for beside the flow file, by its bytes (a shipped example's dataset or
 * model), else the run is refused before it starts. A picked file changes
 * the flow the run records, as a pick in the inspector does, so the record
 * names the bytes it ran on.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join, relative } from 'node:path';
import type { Catalog } from '../src/core/catalog/catalog';
import { FlowbenchError } from '../src/core/errors';
import { messageOf } from '../src/core/programs/errors';
import type { FlowDocument } from '../src/core/flow/document';
import { flowFileParams } from '../src/core/run/bundle';
import { sha256Hex } from '../src/core/run/digest';

/** A file as the app stores a picked one, with the digest it is named by (hashed once, when read). */
export interface GivenFile {
  name: string;
  bytes: Uint8Array;
  mediaType: string;
  /** `sha256:<hex>` of `bytes`. */
  digest: string;
}

const mediaTypes: Record<string, string> = {
  '.onnx': 'application/onnx',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.parquet': 'application/vnd.apache.parquet',
};

/** The file at `path` of `bytes` (whose digest is `digest`), as the app stores a picked one. */
function givenFile(path: string, bytes: Uint8Array, digest: string): GivenFile {
  const mediaType = mediaTypes[extname(path).toLowerCase()] ?? 'application/octet-stream';
  return { name: basename(path), bytes, mediaType, digest };
}

/** The `bad-import` of a file at `path` that could not be read (`error`, as `readFile` threw it). */
function unreadable(path: string, error: unknown): FlowbenchError {
  const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
  return new FlowbenchError('bad-import', {
    file: path,
    problem: missing ? 'does not exist' : `cannot be read: ${messageOf(error)}`,
  });
}

/** The bytes of the file at `path`; `bad-import` naming it when it cannot be read. */
export async function readBytes(path: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await readFile(path));
  } catch (error) {
    throw unreadable(path, error);
  }
}

/** The file at `path`; `bad-import` naming it when it cannot be read. */
export async function readGivenFile(path: string): Promise<GivenFile> {
  const bytes = await readBytes(path);
  return givenFile(path, bytes, `sha256:${await sha256Hex(bytes)}`);
}

/** `name=path` when the text before the first `=` reads as a param name, else a bare path. */
const NAMED = /^([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)?)=(.+)$/s;

/** Where a picked file goes: a node's file param, or the flow input one is bound to. */
type Target = { node: string; param: string } | { input: string };

/** The one file param `name` names; `bad-option` saying what it could have named when none or several. */
function targetOf(flow: FlowDocument, catalog: Catalog, name: string): Target {
  const params = flowFileParams(flow, catalog);
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

/** A file the flow names by digest that no `--file` gave, found beside the flow. */
export interface FileBeside {
  /** The file param, `node.param`. */
  readonly at: string;
  readonly path: string;
}

/** Where a file the flow names by digest and no `--file` gives may be found. */
export interface FileSources {
  /** The files a run bundle carries, by digest (flow-source.ts). */
  readonly carried?: ReadonlyMap<string, GivenFile>;
  /** The flow file's folder, for a file there with those very bytes. */
  readonly near?: string;
}

/**
 * The flow and params with every `--file` applied, and the files the run's
 * store must hold. A file the flow names by digest that no `--file` gave is
 * taken from the bundle the flow came in (`carried`), else from `near` (the
 * flow file's folder) where a file there has those very bytes (`beside`): a
 * shipped example runs as it is. Throws `bad-option` for a name that names
 * no file param (or several) or a named file found nowhere, and
 * `bad-import` for a file that cannot be read; nothing is run then.
 */
export async function applyFiles(
  flow: FlowDocument,
  params: Record<string, unknown>,
  given: readonly string[],
  catalog: Catalog,
  { carried, near }: FileSources = {},
): Promise<{
  flow: FlowDocument;
  params: Record<string, unknown>;
  files: GivenFile[];
  beside: FileBeside[];
}> {
  const picked = new Map<string, string>();
  const inputs: Record<string, unknown> = {};
  const files: GivenFile[] = [];
  const digests = new Set<string>();
  for (const text of given) {
    const named = NAMED.exec(text);
    const target = named ? targetOf(flow, catalog, named[1]!) : null;
    const file = await readGivenFile(named ? named[2]! : text);
    files.push(file);
    const { digest } = file;
    digests.add(digest);
    if (!target) continue;
    if ('input' in target) inputs[target.input] = digest;
    else picked.set(`${target.node}.${target.param}`, digest);
  }
  const applied = {
    ...flow,
    nodes: flow.nodes.map((node) => {
      const mine = [...picked].filter(([at]) => at.startsWith(`${node.id}.`));
      if (mine.length === 0) return node;
      const params = { ...node.params };
      for (const [at, digest] of mine) params[at.slice(node.id.length + 1)] = digest;
      return { ...node, params };
    }),
  };
  const all = { ...params, ...inputs };
  const beside: FileBeside[] = [];
  const nearby = near === undefined ? undefined : filesIn(near);
  for (const { at, digest } of namedFiles(applied, all, catalog)) {
    if (digests.has(digest)) continue;
    const bundled = carried?.get(digest);
    if (bundled !== undefined) {
      files.push(bundled);
      digests.add(digest);
      continue;
    }
    const found = await nearby?.(digest);
    if (found === undefined)
      throw new FlowbenchError('bad-option', {
        option: '--file',
        problem: `is missing for ${at}: flow '${flow.name}' reads file ${digest.slice(0, 19)}… there, and no file ${carried === undefined ? '' : 'in the bundle or '}beside the flow has those bytes. Give it: --file ${at}=PATH`,
      });
    files.push(found.file);
    digests.add(digest);
    beside.push({ at, path: found.path });
  }
  return { flow: applied, params: all, files, beside };
}

/** Every file param whose value names a file by digest, as `node.param`, with the digest. */
function namedFiles(flow: FlowDocument, params: Record<string, unknown>, catalog: Catalog) {
  const named: { at: string; digest: string }[] = [];
  for (const { node, param, value: literal, input } of flowFileParams(flow, catalog)) {
    const value =
      input === undefined
        ? literal
        : (params[input] ?? flow.inputs.find((i) => i.name === input)?.default);
    if (typeof value === 'string' && value.startsWith('sha256:'))
      named.push({ at: `${node}.${param}`, digest: value });
  }
  return named;
}

/** Files larger than this beside a flow are not read to find a named file's bytes. */
const NEAR_FILE_BYTES = 64 * 1024 * 1024;

/**
 * A finder of the files directly in `folder` by their bytes' digest. Each
 * file is read and hashed at most once however many digests are looked
 * for (a flow naming two files beside it), and only until the one looked
 * for is found; a file whose digest is known is read again when it is.
 */
function filesIn(
  folder: string,
): (digest: string) => Promise<{ path: string; file: GivenFile } | undefined> {
  let paths: Promise<string[]> | undefined;
  let next = 0;
  const hashed = new Map<string, string>();
  const found = (path: string, bytes: Uint8Array, digest: string) => {
    const here = relative(process.cwd(), path);
    return { path: here.startsWith('..') ? path : here, file: givenFile(path, bytes, digest) };
  };
  return async (digest) => {
    const known = hashed.get(digest);
    if (known !== undefined) return found(known, new Uint8Array(await readFile(known)), digest);
    paths ??= readdir(folder, { withFileTypes: true }).then(
      (entries) => entries.filter((e) => e.isFile()).map((e) => join(folder, e.name)),
      () => [],
    );
    const all = await paths;
    while (next < all.length) {
      const path = all[next++]!;
      if ((await stat(path)).size > NEAR_FILE_BYTES) continue;
      const bytes = new Uint8Array(await readFile(path));
      const its = `sha256:${await sha256Hex(bytes)}`;
      hashed.set(its, path);
      if (its === digest) return found(path, bytes, digest);
    }
    return undefined;
  };
}
