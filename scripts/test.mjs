// The one test command (`npm test`): every check, in order, each one a
// package.json script of its own so that it can also be run alone. It stops
// at the first phase that fails, with that phase's exit code, and ends with a
// table of how long each phase took, so that a slow phase is seen where it
// grows rather than guessed at. Phases run one after another, not at once: on
// two cores the end-to-end phase needs both, and a phase beside it would make
// its timing-sensitive specs flaky.
import { spawn } from 'node:child_process';

/** The phases, in the order they run: cheap and likely-to-fail first. */
const phases = ['typecheck', 'lint', 'format:check', 'test:unit', 'build', 'test:e2e'];

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** The phase now running, so that a signal to this script reaches it too. */
let current = null;

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(signal, () => {
    // Pass it on to the phase we started (and only that one), then leave as it does.
    if (current?.exitCode === null) current.kill(signal);
    else process.exit(128 + signalNumber(signal));
  });

/** Runs `npm run <phase>`; resolves with its exit code (128 + n for a signal). */
function run(phase) {
  return new Promise((resolve) => {
    current = spawn(npm, ['run', '--silent', phase], { stdio: 'inherit' });
    current.on('error', (error) => {
      console.error(`could not start ${phase}: ${error.message}`);
      resolve(1);
    });
    current.on('exit', (code, signal) => resolve(code ?? 128 + signalNumber(signal)));
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
for (const phase of phases) {
  console.log(`\n── ${phase} ──`);
  const began = performance.now();
  const code = await run(phase);
  times.push({ phase, ms: performance.now() - began, code });
  if (code !== 0) {
    failed = { phase, code };
    break;
  }
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
