/**
 * Run bundles (`<id>.flowbench.zip`): a run file together with the bytes it
 * cannot hold — every artifact its nodes kept (a trained model) and every
 * file its flow's params name (an `.onnx`, a table) — so that a run imported
 * in another browser can be re-run there and gives the same series.
 *
 * Idea: the run file inside is the very `flowbench.run/<n>` JSON that
 * `Export run` writes, unchanged; the bundle only adds the bytes, each under
 * its own digest, and a small manifest naming the files. Every entry is
 * checked against its digest on the way in and a bundle with one that does
 * not match is refused whole: a bundle brings exactly the bytes its run used,
 * or nothing. Trade-off: entries are stored, not deflated — models and
 * Parquet files barely shrink, and a plain zip opens anywhere.
 */
import { unzipSync, zipSync, type Zippable } from 'fflate';
import type { Catalog } from '../catalog/catalog';
import { FILE_DIGEST } from '../catalog/params';
import { issuesFromZod } from '../flow/issues';
import { z } from '../schema';
import { FlowbenchError } from '../errors';
import { isInputRef, type FlowDocument } from '../flow/document';
import { resolveRunParams, type RanFlow } from './params';
import { sha256Hex } from './digest';
import { toRunExport, type RunRecord } from './export';
import { importRefused, refuseImport } from './import-file';
import type { RunId } from './record';

export const BUNDLE_FORMAT = 'flowbench.bundle/1';

/** Bundles above this size are refused before they are read, and not made. */
export const MAX_BUNDLE_BYTES = 512 * 1024 * 1024;

const RUN_ENTRY = 'run.json';
const MANIFEST_ENTRY = 'bundle.json';

/** A file a flow's param names, as the files table keeps it. */
export interface BundleFile {
  /** `sha256:<hex>` of `bytes`. */
  digest: string;
  name: string;
  mediaType: string;
  bytes: Uint8Array;
}

/** What a bundle holds once every entry matched its digest. */
export interface OpenedBundle {
  /** The run file, parsed but not yet checked (import checks it as any run file). */
  runFile: unknown;
  files: BundleFile[];
  /** Artifact bytes by digest. */
  artifacts: Map<string, Uint8Array>;
}

/** `bundle.json`: the files a bundle carries, by digest, with the names they had when picked. */
const manifestSchema = z.object({
  format: z.literal(BUNDLE_FORMAT),
  files: z.array(
    z.object({
      digest: z.string().check(z.regex(FILE_DIGEST, 'expected "sha256:" and 64 hex digits')),
      name: z.string(),
      mediaType: z.string(),
      size: z.int().check(z.nonnegative()),
    }),
  ),
});
type Manifest = z.infer<typeof manifestSchema>;

const hexOf = (digest: string) => digest.replace(/^sha256:/, '');

/** A file param of one of a flow's nodes. */
export interface FlowFileParam {
  readonly node: string;
  readonly param: string;
  /** Its value as the flow holds it: a digest, nothing, or a flow input reference. */
  readonly value: unknown;
  /** The flow input it is bound to, if it is. */
  readonly input: string | undefined;
}

/** Every file param of `flow`'s nodes, of the kinds `catalog` knows. */
export function flowFileParams(flow: FlowDocument, catalog: Catalog): FlowFileParam[] {
  const found: FlowFileParam[] = [];
  for (const node of flow.nodes) {
    const kind = catalog.get(node.kind);
    if (!kind) continue;
    for (const [param, spec] of Object.entries(kind.params)) {
      if (spec.type !== 'file') continue;
      const value = node.params[param];
      found.push({
        node: node.id,
        param,
        value,
        input: isInputRef(value) ? value.$input : undefined,
      });
    }
  }
  return found;
}

/**
 * The digests the file params of `run`'s flow name, each as it is or
 * through a flow input (the run's value for it, else the input's default):
 * the files a bundle of the run must carry.
 */
export function runFileDigests(run: RanFlow, catalog: Catalog): string[] {
  const { values } = resolveRunParams(run.flowSnapshot, run.params, run.seed);
  const digests = new Set<string>();
  for (const { value, input } of flowFileParams(run.flowSnapshot, catalog)) {
    const named = input === undefined ? value : values[input];
    if (typeof named === 'string' && named !== '') digests.add(named);
  }
  return [...digests];
}

/**
 * The bundle of `record`: its run file, the bytes of every artifact that has
 * them, and `files` (the files its flow names). Throws `bundle-too-large`
 * when it would pass `MAX_BUNDLE_BYTES`.
 */
