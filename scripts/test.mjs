// The one test command (`npm test`): every check, each one a package.json
// script of its own so that it can also be run alone. It stops after the
// first phase that fails (the phases already running end first), with that
// phase's exit code, and ends with a table of how long each phase took, so
// that a slow phase is seen where it grows rather than guessed at.
//
// The static checks (typecheck, lint, format check) and the build read the
// tree and write nothing another reads, and each of them keeps one core busy
// at most, so they start at once. Lint is the longest of them by far (it
// type-checks the tree again for its typed rules): the unit tests start as
// soon as the other three have passed, beside it, so that the core the
// others leave is not idle for lint's last half-minute. The end-to-end tests
// run alone, last: they need both cores, and a phase beside them would make
// their timing-sensitive specs flaky. A phase's output is printed as it comes
// when nothing runs beside it, else held and printed whole when it ends, so
// that two phases' lines never interleave.
import { spawn } from 'node:child_process';

/** Each phase and the phases it waits for (cheap and likely-to-fail first), in the table's order. */
const plan = {
  typecheck: [],
  lint: [],
  'format:check': [],
  build: [],
  'test:unit': ['typecheck', 'format:check', 'build'],
  'test:e2e': ['lint', 'test:unit'],
};
const phases = Object.keys(plan);

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** The phases now running, so that a signal to this script reaches them too. */
const running = new Set();

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(signal, () => {
    // Pass it on to the phases we started (and only those), then leave as they do.
    if (running.size > 0) for (const child of running) child.kill(signal);
    else process.exit(128 + signalNumber(signal));
  });

/**
 * Runs `npm run <phase>`; resolves with its exit code (128 + n for a signal).
 * `alone`: its output goes straight to ours; otherwise it is held and printed
 * whole, under the phase's heading, when the phase ends.
 */
function run(phase, alone) {
  return new Promise((resolve) => {
    const held = [];
    const child = spawn(npm, ['run', '--silent', phase], {
      stdio: alone ? 'inherit' : ['ignore', 'pipe', 'pipe'],
      // Held output is still coloured when ours goes to a terminal.
      env: !alone && process.stdout.isTTY ? { ...process.env, FORCE_COLOR: '1' } : process.env,
    });
    running.add(child);
    child.stdout?.on('data', (chunk) => held.push(chunk));
    child.stderr?.on('data', (chunk) => held.push(chunk));
    const end = (code) => {
      running.delete(child);
      if (!alone) {
        console.log(`\n── ${phase} ──`);
        process.stdout.write(Buffer.concat(held));
      }
      resolve(code);
    };
    child.on('error', (error) => {
      held.push(Buffer.from(`could not start ${phase}: ${error.message}\n`));
      end(1);
    });
    child.on('exit', (code, signal) => end(code ?? 128 + signalNumber(signal)));
  });
}

function signalNumber(signal) {
  return { SIGHUP: 1, SIGINT: 2, SIGTERM: 15, SIGKILL: 9 }[signal] ?? 1;
}

/** Seconds as `m:ss.s`, the way a person reads a phase time. */
function clock(ms) {
  // Rounded to tenths first, so 59.96 s reads 1:00.0, not 0:60.0.
  const tenths = Math.round(ms / 100);
  return `${Math.floor(tenths / 600)}:${((tenths % 600) / 10).toFixed(1).padStart(4, '0')}`;
}

/** Ended phases: their exit code and how long they took. */
const ended = new Map();
const started = new Set();
let failed = null;
const start = performance.now();
await new Promise((finished) => {
  const launch = () => {
    const ready = phases.filter(
      (phase) => !started.has(phase) && plan[phase].every((p) => ended.get(p)?.code === 0),
    );
    if (failed === null && ready.length > 0) {
      const beside = [...started].filter((phase) => !ended.has(phase));
      // Straight through only when no phase runs beside it and every one still to start waits for it.
      const alone =
        ready.length === 1 &&
        beside.length === 0 &&
        phases.every((p) => started.has(p) || p === ready[0] || plan[p].includes(ready[0]));
      console.log(
        `\n── ${ready.join(', ')}${ready.length > 1 ? ': at once' : ''}${beside.length > 0 ? `, beside ${beside.join(', ')}` : ''} ──`,
      );
      for (const phase of ready) {
        started.add(phase);
        const began = performance.now();
        void run(phase, alone).then((code) => {
          ended.set(phase, { code, ms: performance.now() - began });
          if (code !== 0) failed ??= { phase, code };
          launch();
        });
      }
    }
    if ([...started].every((phase) => ended.has(phase)) && (failed !== null || ready.length === 0))
      finished();
  };
  launch();
});
const total = performance.now() - start;

const width = Math.max(...phases.map((p) => p.length));
console.log(`\n${'phase'.padEnd(width + 2)}${'time'.padStart(7)}  result`);
for (const phase of phases) {
  const end = ended.get(phase);
  const result =
    end === undefined ? 'not run' : end.code === 0 ? 'ok' : `failed (exit ${end.code})`;
  console.log(`${phase.padEnd(width + 2)}${(end ? clock(end.ms) : '—').padStart(7)}  ${result}`);
}
console.log(`${'total'.padEnd(width + 2)}${clock(total).padStart(7)}`);

if (failed) {
  const others = phases.filter((phase) => (ended.get(phase)?.code ?? 0) !== 0);
  console.error(`\n${others.join(', ')} failed (exit ${failed.code}); later phases did not run.`);
  process.exit(failed.code);
}
