/**
 * `flowbench run` as a person or a script meets it: the real command in a
 * process of its own, on a shipped example, its exit status, what it prints
 * and the run file it leaves, read back by the app's importer.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRunBundle } from '../src/core/run/bundle';
import { fromRunExport, type RunExport } from '../src/core/run/export';
import { formatValue, type RunEvent } from './report';
import {
  eventsOf,
  fewFlowers,
  fileDigest,
  flowbench,
  flowbenchHere,
  irisBundle,
  outDir,
  root,
} from './testing';

const example = join(root, 'src/examples/spirals-mlp.flow.json');

/** The one run file in `dir` (beside its bundle, if one was asked for), read by the app's importer. */
function importedRun(dir: string) {
  const files = readdirSync(dir).filter((name) => !name.endsWith('.flowbench.zip'));
  expect(files).toHaveLength(1);
  expect(files[0]).toMatch(/\.run\.json$/);
  const imported = fromRunExport(JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')));
  if (!imported.ok) throw new Error(JSON.stringify(imported.issues));
  return imported.record;
}

describe('flowbench run', () => {
  it('runs a shipped example and writes a run file the app imports; --json prints one event a line', async () => {
    const out = outDir();
    const ended = await flowbench([
      'run',
      example,
      '--param',
      'steps=10',
      '--param',
      'lr=0.05',
      '--seed',
      '3',
      '--out',
      out,
      '--json',
    ]);
    expect(ended.stderr).toBe('');
    expect(ended.code).toBe(0);
    const events = eventsOf(ended.stdout) as RunEvent[];
    expect(events[0]).toMatchObject({ event: 'started', flow: 'spirals-mlp' });
    expect(events).toContainEqual(
      expect.objectContaining({ event: 'progress', node: 'train', done: 10, total: 10 }),
    );
    const finished = events.at(-1);
    expect(finished).toMatchObject({ event: 'finished', status: 'ok' });

    const { run, nodes, metrics } = importedRun(out);
    expect(run.id).toBe(events[0]!.event === 'started' && events[0]!.runId);
    expect(run).toMatchObject({ status: 'ok', cause: 'cli', seed: 3, backendChoice: 'wasm' });
    expect(run.params).toMatchObject({ steps: 10, lr: 0.05 });
    expect(nodes.every((n) => n.status === 'ok')).toBe(true);
    expect(metrics.some((m) => m.name === 'train.loss')).toBe(true);
    // What it ran on, in a browser run's fingerprint fields, so the run diff sets them side by side.
    const version = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    const fingerprint = run.fingerprint!;
    expect(fingerprint).toMatchObject({
      app: { version },
      ort: (await import('onnxruntime-web')).env.versions.web,
      backend: 'wasm',
      adapter: null,
    });
    expect(fingerprint.browser.brands).toContainEqual({
      brand: 'Node.js',
      version: process.versions.node,
    });
    expect(fingerprint.browser.platform).toContain(process.arch);
    expect(fingerprint.browser.hardwareConcurrency).toBeGreaterThan(0);
  });

  // Each other shipped example, few steps. The files they name are found beside them, or given by
  // a bare --file (iris-table's), as a person may give a file the flow names by digest.
  it.each([
    ['digits-cnn', ['--param', 'epochs=1']],
    ['digits-images', ['--param', 'epochs=1']],
    ['iris-attention', ['--param', 'epochs=1']],
    ['iris-table', ['--param', 'epochs=2', '--file', join(root, 'src/examples/iris.csv')]],
    ['pendulum-world-model', ['--param', 'steps=5']],
    ['spirals-lr-sweep', ['--param', 'steps=5']],
  ])('runs the %s example to ok', async (name, args) => {
    const out = outDir();
    const flow = join(root, `src/examples/${name}.flow.json`);
    const ended = await flowbench(['run', flow, ...args, '--out', out]);
    expect(ended.stderr).toBe('');
    expect(ended.code).toBe(0);
    expect(ended.stdout).toMatch(/ended ok/);
    const record = importedRun(out);
    expect(record.run).toMatchObject({ flow: name, status: 'ok' });
    // A node's last progress line (every step done) shows its last loss, not an earlier one.
    const file = JSON.parse(
      readFileSync(join(out, `${record.run.id}.run.json`), 'utf8'),
    ) as RunExport;
    const lastLines = [...ended.stdout.matchAll(/^(\w+): (\d+)\/\2 steps · [^·]+ · loss (\S+)$/gm)];
    expect(lastLines.length).toBeGreaterThan(0);
    for (const [, node, , loss] of lastLines) {
      const series = file.metrics[`${node}.loss`];
      if (series) expect(loss, `${node}'s last line`).toBe(formatValue(series.at(-1)![1]));
    }
    // A data engine's producers run in worker threads, as in Web Workers in the browser.
    if (name === 'pendulum-world-model')
      expect(record.nodes.find((node) => node.node === 'engine')?.logs).toContain(
        'each in a worker thread of its own',
      );
  });

  it('--file name=path picks a file for a file param, recorded by digest; --backend cpu runs on onnxruntime-node', async () => {
    const out = outDir();
    // Another table than the example's, so the record must name these bytes.
    const picked = fewFlowers(out);
    const runs = join(out, 'runs');
    const flow = join(root, 'src/examples/iris-table.flow.json');
    const ended = await flowbench([
      'run',
      flow,
      '--param',
      'epochs=2',
      '--file',
      `data=${picked}`,
      '--backend',
      'cpu',
      '--threads',
      '1',
      '--out',
      runs,
    ]);
    expect(ended.stderr).toBe('');
    expect(ended.code).toBe(0);
    const { run, nodes } = importedRun(runs);
    const digest = fileDigest(picked);
    expect(run.flowSnapshot.nodes.find((n) => n.id === 'data')?.params.file).toBe(digest);
    expect(run.status).toBe('ok');
    expect(run.engine?.backend).toBe('cpu');
    expect(run.fingerprint?.backend).toBe('cpu');
    expect(run.fingerprint?.ort).toMatch(/^onnxruntime-node \d/);
    // The nodes' logs say where they ran as the record does: cpu, never the browser's wasm.
    const logs = (node: string) => nodes.find((n) => n.node === node)?.logs ?? '';
    expect(logs('train')).toMatch(/^training on cpu with /);
    expect(logs('eval')).toMatch(/rows right on cpu/);
    // onnxruntime-node gathers each step's batch from the table as it lies (session-loop.ts).
    expect(logs('train')).toMatch(/each step's rows gathered from the dataset where it lies/);
    expect(nodes.map((n) => n.logs + n.error).join('\n')).not.toMatch(/\bwasm\b/);
  });

  it('takes a file the flow names by digest from beside the flow, saying so, and refuses the flow elsewhere with exit 2', async () => {
    const out = outDir();
    const flow = join(root, 'src/examples/onnx-inference.flow.json');
    const ended = await flowbench(['run', flow, '--out', out, '--json']);
    expect(ended.stderr).toBe('');
    expect(ended.code).toBe(0);
    const started = eventsOf(ended.stdout).find((event) => event.event === 'started');
    expect(started).toMatchObject({
      beside: [{ at: 'infer.file', path: join('src', 'examples', 'blobs-sign.onnx') }],
    });
    const { run } = importedRun(out);
    expect(run.status).toBe('ok');
    const digest = fileDigest(join(root, 'src/examples/blobs-sign.onnx'));
    expect(run.flowSnapshot.nodes.find((n) => n.id === 'infer')?.params.file).toBe(digest);

    // The same flow in a folder without that file: refused before it runs, saying what to give.
    const alone = join(outDir(), 'onnx-inference.flow.json');
    writeFileSync(alone, readFileSync(flow));
    const runs = outDir();
    const refused = await flowbenchHere(['run', alone, '--out', runs]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `--file is missing for infer.file: flow 'onnx-inference' reads file ${digest.slice(0, 19)}… there, and no file beside the flow has those bytes. Give it: --file infer.file=PATH`,
    );
    expect(readdirSync(runs)).toEqual([]);
  });

  it('runs a run bundle again as it ran: its flow, params, seed and the file it read, the same series', async () => {
    const dir = outDir();
    const { bundle, first } = await irisBundle(dir);
    // --bundle wrote it as the app's Export bundle does: the table the flow read, the trained model.
    const opened = await openRunBundle('iris', new Uint8Array(readFileSync(bundle)));
    expect(opened.files.map((file) => file.name)).toEqual(['few-flowers.csv']);
    expect(opened.artifacts.size).toBeGreaterThan(0);
    const again = join(dir, 'again');
    const ended = await flowbench(['run', bundle, '--out', again, '--json']);
    expect(ended.stderr).toBe('');
    expect(ended.code).toBe(0);
    const before = importedRun(first);
    const after = importedRun(again);
    expect(eventsOf(ended.stdout)[0]).toMatchObject({
      event: 'started',
      from: { file: bundle, runId: before.run.id, files: 1 },
    });
    // The bundle's run's re-run, which the app compares series by series.
    expect(after.run).toMatchObject({
      params: { epochs: 2 },
      seed: 5,
      status: 'ok',
      rerunOf: before.run.id,
    });
    const fileOf = (record: typeof before) =>
      record.run.flowSnapshot.nodes.find((n) => n.id === 'data')?.params.file;
    expect(fileOf(after)).toBe(fileOf(before));
    // The same engine on the same bytes: every series bit for bit.
    const series = (record: typeof before) =>
      Object.fromEntries(record.metrics.map((m) => [`${m.name}#${m.step}`, m.value]));
    expect(series(after)).toEqual(series(before));
    // What the command line sets still wins.
    const other = join(dir, 'other');
    expect(
      (await flowbench(['run', bundle, '--param', 'epochs=1', '--seed', '6', '--out', other])).code,
    ).toBe(0);
    expect(importedRun(other).run).toMatchObject({ params: { epochs: 1 }, seed: 6, rerunOf: null });
  });

  it('runs a run file again as it ran, its record the re-run of that run', async () => {
    const first = outDir();
    const made = await flowbench([
      'run',
      example,
      '--param',
      'steps=15',
      '--seed',
      '4',
      '--out',
      first,
    ]);
    expect(made.code).toBe(0);
    const before = importedRun(first);
    const again = outDir();
    const runFile = join(first, `${before.run.id}.run.json`);
    const ended = await flowbench(['run', runFile, '--out', again]);
    expect(ended.stderr).toBe('');
    expect(ended.code).toBe(0);
    expect(ended.stdout).toContain(
      `from ${runFile}: run ${before.run.id}'s flow, params and seed\n`,
    );
    const after = importedRun(again);
    expect(after.run).toMatchObject({ params: { steps: 15 }, seed: 4, rerunOf: before.run.id });
    const series = (record: typeof before) =>
      Object.fromEntries(record.metrics.map((m) => [`${m.name}#${m.step}`, m.value]));
    expect(series(after)).toEqual(series(before));
  });

  it('refuses a zip that is no run bundle as a flow, with exit 2', async () => {
    const refused = await flowbenchHere(['run', join(root, 'src/examples/digits.zip')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'digits.zip has no run.json: it is not a Flowbench run bundle',
    );
  });

  it('goes on to write its run file when its reader stops reading (| head)', async () => {
    const out = outDir();
    const ended = await flowbench(
      ['run', example, '--param', 'steps=20', '--out', out],
      (_, child) => child.stdout?.destroy(),
    );
    expect(ended.code).toBe(0);
    expect(importedRun(out).run.status).toBe('ok');
  });

  it('refuses a --file that names no file param, or a file that is missing, and --backend it lacks, with exit 2', async () => {
    const flow = join(root, 'src/examples/iris-table.flow.json');
    const csv = join(root, 'src/examples/iris.csv');
    const unknown = await flowbenchHere(['run', flow, '--file', `table=${csv}`]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      "--file 'table' names no file param of flow 'iris-table' (its file params: data.file)",
    );
    const missing = await flowbenchHere(['run', flow, '--file', 'data.file=nowhere.csv']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nowhere.csv does not exist');
    const backend = await flowbenchHere(['run', flow, '--backend', 'webgpu']);
    expect(backend.code).toBe(2);
    expect(backend.stderr).toContain("--backend expects wasm or cpu, got 'webgpu'");
    const threads = await flowbenchHere(['run', flow, '--backend', 'cpu', '--threads', 'two']);
    expect(threads.code).toBe(2);
    expect(threads.stderr).toContain("--threads expects a positive integer, got 'two'");
  });

  // Its own process, as a person meets it: the command's exit status is main's. The other refusals
  // run main in this process (flowbenchHere).
  it('refuses an unknown --param with exit 2, naming it, and runs nothing', async () => {
    const out = outDir();
    const ended = await flowbench(['run', example, '--param', 'lerning_rate=0.1', '--out', out]);
    expect(ended.code).toBe(2);
    expect(ended.stderr).toContain("'lerning_rate' is not an input of flow 'spirals-mlp'");
    expect(readdirSync(out)).toEqual([]);
  });

  it('refuses a number --param that is no number with exit 2, quoting what was given', async () => {
    for (const [param, quoted] of [
      ['lr=abc', '"abc"'],
      ['lr=1e999', '"1e999"'],
    ] as const) {
      const refused = await flowbenchHere(['run', example, '--param', param]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`'lr' expects a number from 0 to 10, got ${quoted}`);
    }
  });

  it('prints its usage for --help after any command (exit 0), and points an unknown option to it (exit 2)', async () => {
    for (const args of [['--help'], ['serve', '--help'], ['run', example, '-h']]) {
      const help = await flowbenchHere(args);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(
        /^Usage: flowbench run <flow\.json \| run\.json \| run\.flowbench\.zip>/,
      );
      expect(help.stdout).toContain('--threads N');
    }
    const unknown = await flowbenchHere(['serve', '--frob']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("serve refused its arguments: Unknown option '--frob'");
    expect(unknown.stderr).toContain('(flowbench --help lists every option)');
  });

  it('refuses a malformed or missing flow file with exit 2, naming the file', async () => {
    const dir = outDir();
    const broken = join(dir, 'broken.flow.json');
    writeFileSync(broken, '{"format": "flowbench.flow/1", "nodes": [');
    const malformed = await flowbenchHere(['run', broken, '--out', dir]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain(`${broken} is not JSON`);

    const notAFlow = join(dir, 'not-a.flow.json');
    writeFileSync(notAFlow, '{"format": "flowbench.flow/1", "nodes": 3}');
    const invalid = await flowbenchHere(['run', notAFlow, '--out', dir, '--json']);
    expect(invalid.code).toBe(2);
    expect(JSON.parse(invalid.stdout)).toMatchObject({
      event: 'error',
      code: 'invalid-flow',
      category: 'bad-input',
    });

    const missing = await flowbenchHere(['run', join(dir, 'nowhere.flow.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nowhere.flow.json does not exist');
  });

  it('ends the record cancelled on Ctrl+C, with the points so far written, and exits 130', async () => {
    const out = outDir();
    let interrupted = false;
    const ended = await flowbench(
      ['run', example, '--param', 'steps=100000', '--out', out, '--json'],
      (line, child) => {
        const event = JSON.parse(line) as RunEvent;
        // Once some loss points exist, as a person would press it mid-run.
        if (!interrupted && event.event === 'progress' && event.done >= 20) {
          interrupted = true;
          child.kill('SIGINT');
        }
      },
    );
    expect(interrupted).toBe(true);
    expect(ended.code).toBe(130);
    const { run, nodes, metrics } = importedRun(out);
    expect(run.status).toBe('cancelled');
    expect(nodes.find((n) => n.node === 'train')?.status).toBe('cancelled');
    expect(metrics.filter((m) => m.name === 'train.loss').length).toBeGreaterThanOrEqual(4);
  });
});
