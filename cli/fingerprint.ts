/**
 * A headless run's fingerprint: what this Node process says of the code,
 * onnxruntime and the machine, in the very fields a browser run's
 * fingerprint holds (core/run/fingerprint.ts shapes both), so the run diff
 * sets a command-line run beside a browser run fact by fact. Node stands
 * where the browser stands (its version as the "browser", V8's beside it),
 * the OS, architecture and CPU model are the platform, and the build is the
 * checkout's commit, as the app's build names it. Read once per process:
 * nothing in it changes while the process lives, and a sweep worker claims
 * many runs.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { fingerprintOf, type RunFingerprint } from '../src/core/run/fingerprint';
import type { CliBackend } from './backend';

const root = fileURLToPath(new URL('..', import.meta.url));

/** package.json's version: the Flowbench this is. */
function appVersion(): string {
  const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

/**
 * The checkout's commit, with `-dirty` when tracked files have changes (the
 * command runs its sources as they are, so there is no build time to add);
 * `not a git checkout` where git cannot say.
 */
function sourceBuild(): string {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  try {
    const commit = git('rev-parse', '--short=12', 'HEAD');
    return git('status', '--porcelain', '--untracked-files=no') === '' ? commit : `${commit}-dirty`;
  } catch {
    return 'not a git checkout';
  }
}

/** onnxruntime's version as the run's backend loads it. */
async function ortVersion(backend: CliBackend): Promise<string> {
  if (backend === 'wasm') return (await import('onnxruntime-web')).env.versions.web ?? 'unknown';
  return `onnxruntime-node ${(await import('onnxruntime-node')).env.versions.node ?? 'unknown'}`;
}

/** The OS, its release, the architecture and the CPU model, e.g. "Linux 6.1.0 x64, AMD EPYC 7B13". */
function platform(): string {
  const cpu = os.cpus()[0]?.model.trim();
  return [`${os.type()} ${os.release()} ${process.arch}`, cpu].filter(Boolean).join(', ');
}

const fingerprints = new Map<CliBackend, Promise<RunFingerprint>>();

/** The fingerprint of a run this process drives on `backend`. */
export function nodeFingerprint(backend: CliBackend): Promise<RunFingerprint> {
  let fingerprint = fingerprints.get(backend);
  if (!fingerprint) {
    fingerprint = ortVersion(backend).then((ort) =>
      fingerprintOf({
        app: { version: appVersion(), build: sourceBuild() },
        ort,
        backend,
        adapter: null,
        navigator: {
          userAgent: `Node.js/${process.versions.node} (${process.platform}; ${process.arch})`,
          platform: platform(),
          hardwareConcurrency: os.availableParallelism(),
          // Whole GiB, as a browser rounds its own (coarser) figure.
          deviceMemory: Math.round(os.totalmem() / 2 ** 30),
          userAgentData: {
            brands: [
              { brand: 'Node.js', version: process.versions.node },
              { brand: 'V8', version: process.versions.v8 },
            ],
          },
        },
        // What the field stands for: SharedArrayBuffer and WASM threads, which Node always has.
        crossOriginIsolated: true,
      }),
    );
    fingerprints.set(backend, fingerprint);
  }
  return fingerprint;
}
