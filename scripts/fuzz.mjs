// The crash fuzzer, at length: `npm run fuzz -- --scenarios N --seed S` runs
// the seeded scenarios S … S+N-1 of e2e/fuzz.spec.ts against the production
// build (run `npm run build` first). Without --seed it starts from a seed of
// the clock and prints it. Each scenario is a test named after its seed, so
// Playwright's report lists what passed and what broke; a failure prints the
// seed and its actions, and `npm run fuzz -- --seed S` replays it.
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    scenarios: { type: 'string', default: '1' },
    seed: { type: 'string' },
  },
});
const scenarios = Number(values.scenarios);
const seed = values.seed === undefined ? Date.now() % 1_000_000 : Number(values.seed);
if (!Number.isInteger(scenarios) || scenarios < 1 || !Number.isInteger(seed) || seed < 0) {
  console.error('usage: npm run fuzz -- [--scenarios N] [--seed S]  (whole numbers, N ≥ 1)');
  process.exit(2);
}
console.log(`crash fuzzer: ${scenarios} scenario(s) from seed ${seed}`);

const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const child = spawn(npx, ['playwright', 'test', 'e2e/fuzz.spec.ts', '--reporter=list'], {
  stdio: 'inherit',
  env: { ...process.env, FUZZ_SEED: String(seed), FUZZ_SCENARIOS: String(scenarios) },
});
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => child.exitCode === null && child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
