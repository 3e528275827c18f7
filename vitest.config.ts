import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'src/**/*.test.ts',
      'workers/**/*.test.ts',
      'cli/**/*.test.ts',
      'e2e/support/**/*.test.ts',
    ],
    environment: 'node',
    // A guard against a hang, not a measure of speed (that is `npm run bench`): on the shared
    // 2-core machine, property tests that take 3 s alone took over 30 s at a load average of 30.
    testTimeout: 120_000,
    // One test file per core. Vitest's default keeps a core for itself (cores - 1), which on a
    // 2-core machine runs every file on one: 171 s against 140 s with two on a loaded machine.
    maxWorkers: availableParallelism(),
    // Files share their worker's modules instead of importing everything afresh: onnxruntime,
    // zod schemas and the engine were loaded once per file, 56 s of a 182 s run on 2 cores; 94 s
    // without. Every file makes its own databases, queues and sessions, and one that fakes the
    // clock puts it back after each test, so nothing one leaves changes what another sees.
    isolate: false,
    setupFiles: ['./vitest.setup.ts'],
  },
});