export function packRunBundle(record: RunRecord, files: readonly BundleFile[]): Uint8Array {
  const manifest: Manifest = {
    format: BUNDLE_FORMAT,
    files: files.map(({ digest, name, mediaType, bytes }) => ({
      digest,
      name,
      mediaType,
      size: bytes.byteLength,
    })),
  };
  const text = (value: unknown) => new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`);
  const entries: Zippable = {
    [RUN_ENTRY]: text(toRunExport(record)),
    [MANIFEST_ENTRY]: text(manifest),
  };
  let size = 0;
  for (const file of files) {
    entries[`files/${hexOf(file.digest)}`] = file.bytes;
    size += file.bytes.byteLength;
  }
  for (const artifact of record.artifacts) {
    if (artifact.bytes === null) continue;
    entries[`artifacts/${hexOf(artifact.digest)}`] = artifact.bytes;
    size += artifact.bytes.byteLength;
  }
  if (size > MAX_BUNDLE_BYTES) throw bundleTooLarge(record.run.id, size);
  return zipSync(entries, { level: 0 });
}

function bundleTooLarge(runId: RunId, bytes: number): FlowbenchError {
  return new FlowbenchError('bundle-too-large', {
    runId,
    megabytes: bytes / 1024 / 1024,
    limit: MAX_BUNDLE_BYTES / 1024 / 1024,
  });
}

/** True when `bytes` start as a zip file does. */
export function looksLikeZip(bytes: Uint8Array): boolean {
  return bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

/**
 * Open the bundle `name`: its run file, files and artifact bytes, each entry
 * checked against the digest it is stored under. Throws `bad-import` naming
 * the entry at fault (and keeps nothing) when it is not a bundle, lacks its
 * run file, or holds bytes that do not match their digest.
 */
export async function openRunBundle(name: string, bytes: Uint8Array): Promise<OpenedBundle> {
  if (bytes.byteLength > MAX_BUNDLE_BYTES)
    throw importRefused(
      name,
      `is ${(bytes.byteLength / 1024 / 1024).toFixed(1)} MB; Flowbench imports bundles up to ${MAX_BUNDLE_BYTES / 1024 / 1024} MB`,
    );
  let entries: Record<string, Uint8Array>;
  // What the entries inflate to is checked before they are inflated: a small zip can unpack to gigabytes.
  let unpacked = 0;
  try {
    entries = unzipSync(bytes, {
      filter: (entry) => (unpacked += entry.originalSize) <= MAX_BUNDLE_BYTES,
    });
  } catch (error) {
    throw importRefused(name, `is not a readable zip file (${String(error)})`, error);
  }
  if (unpacked > MAX_BUNDLE_BYTES)
    throw importRefused(
      name,
      `unpacks to more than ${MAX_BUNDLE_BYTES / 1024 / 1024} MB; Flowbench imports bundles up to that size`,
    );
  const json = (entry: string): unknown => {
    const content = entries[entry];
    if (!content) throw importRefused(name, `has no ${entry}: it is not a Flowbench run bundle`);
    try {
      return JSON.parse(new TextDecoder().decode(content)) as unknown;
    } catch (error) {
      throw importRefused(name, `has a ${entry} that is not valid JSON`, error);
    }
  };
  const runFile = json(RUN_ENTRY);
  const manifest = manifestSchema.safeParse(json(MANIFEST_ENTRY));
  if (!manifest.success)
    refuseImport(`${name} (${MANIFEST_ENTRY})`, 'bundle manifest', issuesFromZod(manifest.error));
  const checked = async (entry: string, digest: string): Promise<Uint8Array> => {
    const content = entries[entry];
    if (!content) throw importRefused(name, `lacks ${entry}, which its manifest lists`);
    const actual = `sha256:${await sha256Hex(content)}`;
    if (actual !== digest)
      throw importRefused(name, `holds ${entry} whose bytes hash to ${actual}, not ${digest}`);
    return content;
  };
  const files: BundleFile[] = [];
  for (const { digest, name: fileName, mediaType } of manifest.data.files) {
    const fileBytes = await checked(`files/${hexOf(digest)}`, digest);
    files.push({ digest, name: fileName, mediaType, bytes: fileBytes });
  }
  const artifacts = new Map<string, Uint8Array>();
  for (const entry of Object.keys(entries)) {
    const hex = /^artifacts\/([0-9a-f]{64})$/.exec(entry)?.[1];
    if (hex !== undefined) artifacts.set(`sha256:${hex}`, await checked(entry, `sha256:${hex}`));
  }
  return { runFile, files, artifacts };
}
