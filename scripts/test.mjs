// The one test command (`npm test`): every check, in order, each one a
// package.json script of its own so that it can also be run alone. It stops
// after the first step that fails, with that phase's exit code, and ends with
// a table of how long each phase took, so that a slow phase is seen where it
// grows rather than guessed at.
//
// The static checks (typecheck, lint, format check) and the build read the
// tree and write nothing another reads, and each of them keeps one core busy
// at most, so they run at once, as one step: on two cores that step takes
// about as long as lint alone. Each one's output is held and printed whole
// when it ends, so that two checks' lines never interleave. The unit and
// end-to-end phases run alone: each needs both cores, and a phase beside the
// end-to-end tests would make their timing-sensitive specs flaky.
import { spawn } from 'node:child_process';

/** The steps, in the order they run (cheap and likely-to-fail first); a step's phases run at once. */
const steps = [['typecheck', 'lint', 'format:check', 'build'], ['test:unit'], ['test:e2e']];
const phases = steps.flat();

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

const times = [];
let failed = null;
const start = performance.now();
for (const step of steps) {
  const alone = step.length === 1;
  if (alone) console.log(`\n── ${step[0]} ──`);
  else console.log(`\n── ${step.join(', ')}: at once ──`);
  const results = await Promise.all(
    step.map(async (phase) => {
      const began = performance.now();
      const code = await run(phase, alone);
      return { phase, ms: performance.now() - began, code };
    }),
  );
  times.push(...results);
  failed = results.find(({ code }) => code !== 0) ?? null;
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
  const others = times.filter(({ code }) => code !== 0).map(({ phase }) => phase);
  console.error(`\n${others.join(', ')} failed (exit ${failed.code}); later phases did not run.`);
  process.exit(failed.code);
}
