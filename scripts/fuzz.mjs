// The crash fuzzer, at length: `npm run fuzz -- --scenarios N --seed S` runs
// the seeded scenarios S … S+N-1 of e2e/fuzz.spec.ts against the production
// build (run `npm run build` first). Without --seed it starts from a seed of
// the clock and prints it. Each scenario is a test named after its seed, so
// Playwright's report lists what passed and what broke; a failure prints the
// seed and its numbered actions, and `npm run fuzz -- --seed S` replays it.
//
// `--steps 0,2,5` replays only those actions of the seed's scenario, and
// `--seed S --minimise` shrinks a failing scenario: it leaves out one action
// at a time and keeps it out while the scenario still fails (one replay each,
// so a failure that depends on timing may keep an action it does not need).
import { execFileSync, spawn } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    scenarios: { type: 'string', default: '1' },
    seed: { type: 'string' },
    steps: { type: 'string' },
    minimise: { type: 'boolean', default: false },
  },
});
const scenarios = Number(values.scenarios);
const seed = values.seed === undefined ? Date.now() % 1_000_000 : Number(values.seed);
if (!Number.isInteger(scenarios) || scenarios < 1 || !Number.isInteger(seed) || seed < 0) {
  console.error(
    'usage: npm run fuzz -- [--scenarios N] [--seed S] [--steps i,j,…] [--seed S --minimise]',
  );
  process.exit(2);
}

const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
let child = null;
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    if (child?.exitCode === null) child.kill(signal);
    process.exit(1);
  });

/** Runs the spec on `count` seeds from `first`, with only `steps` when given; resolves with its exit code. */
function fuzz(first, count, steps) {
  const env = { ...process.env, FUZZ_SEED: String(first), FUZZ_SCENARIOS: String(count) };
  if (steps !== undefined) env.FUZZ_STEPS = steps;
  else delete env.FUZZ_STEPS;
  return new Promise((resolve) => {
    child = spawn(npx, ['playwright', 'test', 'e2e/fuzz.spec.ts', '--reporter=list'], {
      stdio: 'inherit',
      env,
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

if (!values.minimise) {
  console.log(`crash fuzzer: ${scenarios} scenario(s) from seed ${seed}`);
  process.exit(await fuzz(seed, scenarios, values.steps));
}

// Minimise one seed's failing scenario, an action at a time.
if (values.seed === undefined) {
  console.error('--minimise needs the --seed of a failing scenario');
  process.exit(2);
}
console.log(`crash fuzzer: minimising seed ${seed}`);
if ((await fuzz(seed, 1, values.steps)) === 0) {
  console.log(`seed ${seed} passed: nothing to minimise`);
  process.exit(0);
}
// The scenario's actions, numbered from 0 as the spec prints them.
const count = Number(
  execFileSync(npx, [
    'tsx',
    '-e',
    `import { scenarioFor } from './e2e/support/fuzz/scenario.ts';
     console.log(scenarioFor(${seed}).steps.length);`,
  ]),
);
let kept = values.steps?.split(',').map(Number) ?? Array.from({ length: count }, (_, i) => i);
for (const step of [...kept]) {
  const without = kept.filter((i) => i !== step);
  console.log(`\ncrash fuzzer: seed ${seed} without action #${step}: ${without.join(',')}`);
  if ((await fuzz(seed, 1, without.join(','))) !== 0) kept = without;
}
console.log(`\nminimal failing scenario: npm run fuzz -- --seed ${seed} --steps ${kept.join(',')}`);
process.exit(1);
