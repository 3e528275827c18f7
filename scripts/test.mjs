// The one test command (`npm test`): every check, in order, each one a
// package.json script of its own so that it can also be run alone. It stops
// at the first phase that fails, with that phase's exit code, and ends with a
// table of how long each phase took, so that a slow phase is seen where it
// grows rather than guessed at. The static checks (typecheck, lint, format)
// run at once — each is single-threaded, and on two cores the three take
// about the time of the longest — with their output held and printed in
// order; the rest run one after another: on two cores the end-to-end phase
// needs both, and a phase beside it would make its timing-sensitive specs
// flaky.
import { spawn } from 'node:child_process';

/** The phases, in the order they run: cheap and likely-to-fail first; a group runs at once. */
const groups = [['typecheck', 'lint', 'format:check'], ['test:unit'], ['build'], ['test:e2e']];
const phases = groups.flat();

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** The phases now running, so that a signal to this script reaches them too. */
const current = new Set();

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(signal, () => {
    // Pass it on to the phases we started (and only those), then leave as they do.
    const running = [...current].filter((child) => child.exitCode === null);
    if (running.length > 0) for (const child of running) child.kill(signal);
    else process.exit(128 + signalNumber(signal));
  });

/**
 * Runs `npm run <phase>`; resolves with its exit code (128 + n for a signal)
 * and, when `held`, its output, to print once the group is done.
 */
function run(phase, held) {
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '--silent', phase], {
      stdio: held ? ['inherit', 'pipe', 'pipe'] : 'inherit',
    });
    current.add(child);
    const output = [];
    child.stdout?.on('data', (chunk) => output.push(chunk));
    child.stderr?.on('data', (chunk) => output.push(chunk));
    const done = (code) => {
      current.delete(child);
      resolve({ code, output: Buffer.concat(output).toString() });
    };
    child.on('error', (error) => {
      output.push(Buffer.from(`could not start ${phase}: ${error.message}\n`));
      done(1);
    });
    child.on('close', (code, signal) => done(code ?? 128 + signalNumber(signal)));
  });
}

function signalNumber(signal) {
  return { SIGHUP: 1, SIGINT: 2, SIGTERM: 15, SIGKILL: 9 }[signal] ?? 1;
}

/** Seconds as `m:ss.s`, the way a person reads a phase time. */
function clock(ms) {
  const s = ms / 1000;
  return `${Math.floor(s / 60)}:${(s % 60).toFixed(1).padStart(4, '0')}`;
}

const times = [];
let failed = null;
const start = performance.now();
for (const group of groups) {
  const held = group.length > 1;
  if (!held) console.log(`\n── ${group[0]} ──`);
  const ran = await Promise.all(
    group.map(async (phase) => {
      const began = performance.now();
      const { code, output } = await run(phase, held);
      return { phase, ms: performance.now() - began, code, output };
    }),
  );
  for (const { phase, ms, code, output } of ran) {
    if (held) process.stdout.write(`\n── ${phase} ──\n${output}`);
    times.push({ phase, ms, code });
    failed ??= code === 0 ? null : { phase, code };
  }
  if (failed) break;
}
const total = performance.now() - start;

const width = Math.max(...phases.map((p) => p.length));
console.log(`\n${'phase'.padEnd(width + 2)}${'time'.padStart(7)}  result`);
for (const { phase, ms, code } of times)
  console.log(
    `${phase.padEnd(width + 2)}${clock(ms).padStart(7)}  ${code === 0 ? 'ok' : `failed (exit ${code})`}`,
  );
for (const phase of phases.slice(times.length))
  console.log(`${phase.padEnd(width + 2)}${'—'.padStart(7)}  not run`);
console.log(`${'total'.padEnd(width + 2)}${clock(total).padStart(7)}`);

if (failed) {
  console.error(`\n${failed.phase} failed (exit ${failed.code}); later phases did not run.`);
  process.exit(failed.code);
}
